//! The lowest layer above the error type: the text of LLVM IR as `llvm-dis` prints it (and of
//! the PTX `llc` writes), read and written without any knowledge of what a pass wants.
//!
//! [`syntax`] reads names, strings, types and lists; [`blocks`] and [`instructions`] split a
//! function body into basic blocks and read its instructions; [`cfg`](mod@cfg) reads the control-flow
//! graph from the terminators; [`markers`] reads the marker statics `#[kernel(...)]` leaves;
//! [`special_registers`] recognises the thread and block index reads, [`min_max`] declares the
//! 32-bit `min`/`max` intrinsics, and [`ptx_notes`] writes the comment lines the runtime reads.

pub(crate) mod blocks;
pub(crate) mod cfg;
pub(crate) mod instructions;
pub(crate) mod markers;
pub(crate) mod min_max;
pub(crate) mod ptx_notes;
pub(crate) mod special_registers;
pub(crate) mod syntax;
