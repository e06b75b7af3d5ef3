//! Cooperative launches (`#[kernel(cooperative)]`): the check that the whole grid fits on the
//! device at once, made before every launch of such a kernel, and the largest grid that does.
//!
//! A grid barrier (`grid_sync`) waits for every block of the grid, so every block must be
//! resident at once: a block waiting for one that has not started would wait forever (the
//! driver refuses such a launch of `cuLaunchCooperativeKernel` with a bare
//! `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`). So the launch first asks how many blocks of this
//! kernel, with this block size and dynamic shared memory, fit on one multiprocessor (the
//! occupancy the runtime already computes: the driver's on a GPU, the model's on the
//! simulator), multiplies by the multiprocessors, and refuses a larger grid with an error naming
//! both numbers and the kernel. A GPU that cannot launch cooperatively at all is an error too.
//! The simulator adds its own limit on the threads of a cooperative grid, each of which lives
//! at once (`backend/simulator/grid_barrier.rs`).

use crate::handles::device::Device;
use crate::vocabulary::error::{LaunchError, Result};
use crate::vocabulary::kernel::KernelInfo;
use crate::vocabulary::shape::LaunchShape;

/// Checks that `shape`'s grid of `info` fits on `device` at once (see the module
/// documentation); the shape is already validated against the device's limits.
pub(crate) fn check_co_resident(
    device: &Device,
    info: &'static KernelInfo,
    shape: &LaunchShape,
) -> Result<()> {
    let block_size = shape.block.product() as u32;
    let blocks = shape.grid.product();
    let resident = co_resident_blocks(device, info, block_size, shape.shared_mem_bytes)?;
    if blocks <= resident {
        return Ok(());
    }
    let multiprocessors = device.limits().multiprocessor_count;
    Err(LaunchError::new(
        info.name,
        format!(
            "cooperative launch of {blocks} blocks, but {} holds at most {resident} blocks of this kernel at once ({} per multiprocessor x {multiprocessors} multiprocessors, with {block_size} threads and {} bytes of dynamic shared memory per block); a grid barrier needs every block resident, so launch at most {resident} blocks (`max_cooperative_blocks` gives the number) and loop over the data in the kernel",
            device.name(),
            resident / multiprocessors.max(1) as u64,
            shape.shared_mem_bytes,
        ),
    )
    .into())
}

/// The most blocks of `block_size` threads with `dynamic_shared_bytes` of dynamic shared memory
/// that a cooperative launch of `info` may have on `device`: what fits on the device at once.
pub(crate) fn max_cooperative_blocks(
    device: &Device,
    info: &'static KernelInfo,
    block_size: u32,
    dynamic_shared_bytes: u32,
) -> Result<u32> {
    let resident = co_resident_blocks(device, info, block_size, dynamic_shared_bytes)?;
    Ok(resident.min(u32::MAX as u64) as u32)
}

/// How many blocks fit on `device` at once, or the error of a device that cannot launch
/// cooperatively.
fn co_resident_blocks(
    device: &Device,
    info: &'static KernelInfo,
    block_size: u32,
    dynamic_shared_bytes: u32,
) -> Result<u64> {
    let resident = device.operate(|backend| {
        backend.co_resident_blocks(
            info,
            block_size,
            dynamic_shared_bytes,
            device.limits(),
            device.name(),
        )
    })?;
    resident.ok_or_else(|| {
        LaunchError::new(
            info.name,
            format!(
                "{} cannot launch kernels cooperatively (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0), which a kernel marked #[kernel(cooperative)] needs for grid_sync",
                device.name()
            ),
        )
        .into()
    })
}
