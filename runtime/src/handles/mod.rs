//! The handle layer: the public objects a program holds ([`device::Device`], [`buffer`]s,
//! [`pinned`] memory, [`stream`]s, [`event`]s, [`constant`] symbols, and the asynchronous copies
//! of [`async_copy`]). Handles are backend-free: each operation calls one method of the device's
//! backend ([`crate::backend::DeviceBackend`]) and never asks whether that is a GPU or the
//! simulator.
//!
//! Handles import the vocabulary and the backend layer, never the launch layer. Where two
//! handles meet, the method lives with the later one: `Device::default_stream` and
//! `Device::new_stream` in [`stream`], `Stream::record_event` and `Stream::wait_event` in
//! [`event`], the asynchronous copies of a `DeviceBuffer` in [`async_copy`]. [`pending`] keeps
//! each thread's launches until a synchronization reports their panics.

pub(crate) mod async_copy;
pub(crate) mod buffer;
pub(crate) mod collectives;
pub(crate) mod constant;
pub(crate) mod device;
pub(crate) mod event;
pub(crate) mod graph;
pub(crate) mod multi_device;
pub(crate) mod peer;
pub(crate) mod pending;
pub(crate) mod pinned;
pub(crate) mod stream;
pub(crate) mod stream_copy;
pub(crate) mod tensor_map;
