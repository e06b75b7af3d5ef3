//! [`InspectKernel`]: questions about a compiled kernel on a device — its attributes
//! (registers, local, shared and constant memory, spills, the largest block), its PTX, the fast
//! math it was built with, its occupancy at a block size, and the block size with the best
//! occupancy — asked through any kernel handle (`vecadd.attributes(&device)`), like CuPy's `RawKernel.attributes`, Numba's
//! `inspect_asm` and `get_max_potential_block_size`.

use crate::handles::device::Device;
use crate::launch::cooperative::max_cooperative_blocks;
use crate::vocabulary::error::{Error, LaunchError, Result};
use crate::vocabulary::fast_math::{FastMath, fast_math_of};
use crate::vocabulary::kernel::Kernel;
use crate::vocabulary::kernel_attributes::KernelAttributes;
use crate::vocabulary::occupancy::Occupancy;
use crate::vocabulary::ptx_entry::entry_text;
use crate::vocabulary::shape::{LaunchInt, launch_u32};

/// Questions about a compiled kernel, answered for every kernel handle (`use
/// ferrocuda::prelude::*` brings the trait into scope).
///
/// ```ignore
/// let attributes = vecadd.attributes(&device)?;
/// println!("{attributes}"); // vecadd: 26 registers, 32 B local, 16 B static shared, ...
/// let occupancy = vecadd.occupancy(&device, 256, 0)?;
/// println!("{} blocks of 256 per SM, {:.0}% of the warps", occupancy.active_blocks, occupancy.fraction * 100.0);
/// let block = vecadd.suggested_block_size(&device, 0)?;
/// println!("{}", vecadd.ptx()?); // the `.entry vecadd(...) { ... }` text
/// ```
pub trait InspectKernel: Kernel {
    /// What the kernel uses on `device`: on a GPU, what the driver reports for the loaded code
    /// (its module is loaded on first use); on the simulator, the build's `ptxas -v` report
    /// where there is one. See [`KernelAttributes`].
    fn attributes(&self, device: &Device) -> Result<KernelAttributes> {
        device.operate(|backend| backend.kernel_attributes(Self::info()))
    }

    /// The PTX text of the kernel's `.entry`, from its declaration to its closing brace (the
    /// same on every backend: it is the PTX the build embedded).
    fn ptx(&self) -> Result<&'static str> {
        let info = Self::info();
        entry_text(info.module.ptx, info.name).ok_or_else(|| Error::Module {
            module: info.module.crate_name,
            message: format!("the PTX has no `.entry {}`", info.name),
        })
    }

    /// The fast math the kernel's PTX was built with (`#[kernel(fast_math(...))]`, or the
    /// crate's `FERROCUDA_FAST_MATH` / `Builder::fast_math`); off by default. The simulator
    /// computes every operation IEEE-rounded whatever it says.
    fn fast_math(&self) -> FastMath {
        let info = Self::info();
        fast_math_of(info.module.ptx, info.name)
    }

    /// The PTX of the whole module the kernel is in (every kernel of its crate).
    fn module_ptx(&self) -> &'static str {
        Self::info().module.ptx
    }

    /// How many blocks of `block_size` threads, each with `dynamic_shared_bytes` of dynamic
    /// shared memory, are resident on one multiprocessor of `device` at once, and what bounds
    /// them. On a GPU the count is the driver's (`cuOccupancyMaxActiveBlocksPerMultiprocessor`);
    /// on the simulator it is computed for an H100's multiprocessor, counting registers only when
    /// the build's `ptxas -v` report gives them.
    ///
    /// A block size of 0 or above the kernel's limit, or more shared memory than a block may
    /// have on the device, is an error naming the value and the limit. Shared memory that fits
    /// a block but not a multiprocessor beside the driver's reserve gives 0 active blocks,
    /// limited by [`OccupancyLimit::SharedMemory`](crate::OccupancyLimit::SharedMemory).
    fn occupancy(
        &self,
        device: &Device,
        block_size: impl LaunchInt,
        dynamic_shared_bytes: impl LaunchInt,
    ) -> Result<Occupancy> {
        let info = Self::info();
        let block_size = launch_u32(block_size, "block size", "")
            .map_err(|problem| LaunchError::new(info.name, problem))?;
        let shared = launch_u32(dynamic_shared_bytes, "dynamic shared memory (bytes)", "")
            .map_err(|problem| LaunchError::new(info.name, problem))?;
        device.operate(|backend| {
            backend.occupancy(info, block_size, shared, device.limits(), device.name())
        })
    }

    /// The most blocks of `block_size` threads, each with `dynamic_shared_bytes` of dynamic
    /// shared memory, that a cooperative launch of this kernel (`#[kernel(cooperative)]`) may
    /// have on `device`: the blocks resident on one multiprocessor times the multiprocessors
    /// (the simulator has one). A device that cannot launch cooperatively is an error.
    fn max_cooperative_blocks(
        &self,
        device: &Device,
        block_size: impl LaunchInt,
        dynamic_shared_bytes: impl LaunchInt,
    ) -> Result<u32> {
        let info = Self::info();
        let block_size = launch_u32(block_size, "block size", "")
            .map_err(|problem| LaunchError::new(info.name, problem))?;
        let shared = launch_u32(dynamic_shared_bytes, "dynamic shared memory (bytes)", "")
            .map_err(|problem| LaunchError::new(info.name, problem))?;
        max_cooperative_blocks(device, info, block_size, shared)
    }

    /// The block size (threads, a multiple of 32 within the kernel's limit) that gives the most
    /// resident warps per multiprocessor with `dynamic_shared_bytes` of dynamic shared memory
    /// per block, the largest such (`cuOccupancyMaxPotentialBlockSize` on a GPU; the same search
    /// over the simulator's model). `.forall(n)` launches with it.
    fn suggested_block_size(
        &self,
        device: &Device,
        dynamic_shared_bytes: impl LaunchInt,
    ) -> Result<u32> {
        let info = Self::info();
        let shared = launch_u32(dynamic_shared_bytes, "dynamic shared memory (bytes)", "")
            .map_err(|problem| LaunchError::new(info.name, problem))?;
        device.operate(|backend| {
            backend.suggested_block_size(info, shared, device.limits(), device.name())
        })
    }
}

impl<K: Kernel> InspectKernel for K {}
