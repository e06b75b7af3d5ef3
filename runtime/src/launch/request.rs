//! [`LaunchRequest`]: what a kernel's launcher has been told so far (`.grid(..)`, `.block(..)`,
//! `.stream(..)`, `.shared_mem(..)`, `.config(..)`, `.forall(n)`), before the arguments choose
//! the device. A grid, block or byte count that does not fit in `u32` is kept as a problem and
//! returned by `.launch(...)` as a [`LaunchError`](crate::LaunchError) naming the value and the
//! limit, so that the builder stays infallible and chainable.

use crate::handles::stream::Stream;
use crate::launch::config::LaunchConfig;
use crate::vocabulary::shape::{IntoDim3, LaunchInt, launch_u32};

/// The state of a launcher: the configuration, the first value that did not convert, and for
/// `.forall(n)` the number of elements. Used by the code `#[kernel]` generates.
#[derive(Clone, Debug, Default)]
pub struct LaunchRequest {
    /// Grid, block, dynamic shared memory and stream as set so far.
    pub(crate) config: LaunchConfig,
    /// The first grid, block or byte count that did not fit in `u32`, in words.
    pub(crate) problem: Option<String>,
    /// `.forall(n)`: the grid (and unless `.block` was given, the block) is chosen at launch.
    pub(crate) elements: Option<usize>,
    /// Whether `.grid(..)` was called (it cannot be combined with `.forall(n)`).
    pub(crate) grid_given: bool,
}

impl LaunchRequest {
    /// A request with a complete configuration (`.config(..)`).
    #[inline]
    pub fn with_config(config: LaunchConfig) -> Self {
        LaunchRequest {
            grid_given: config.grid.x != 0,
            config,
            ..LaunchRequest::default()
        }
    }

    /// A request over `n` elements: block and grid are chosen at launch (`.forall(n)`).
    #[inline]
    pub fn forall(n: usize) -> Self {
        LaunchRequest {
            elements: Some(n),
            ..LaunchRequest::default()
        }
    }

    /// Keeps the first problem.
    #[cold]
    fn note(&mut self, problem: String) {
        self.problem.get_or_insert(problem);
    }

    /// `.grid(..)`.
    #[inline]
    pub fn set_grid(&mut self, grid: impl IntoDim3) {
        self.grid_given = true;
        match grid.into_dim3("grid") {
            Ok(grid) => self.config.grid = grid,
            Err(problem) => self.note(problem),
        }
    }

    /// `.block(..)`.
    #[inline]
    pub fn set_block(&mut self, block: impl IntoDim3) {
        match block.into_dim3("block") {
            Ok(block) => self.config.block = block,
            Err(problem) => self.note(problem),
        }
    }

    /// `.stream(..)`.
    #[inline]
    pub fn set_stream(&mut self, stream: &Stream) {
        self.config.stream = Some(stream.clone());
    }

    /// `.shared_mem(..)`.
    #[inline]
    pub fn set_shared_mem(&mut self, bytes: impl LaunchInt) {
        match launch_u32(bytes, "dynamic shared memory (bytes)", "") {
            Ok(bytes) => self.config.shared_mem_bytes = bytes,
            Err(problem) => self.note(problem),
        }
    }
}
