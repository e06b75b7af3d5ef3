//! The launch layer, on top of the handles: [`config`] (the shape and stream of a launch, what
//! `launch!` and the generated launchers fill in), [`request`] (what a launcher has been told,
//! with grids and blocks of any integer type and `.forall(n)`), [`inspect`] (a kernel's
//! attributes, PTX and occupancy on a device), [`args`] (what may be passed for each kernel
//! parameter, checked at compile time), [`binder`] with [`bind`] (collects the arguments, validates the shape,
//! launches through the device's backend, copies host slices back), [`cooperative`] (the check
//! before a cooperative launch) and [`mod@bench`].
//!
//! What a launch then does on a GPU is in `backend/cuda/launch.rs`; on the simulator in
//! `backend/simulator/`.

pub(crate) mod args;
pub(crate) mod bench;
pub(crate) mod bind;
pub(crate) mod binder;
pub(crate) mod config;
pub(crate) mod cooperative;
pub(crate) mod generated;
pub(crate) mod inspect;
pub(crate) mod max_block;
pub(crate) mod request;
