//! Device-wide reduction: [`reduce`] combines every element of a buffer (or a sub-slice) into
//! one value with an associative, commutative operator, as CUB's `DeviceReduce::Reduce` does.
//!
//! ```ignore
//! use kernels_algorithms::reduce::{Max, Sum, reduce};
//! let data = DeviceBuffer::from_slice(&device, &[3.0f32, -1.0, 4.5])?;
//! let stream = device.default_stream();
//! assert_eq!(reduce(&stream, &data, Sum)?, 6.5);
//! assert_eq!(reduce(&stream, data.slice(1..), Max)?, 4.5);
//! assert_eq!(reduce(&stream, data.slice(0..0), Max)?, f32::NEG_INFINITY); // the identity
//! ```
//!
//! # Operators
//! An operator is a type implementing [`ReduceOp`]: its identity and its combination. The crate
//! has [`Sum`] (wrapping for integers), [`Min`], [`Max`] (for floats `f32::min`/`max`: a NaN
//! operand is ignored) for `u32`, `i32`, `u64`, `i64`, `f32`, `f64`, and [`BitAnd`], [`BitOr`],
//! [`BitXor`] for the integers. A kernel crate of one's own reduces with any associative and
//! commutative operator through the device-side building block [`grid_stride_block_reduce`]
//! (`ferrocuda::device::grid_reduce`).
//!
//! # The kernels
//! Two launches of one kernel (`reduce_blocks`), as CUB's single-pass-per-block design:
//! 1. a grid of as many blocks of [`REDUCE_BLOCK_THREADS`] threads per multiprocessor as are
//!    resident at once (the driver's occupancy, at most [`MAX_BLOCKS_PER_SM`]; fewer blocks for
//!    short inputs) walks the input in a grid-stride loop: each thread loads
//!    [`UNROLL`] chunks of [`CHUNK`] consecutive elements (16-byte vector loads for 4-byte
//!    elements, two for 8-byte ones) before combining them, so several loads are in flight, and
//!    keeps one accumulator per position in the chunk; the block then reduces its threads
//!    ([`block_reduce`]) and writes one partial per block;
//! 2. one block reduces the partials into the output (skipped when the first launch has one
//!    block, which then writes the output itself).
//!
//! # Order of combination
//! The order is a fixed tree that depends on the grid, the alignment of the input and its
//! length, not on timing: a float sum gives the same bits every time on the same device (the
//! grid depends on the number of multiprocessors), but it is not the left-to-right sum. Its
//! error is bounded like that of any summation tree: within about `n * 2^-24` (f32) times the
//! sum of the magnitudes, and in practice much less (the tests allow `1e-5` of the sum of
//! magnitudes for 2^20 elements).
//!
//! # Limits
//! An input has at most `u32::MAX` elements (a larger one is an
//! [`Error::Launch`] from the launch). An empty input reduces to the
//! identity.

use ferrocuda::prelude::*;

/// Threads per block of the reduction.
pub const REDUCE_BLOCK_THREADS: u32 = 256;
/// The most blocks per multiprocessor of the first launch (fewer when fewer are resident).
pub const MAX_BLOCKS_PER_SM: u32 = 8;
pub use ferrocuda::device::grid_reduce::{CHUNK, UNROLL, grid_stride_block_reduce};

/// An associative and commutative operator with its identity: what [`reduce`] and the scans
/// combine elements with.
pub trait ReduceOp<T>: Copy + Default {
    /// The identity: `combine(identity(), x) == x` for every `x`. The result of an empty
    /// reduction.
    fn identity() -> T;
    /// Combines two values.
    fn combine(a: T, b: T) -> T;
}

/// The sum (wrapping for integers, IEEE addition for floats); identity 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sum;
/// The minimum (for floats `f32::min`: a NaN operand is ignored); identity the largest value
/// (`+inf` for floats).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Min;
/// The maximum (for floats `f32::max`: a NaN operand is ignored); identity the smallest value
/// (`-inf` for floats).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Max;
/// Bitwise and of integers; identity all ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BitAnd;
/// Bitwise or of integers; identity 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BitOr;
/// Bitwise exclusive or of integers; identity 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BitXor;

/// Implements the operators for the integer types.
macro_rules! integer_ops {
    ($($t:ty),*) => {$(
        impl ReduceOp<$t> for Sum {
            #[inline(always)]
            fn identity() -> $t { 0 }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t { a.wrapping_add(b) }
        }
        impl ReduceOp<$t> for Min {
            #[inline(always)]
            fn identity() -> $t { <$t>::MAX }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t { a.min(b) }
        }
        impl ReduceOp<$t> for Max {
            #[inline(always)]
            fn identity() -> $t { <$t>::MIN }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t { a.max(b) }
        }
        impl ReduceOp<$t> for BitAnd {
            #[inline(always)]
            fn identity() -> $t { !0 }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t { a & b }
        }
        impl ReduceOp<$t> for BitOr {
            #[inline(always)]
            fn identity() -> $t { 0 }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t { a | b }
        }
        impl ReduceOp<$t> for BitXor {
            #[inline(always)]
            fn identity() -> $t { 0 }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t { a ^ b }
        }
    )*};
}
integer_ops!(u32, i32, u64, i64);

