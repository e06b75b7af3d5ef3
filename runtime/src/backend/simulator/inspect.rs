//! What the simulator says about a kernel: its attributes, from the `ptxas -v` report the kernel
//! crate's build kept (the simulator runs the Rust source, not the compiled code), and the
//! multiprocessor occupancy is modelled on (an H100's).

use super::{Simulator, limits};
use crate::vocabulary::kernel::KernelInfo;
use crate::vocabulary::kernel_attributes::KernelAttributes;
use crate::vocabulary::limits::Backend;
use crate::vocabulary::occupancy::MultiprocessorLimits;
use crate::vocabulary::ptxas_report::ptxas_entry;

impl Simulator {
    /// The multiprocessor occupancy is computed against (an H100's).
    pub const MULTIPROCESSOR: MultiprocessorLimits = limits::MULTIPROCESSOR;

    /// The kernel's attributes from its build's `ptxas -v` report (`None` fields without one);
    /// the most threads per block is the simulator's limit.
    pub(crate) fn kernel_attributes(info: &'static KernelInfo) -> KernelAttributes {
        let entry = ptxas_entry(info.module.ptxas_report, info.name);
        KernelAttributes::from_report(
            info.name,
            Backend::Simulator,
            entry.as_ref(),
            // A `max_block` kernel's entry has `.maxntid`, which sets the limit on a GPU too.
            info.max_block
                .map_or(Self::LIMITS.max_threads_per_block, |[x, y, z]| {
                    x.saturating_mul(y)
                        .saturating_mul(z)
                        .min(Self::LIMITS.max_threads_per_block)
                }),
        )
    }
}
