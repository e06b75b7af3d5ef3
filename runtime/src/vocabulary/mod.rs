//! The vocabulary layer: the words every other layer speaks, with no behaviour that needs a
//! device. Errors ([`error`], [`fault`], [`panic_report`]), what a device is and allows
//! ([`limits`]), what a kernel is ([`kernel`]) and uses ([`kernel_attributes`], read from the
//! build's [`ptxas_report`] or the driver; its PTX text through [`ptx_entry`]; the fast math it
//! was built with, [`fast_math`]; the test of its parameters that chooses its fast copy,
//! [`entry_test`]), how many of its
//! blocks fit on a multiprocessor ([`occupancy`]), the shape of a launch and its validation
//! ([`shape`]), and the bytes of its parameters ([`params`]).
//!
//! Nothing here imports the backends, the handles or the launch layer.

pub(crate) mod allocation_failure;
pub(crate) mod collective;
pub(crate) mod context_loss;
pub(crate) mod copy_route;
pub(crate) mod driver_requirement;
pub(crate) mod entry_test;
pub(crate) mod error;
pub(crate) mod fast_math;
pub(crate) mod fault;
pub(crate) mod index_range;
pub(crate) mod kernel;
pub(crate) mod kernel_attributes;
pub(crate) mod limits;
pub(crate) mod occupancy;
pub(crate) mod panic_report;
pub(crate) mod params;
pub(crate) mod ptx_entry;
pub(crate) mod ptxas_report;
pub(crate) mod shape;
pub(crate) mod tensor_map;
pub(crate) mod thread_set;