/// Implements the operators for the float types.
macro_rules! float_ops {
    ($($t:ty),*) => {$(
        impl ReduceOp<$t> for Sum {
            #[inline(always)]
            fn identity() -> $t { 0.0 }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t { a + b }
        }
        impl ReduceOp<$t> for Min {
            #[inline(always)]
            fn identity() -> $t { <$t>::INFINITY }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t { a.min(b) }
        }
        impl ReduceOp<$t> for Max {
            #[inline(always)]
            fn identity() -> $t { <$t>::NEG_INFINITY }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t { a.max(b) }
        }
    )*};
}
float_ops!(f32, f64);

/// `partials[block]` = `Op` over this block's share of `input` ([`grid_stride_block_reduce`]);
/// the scratch is the launch's dynamic shared memory, one `T` per warp.
#[kernel(instances(
    (u32, Sum), (i32, Sum), (u64, Sum), (i64, Sum), (f32, Sum), (f64, Sum),
    (u32, Min), (i32, Min), (u64, Min), (i64, Min), (f32, Min), (f64, Min),
    (u32, Max), (i32, Max), (u64, Max), (i64, Max), (f32, Max), (f64, Max),
    (u32, BitAnd), (i32, BitAnd), (u64, BitAnd), (i64, BitAnd),
    (u32, BitOr), (i32, BitOr), (u64, BitOr), (i64, BitOr),
    (u32, BitXor), (i32, BitXor), (u64, BitXor), (i64, BitXor)
))]
pub fn reduce_blocks<T: ShuffleValue, Op: ReduceOp<T>>(input: &[T], partials: &mut [T]) {
    let mut scratch = dynamic_shared_array::<T>();
    let total = grid_stride_block_reduce(&mut scratch, input, Op::identity(), Op::combine);
    if thread_rank() == 0 {
        // Indexed, not `get_mut`: a `partials` shorter than the grid panics instead of dropping
        // the blocks' results.
        partials[block_idx().x as usize] = total;
    }
}

#[cfg(not(target_arch = "nvptx64"))]
pub use host::*;

