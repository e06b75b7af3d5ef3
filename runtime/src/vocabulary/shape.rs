//! The shape of a launch (grid, block, dynamic shared memory) and its validation against a
//! device's limits, before anything reaches the device.

use crate::Dim3;
use crate::vocabulary::error::{LaunchError, shape};
use crate::vocabulary::limits::DeviceLimits;

/// The shape of one launch: what every backend needs to run a kernel's threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LaunchShape {
    /// Blocks in the grid along x, y, z.
    pub grid: Dim3,
    /// Threads per block along x, y, z.
    pub block: Dim3,
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
}

impl LaunchShape {
    /// A shape with this grid and block and no dynamic shared memory.
    #[cfg(test)]
    pub(crate) fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Self {
        LaunchShape {
            grid: grid.into(),
            block: block.into(),
            shared_mem_bytes: 0,
        }
    }

    /// Checks the shape against `limits`, the limits of the device called `device`.
    #[inline]
    pub(crate) fn validate(
        &self,
        kernel: &'static str,
        limits: &DeviceLimits,
        device: &str,
    ) -> Result<(), LaunchError> {
        let fits = |d: Dim3, max: Dim3| d.x <= max.x && d.y <= max.y && d.z <= max.z;
        let nonzero = |d: Dim3| d.x != 0 && d.y != 0 && d.z != 0;
        if nonzero(self.grid)
            && nonzero(self.block)
            && self.block.product() <= limits.max_threads_per_block as u64
            && fits(self.block, limits.max_block_dim)
            && fits(self.grid, limits.max_grid_dim)
            && self.shared_mem_bytes <= limits.max_shared_memory_per_block_optin
        {
            return Ok(());
        }
        Err(self.problem(kernel, limits, device))
    }

    /// The first limit the shape breaks, as an error (`validate` found one).
    #[cold]
    fn problem(&self, kernel: &'static str, limits: &DeviceLimits, device: &str) -> LaunchError {
        for (what, d) in [("grid", self.grid), ("block", self.block)] {
            if d.x == 0 || d.y == 0 || d.z == 0 {
                return LaunchError::new(
                    kernel,
                    format!(
                        "{what} is {}: every dimension must be at least 1 (set it with `.{what}(...)` or in `launch!(kernel[grid, block](...))`)",
                        shape(d)
                    ),
                );
            }
        }
        let threads = self.block.product();
        if threads > limits.max_threads_per_block as u64 {
            return LaunchError::new(
                kernel,
                format!(
                    "block of {} threads ({}) exceeds the limit of {} threads per block on {device}",
                    threads,
                    shape(self.block),
                    limits.max_threads_per_block,
                ),
            );
        }
        for (axis, value, limit) in axes(self.block, limits.max_block_dim) {
            if value > limit {
                return LaunchError::new(
                    kernel,
                    format!(
                        "block {axis} dimension {value} ({}) exceeds the limit of {limit} on {device}",
                        shape(self.block),
                    ),
                );
            }
        }
        for (axis, value, limit) in axes(self.grid, limits.max_grid_dim) {
            if value > limit {
                return LaunchError::new(
                    kernel,
                    format!(
                        "grid {axis} dimension {value} ({}) exceeds the limit of {limit} blocks on {device}",
                        shape(self.grid),
                    ),
                );
            }
        }
        LaunchError::new(
            kernel,
            format!(
                "{} bytes of dynamic shared memory exceed the limit of {} bytes per block on {device}",
                self.shared_mem_bytes, limits.max_shared_memory_per_block_optin,
            ),
        )
    }
}

/// The three axes of a shape with their limits.
fn axes(d: Dim3, limit: Dim3) -> [(char, u32, u32); 3] {
    [
        ('x', d.x, limit.x),
        ('y', d.y, limit.y),
        ('z', d.z, limit.z),
    ]
}
