//! `setmaxnreg` on the simulator: refused with `SimulatorFault::UnsupportedInstruction`.

use crate::sim;
use core::panic::Location;

/// Refuses `setmaxnreg.inc`.
#[inline]
#[track_caller]
pub(crate) fn increase<const N: u32>() {
    sim::hooks().unsupported("setmaxnreg.inc", Location::caller())
}

/// Refuses `setmaxnreg.dec`.
#[inline]
#[track_caller]
pub(crate) fn decrease<const N: u32>() {
    sim::hooks().unsupported("setmaxnreg.dec", Location::caller())
}
