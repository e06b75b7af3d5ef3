//! The third layer: the rewrites of the linked module, each in its own module, reading the
//! IR through [`crate::ir`] and what it knows of a body through [`crate::analysis`].
//!
//! [`crate::pipeline`] runs the optional optimising passes in order ([`loop_counter_narrowing`],
//! [`load_speculation`], [`offset_checks`], [`proved_checks`], [`check_versioning`] and, in the
//! fast copies it makes, [`compare_narrowing`]); the linker ([`crate::link`]) runs the others
//! around `opt` and `llc`: [`compiler_fences`], [`dead_fn_pointers`], [`panic_rewrite`],
//! [`ir_rewrite`], [`max_block`], [`fast_math`] and, on the PTX, [`line_tables`].

pub(crate) mod check_versioning;
pub(crate) mod compare_narrowing;
pub(crate) mod compiler_fences;
pub(crate) mod dead_fn_pointers;
pub(crate) mod fast_math;
pub(crate) mod ir_rewrite;
pub(crate) mod line_tables;
pub(crate) mod load_speculation;
pub(crate) mod loop_counter_narrowing;
pub(crate) mod max_block;
pub(crate) mod offset_checks;
pub(crate) mod panic_rewrite;
pub(crate) mod proved_checks;