/// The host side: the reduce functions and their temporary storage.
#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::*;
    use crate::slices::{DeviceInput, DeviceOutput};
    use ferrocuda::device::block_collectives::block_scratch_len;
    use ferrocuda::{DeviceSlice, DeviceSliceMut, Error};
    use std::any::TypeId;
    use std::collections::HashMap;

    /// The element types and operators [`reduce`] has kernels for: every [`ReduceOp`] of this
    /// crate with its types.
    pub trait Reducible<T: DeviceCopy>: ReduceOp<T> + 'static {
        /// How many blocks of `reduce_blocks::<T, Self>` are resident on one multiprocessor.
        #[doc(hidden)]
        fn resident_blocks(device: &Device) -> ferrocuda::Result<u32>;

        /// Launches `reduce_blocks::<T, Self>` with `grid` blocks.
        #[doc(hidden)]
        fn launch_blocks(
            stream: &Stream,
            grid: u32,
            input: DeviceSlice<'_, T>,
            partials: DeviceSliceMut<'_, T>,
        ) -> ferrocuda::Result<()>;
    }

    /// Implements [`Reducible`] for the kernel's instances.
    macro_rules! reducible {
        ($($op:ident: $($t:ty),*;)*) => {$($(
            impl Reducible<$t> for $op {
                fn resident_blocks(device: &Device) -> ferrocuda::Result<u32> {
                    let shared = block_scratch_len(REDUCE_BLOCK_THREADS) * size_of::<$t>();
                    let kernel = reduce_blocks::<$t, $op>::default();
                    Ok(kernel.occupancy(device, REDUCE_BLOCK_THREADS, shared)?.active_blocks)
                }

                fn launch_blocks(
                    stream: &Stream,
                    grid: u32,
                    input: DeviceSlice<'_, $t>,
                    partials: DeviceSliceMut<'_, $t>,
                ) -> ferrocuda::Result<()> {
                    let shared = block_scratch_len(REDUCE_BLOCK_THREADS) * size_of::<$t>();
                    launch!(reduce_blocks::<$t, $op>[grid, REDUCE_BLOCK_THREADS, stream, shared](input, partials))
                }
            }
        )*)*};
    }
    reducible! {
        Sum: u32, i32, u64, i64, f32, f64;
        Min: u32, i32, u64, i64, f32, f64;
        Max: u32, i32, u64, i64, f32, f64;
        BitAnd: u32, i32, u64, i64;
        BitOr: u32, i32, u64, i64;
        BitXor: u32, i32, u64, i64;
    }

    /// The most blocks the first launch uses on `device`: [`MAX_BLOCKS_PER_SM`] per
    /// multiprocessor.
    fn max_blocks(device: &Device) -> usize {
        (device.limits().multiprocessor_count.max(1) * MAX_BLOCKS_PER_SM) as usize
    }

    /// The temporary storage of [`reduce_into`]: one partial per block of the first launch
    /// (CUB's `d_temp_storage`), and the grid of each operator on its device, found once. Make
    /// one per device and element type and reuse it across calls to save the allocation and
    /// the occupancy query; [`reduce`] makes its own. The kernels use it after the call returns:
    /// reductions queued on different streams at the same time need a storage each.
    pub struct ReduceScratch<T: DeviceCopy> {
        /// One partial result per block.
        partials: DeviceBuffer<T>,
        /// The most blocks of the first launch, by operator type.
        grids: HashMap<TypeId, usize>,
    }

    impl<T: DeviceCopy> ReduceScratch<T> {
        /// Storage for reductions of any length on `device`.
        ///
        /// # Errors
        /// Those of the allocation.
        pub fn new(device: &Device) -> ferrocuda::Result<Self> {
            Ok(ReduceScratch {
                partials: DeviceBuffer::zeros(device, Self::elements(device))?,
                grids: HashMap::new(),
            })
        }

        /// The elements of `T` the storage holds on `device` (CUB's `temp_storage_bytes`
        /// divided by the element size): [`MAX_BLOCKS_PER_SM`] per multiprocessor.
        pub fn elements(device: &Device) -> usize {
            max_blocks(device)
        }

        /// The blocks of the first launch of `Op` for `len` elements: one per group of
        /// `threads * UNROLL` chunks, at least 1, at most the resident blocks of the device.
        fn blocks_for<Op: Reducible<T>>(
            &mut self,
            device: &Device,
            len: usize,
        ) -> ferrocuda::Result<usize> {
            let most = match self.grids.get(&TypeId::of::<Op>()) {
                Some(&most) => most,
                None => {
                    let per_sm = Op::resident_blocks(device)?.clamp(1, MAX_BLOCKS_PER_SM);
                    let most = (device.limits().multiprocessor_count.max(1) * per_sm) as usize;
                    self.grids.insert(TypeId::of::<Op>(), most);
                    most
                }
            };
            let group = REDUCE_BLOCK_THREADS as usize * UNROLL * CHUNK;
            Ok(len.div_ceil(group).clamp(1, most))
        }
    }

    /// Writes `op` over every element of `input` (a `&DeviceBuffer<T>` or a `DeviceSlice<T>`)
    /// into `out` (one element: a `&mut DeviceBuffer<T>` or a `DeviceSliceMut<T>`), on
    /// `stream`, without waiting: the result is there once the stream has run it. `scratch` is
    /// the temporary storage ([`ReduceScratch::new`]). An empty input writes the identity.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `out` does not have exactly one element or `scratch` is
    /// smaller than this device needs (storage made for a device with fewer multiprocessors);
    /// the errors of a launch: buffers of another device than the stream's
    /// ([`Error::DeviceMismatch`]), an input of more than `u32::MAX` elements, a lost context.
    pub fn reduce_into<'a, 'b, T, Op>(
        stream: &Stream,
        input: impl DeviceInput<'a, T>,
        out: impl DeviceOutput<'b, T>,
        _op: Op,
        scratch: &mut ReduceScratch<T>,
    ) -> ferrocuda::Result<()>
    where
        T: DeviceCopy + 'a + 'b,
        Op: Reducible<T>,
    {
        let input = input.device_slice();
        let out = out.device_slice_mut();
        if out.len() != 1 {
            return Err(Error::LengthMismatch {
                operation: "reduce_into: the output holds the one result",
                expected: 1,
                actual: out.len(),
            });
        }
        let blocks = scratch.blocks_for::<Op>(stream.device(), input.len())?;
        if blocks == 1 {
            return Op::launch_blocks(stream, 1, input, out);
        }
        if scratch.partials.len() < blocks {
            return Err(Error::LengthMismatch {
                operation: "reduce_into: the ReduceScratch has fewer partials than this device's blocks (make it with ReduceScratch::new for the stream's device)",
                expected: blocks,
                actual: scratch.partials.len(),
            });
        }
        Op::launch_blocks(
            stream,
            blocks as u32,
            input,
            scratch.partials.slice_mut(..blocks),
        )?;
        Op::launch_blocks(stream, 1, scratch.partials.slice(..blocks), out)
    }

    /// `op` over every element of `input` (a `&DeviceBuffer<T>` or a `DeviceSlice<T>`), on
    /// `stream`; waits for the result. The identity for an empty input.
    ///
    /// # Errors
    /// Those of [`reduce_into`], of the allocations and of the copy back (a kernel panic).
    pub fn reduce<'a, T, Op>(
        stream: &Stream,
        input: impl DeviceInput<'a, T>,
        op: Op,
    ) -> ferrocuda::Result<T>
    where
        T: DeviceCopy + 'a,
        Op: Reducible<T>,
    {
        let device = stream.device();
        let mut scratch = ReduceScratch::new(device)?;
        let mut out = DeviceBuffer::<T>::zeros(device, 1)?;
        reduce_into(stream, input, &mut out, op, &mut scratch)?;
        stream.synchronize()?;
        Ok(out.to_vec()?[0])
    }
}
