//! The shape of a launch (grid, block, dynamic shared memory) and its validation against a
//! device's limits, before anything reaches the device; and what a grid or block may be given
//! as ([`IntoDim3`], [`LaunchInt`]): any integer, converted to `u32` with a check, so that
//! `.grid(n.div_ceil(256))` takes a `usize` and a value that does not fit is a launch error.

use crate::Dim3;
use crate::vocabulary::error::{LaunchError, shape};
use crate::vocabulary::limits::DeviceLimits;

/// An integer a launch accepts for a grid or block dimension or a byte count: converted to the
/// `u32` the driver takes with a check, never truncated.
pub trait LaunchInt: Copy + std::fmt::Display {
    /// The value as `u32`, or `None` when it is negative or above `u32::MAX`.
    fn to_launch_u32(self) -> Option<u32>;
}

macro_rules! launch_ints {
    ($($t:ty),*) => {$(
        impl LaunchInt for $t {
            #[inline]
            fn to_launch_u32(self) -> Option<u32> {
                u32::try_from(self).ok()
            }
        }
    )*};
}
launch_ints!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// The value of a launch integer as `u32`, or the problem in words: `what` and `axis` name it
/// (`grid`, `x`; an empty axis for a byte count).
#[inline]
pub(crate) fn launch_u32(value: impl LaunchInt, what: &str, axis: &str) -> Result<u32, String> {
    match value.to_launch_u32() {
        Some(value) => Ok(value),
        None => Err(too_large(&value.to_string(), what, axis)),
    }
}

/// The message of [`launch_u32`].
#[cold]
fn too_large(value: &str, what: &str, axis: &str) -> String {
    let what = if axis.is_empty() {
        what.to_string()
    } else {
        format!("{what} {axis} dimension")
    };
    if value.starts_with('-') {
        format!("{what} is {value}: it cannot be negative")
    } else {
        format!(
            "{what} is {value}, more than a launch parameter holds (u32, at most {})",
            u32::MAX
        )
    }
}

/// What a grid or a block may be given as: one integer (x; y and z are 1), a tuple of two or
/// three integers of any [`LaunchInt`] type (`u32`, `usize`, `i32`...), or a [`Dim3`].
pub trait IntoDim3 {
    /// The three dimensions, or the problem in words when one does not fit in `u32`; `what`
    /// names the shape in it (`grid`, `block`).
    fn into_dim3(self, what: &str) -> Result<Dim3, String>;
}

impl IntoDim3 for Dim3 {
    #[inline]
    fn into_dim3(self, _: &str) -> Result<Dim3, String> {
        Ok(self)
    }
}

impl<X: LaunchInt> IntoDim3 for X {
    #[inline]
    fn into_dim3(self, what: &str) -> Result<Dim3, String> {
        Ok(Dim3::new(launch_u32(self, what, "x")?, 1, 1))
    }
}

impl<X: LaunchInt, Y: LaunchInt> IntoDim3 for (X, Y) {
    #[inline]
    fn into_dim3(self, what: &str) -> Result<Dim3, String> {
        Ok(Dim3::new(
            launch_u32(self.0, what, "x")?,
            launch_u32(self.1, what, "y")?,
            1,
        ))
    }
}

impl<X: LaunchInt, Y: LaunchInt, Z: LaunchInt> IntoDim3 for (X, Y, Z) {
    #[inline]
    fn into_dim3(self, what: &str) -> Result<Dim3, String> {
        Ok(Dim3::new(
            launch_u32(self.0, what, "x")?,
            launch_u32(self.1, what, "y")?,
            launch_u32(self.2, what, "z")?,
        ))
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_of_every_type_convert_with_a_check() {
        assert_eq!(7u32.into_dim3("grid"), Ok(Dim3::new(7, 1, 1)));
        assert_eq!(
            (3usize, 2u64, 1i32).into_dim3("grid"),
            Ok(Dim3::new(3, 2, 1))
        );
        assert_eq!(
            (u32::MAX as usize, 5).into_dim3("block"),
            Ok(Dim3::new(u32::MAX, 5, 1))
        );
        assert_eq!(Dim3::new(1, 2, 3).into_dim3("grid"), Ok(Dim3::new(1, 2, 3)));
        assert_eq!(
            (1usize, u32::MAX as u64 + 1).into_dim3("grid"),
            Err("grid y dimension is 4294967296, more than a launch parameter holds (u32, at most 4294967295)".to_string())
        );
        assert_eq!(
            (1, 1, i64::MIN).into_dim3("block"),
            Err("block z dimension is -9223372036854775808: it cannot be negative".to_string())
        );
        assert_eq!(
            launch_u32(-1isize, "dynamic shared memory (bytes)", ""),
            Err("dynamic shared memory (bytes) is -1: it cannot be negative".to_string())
        );
    }
}
