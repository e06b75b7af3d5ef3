//! [`LaunchConfig`]: the shape of a launch and the stream it goes to.

use crate::Dim3;
use crate::handles::stream::Stream;
use crate::vocabulary::shape::LaunchShape;

/// How to launch a kernel: grid and block shape, dynamic shared memory, stream.
#[derive(Clone, Debug)]
pub struct LaunchConfig {
    /// Blocks in the grid along x, y, z.
    pub grid: Dim3,
    /// Threads per block along x, y, z.
    pub block: Dim3,
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
    /// The stream to launch on; `None` is the device's default stream.
    pub stream: Option<Stream>,
}

impl Default for LaunchConfig {
    /// An unset configuration: grid and block are 0 and must be set before launching.
    fn default() -> Self {
        LaunchConfig {
            grid: Dim3::new(0, 0, 0),
            block: Dim3::new(0, 0, 0),
            shared_mem_bytes: 0,
            stream: None,
        }
    }
}

impl LaunchConfig {
    /// A configuration with this grid and block, no dynamic shared memory, default stream.
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Self {
        LaunchConfig {
            grid: grid.into(),
            block: block.into(),
            ..Default::default()
        }
    }

    /// One thread per element for `n` elements in blocks of `block` threads:
    /// grid = ceil(n / block).
    pub fn for_elements(n: usize, block: u32) -> Self {
        let blocks = n.div_ceil(block.max(1) as usize);
        LaunchConfig::new(u32::try_from(blocks).unwrap_or(u32::MAX), block)
    }

    /// The shape part of the configuration.
    #[inline]
    pub(crate) fn shape(&self) -> LaunchShape {
        LaunchShape {
            grid: self.grid,
            block: self.block,
            shared_mem_bytes: self.shared_mem_bytes,
        }
    }
}
