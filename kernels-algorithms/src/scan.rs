//! Device-wide prefix scans: [`inclusive_scan`] and [`exclusive_scan`] of a buffer (or a
//! sub-slice) into another, in one pass over the data with decoupled look-back (Merrill and
//! Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016), as CUB's
//! `DeviceScan` does.
//!
//! ```ignore
//! use kernels_algorithms::reduce::{Max, Sum};
//! use kernels_algorithms::scan::{exclusive_scan, inclusive_scan};
//! let input = DeviceBuffer::from_slice(&device, &[3u32, 1, 4, 1, 5])?;
//! let mut out = DeviceBuffer::<u32>::zeros(&device, 5)?;
//! let stream = device.default_stream();
//! inclusive_scan(&stream, &input, &mut out, Sum)?;       // [3, 4, 8, 9, 14]
//! exclusive_scan(&stream, &input, &mut out, 10, Sum)?;   // [10, 13, 14, 18, 19]
//! inclusive_scan(&stream, &input, &mut out, Max)?;       // [3, 3, 4, 4, 5]
//! ```
//!
//! Element `i` of an inclusive scan is `x0 op x1 op ... op xi`; of an exclusive scan with
//! initial value `init`, `init op x0 op ... op x(i-1)` (`init` for the first). The operators are
//! [`Sum`], [`Min`] and [`Max`] of [`crate::reduce`], for `u32`, `i32`, `u64`, `i64`, `f32` and
//! `f64`.
//!
//! # The algorithm
//! The input is cut into tiles, one block of [`SCAN_BLOCK_THREADS`] threads each,
//! [`SCAN_ITEMS_NARROW`] consecutive elements per thread for 4-byte elements and
//! [`SCAN_ITEMS_WIDE`] for 8-byte ones ([`scan_tile_len`]). Each warp loads and stores its part of
//! the tile with coalesced accesses and rearranges it through shared memory
//! ([`load_warp_transposed`], CUB's `BLOCK_LOAD_WARP_TRANSPOSE`), as CUB's Hopper tuning of
//! `DeviceScan` does (128 threads, 24 items for `f32`). On the H100, for 2^26 `f32` (one run,
//! medians of 21): 0.340 ms with 256 threads of 12 items loaded and stored as blocked 16-byte
//! vectors, 0.256 ms with the exchange at 128 x 31, 0.245 ms with the tiles numbered by block
//! index (below) and `max_block(128)` (CUB: 0.233 ms in the same run;
//! `bench/results/h100-2026-11-24-b-scan.md`).
//! A block
//! 1. takes tile `block_idx().x` (see [Progress](#progress));
//! 2. scans its tile (each thread its items, then [`block_exclusive_scan`] over the threads),
//!    which gives the tile's aggregate;
//! 3. publishes the aggregate in the tile's status word (CUB's `ScanTileState`: *invalid*,
//!    *aggregate available*, *inclusive prefix available*), then its first warp looks back over
//!    the predecessors 32 at a time: each lane waits until its tile's status is not invalid, the
//!    window's values are combined up to the nearest tile with an inclusive prefix, and the walk
//!    goes on further back only if there was none. The sum of what it saw is the tile's
//!    exclusive prefix; the tile publishes its inclusive prefix and writes its outputs.
//!
//! The tile state and the look-back are the device API's [`TileState`]
//! (`ferrocuda::device::look_back`, which explains the memory ordering). The status words carry
//! the scan's epoch ([`TileState::with_epoch`]), one more for each scan with a [`ScanScratch`]:
//! a kernel zeroes the state before the first scan with a storage (CUB's `ScanInitKernel`,
//! which CUB launches before every scan), and later scans launch their tile kernel alone, since
//! what earlier scans published reads as invalid. The tile state's counter word is not used.
//!
//! # Progress
//! A tile waits only for tiles of smaller block index. The look-back ends if every block of
//! smaller index has started (is resident or finished) whenever a block runs: NVIDIA's block
//! scheduler dispatches the blocks of a one-dimensional grid in increasing `block_idx().x`,
//! which is what CUB's `DeviceScan` relies on too (its tiles are numbered by `blockIdx.x`). The
//! CUDA programming model does not promise this order; a scheduler that dispatched a block
//! before a predecessor while no room was left for that predecessor would hang the scan. The
//! simulator runs blocks one after another in increasing index, so every predecessor has
//! finished. The alternative, a tile number taken from an atomic counter
//! ([`TileState::take_tile`]) and broadcast through shared memory, guarantees progress by
//! construction (a tile only waits for tiles whose blocks have taken theirs); the kernel with
//! the counter and without the `max_block` bound (64 registers, 8 blocks per multiprocessor
//! instead of 56 and 9) took 0.258 ms for 2^26 `f32` on the H100 against 0.245 ms, in the same
//! run, so the scan does as CUB does.
//!
//! # Order of combination
//! Floats are combined in a fixed tree (threads, then warps, then tiles in order, each look-back
//! window as a tree): deterministic for a given input length, close to but not the
//! left-to-right sum.
//!
//! # Limits
//! At most `u32::MAX` elements (larger: an [`Error::Launch`] from the
//! launch). The input and output cannot overlap: Rust's borrows forbid a `DeviceSlice` and a
//! `DeviceSliceMut` of one buffer at once.

use crate::reduce::{Max, Min, ReduceOp, Sum};
use ferrocuda::device::atomic::Atomic;
use ferrocuda::device::block_collectives::block_scratch_len;
use ferrocuda::device::look_back::{TILE_INVALID, TileState};
use ferrocuda::prelude::*;

/// Threads per block of the scan.
pub const SCAN_BLOCK_THREADS: u32 = 128;
/// Consecutive elements per thread for 4-byte elements (odd: the warp exchange has no bank
/// conflicts).
pub const SCAN_ITEMS_NARROW: usize = 31;
/// Consecutive elements per thread for 8-byte elements.
pub const SCAN_ITEMS_WIDE: usize = 15;

/// Consecutive elements per thread for elements of `T`.
pub const fn scan_items<T>() -> usize {
    if size_of::<T>() <= 4 {
        SCAN_ITEMS_NARROW
    } else {
        SCAN_ITEMS_WIDE
    }
}

/// Elements per tile (one block) for elements of `T`.
pub const fn scan_tile_len<T>() -> usize {
    SCAN_BLOCK_THREADS as usize * scan_items::<T>()
}

/// The element types of the scans: those with warp shuffles and atomic loads and stores.
pub trait ScanElement: ShuffleValue + Atomic {}
impl<T: ShuffleValue + Atomic> ScanElement for T {}

/// One tile of the scan: `output[i]` = `initial op` (inclusive or exclusive) prefix of
/// `input` at `i`, for tile `block_idx().x`. `tiles` is the tile state
/// ([`TileState`]), initialized by [`scan_init`].
#[inline(always)]
#[track_caller]
fn scan_tile<T: ScanElement, Op: ReduceOp<T>, const ITEMS: usize>(
    input: &[T],
    output: &mut [T],
    exclusive: bool,
    initial: T,
    mut tiles: TileState<'_, T>,
) {
    let identity = Op::identity();
    let op = Op::combine;
    let mut carve = DynamicShared::new();
    let mut scratch = carve.take::<T>(block_scratch_len(SCAN_BLOCK_THREADS));
    let mut exchange = carve.take::<T>(SCAN_BLOCK_THREADS as usize * ITEMS);
    let rank = thread_rank();

    // 1. The tile number: the block's index (see "Progress" in the module documentation).
    let (block, grid) = (block_dim(), grid_dim());
    if block.x * block.y * block.z != SCAN_BLOCK_THREADS {
        panic!("scan_tiles: launch it with blocks of SCAN_BLOCK_THREADS (128) threads");
    }
    if grid.y != 1
        || grid.z != 1
        || (grid.x as usize) < input.len().div_ceil(SCAN_BLOCK_THREADS as usize * ITEMS)
    {
        panic!("scan_tiles: launch it with a 1-D grid of one block per tile of the input");
    }
    let tile = block_idx().x as usize;

    // 2. The tile's scan.
    let start = tile * SCAN_BLOCK_THREADS as usize * ITEMS;
    let items: [T; ITEMS] =
        load_warp_transposed(input.get(start..).unwrap_or(&[]), &mut exchange, identity);
    let mut scanned = items;
    for k in 1..ITEMS {
        scanned[k] = op(scanned[k - 1], items[k]);
    }
    let (thread_prefix, aggregate) =
        block_exclusive_scan(&mut scratch, scanned[ITEMS - 1], identity, op);

    // 3. The tile's prefix: publish, look back, publish.
    let mut tile_prefix = identity;
    if rank < 32 {
        if tile == 0 {
            if rank == 0 {
                tiles.publish_inclusive(0, aggregate);
            }
        } else {
            if rank == 0 {
                tiles.publish_aggregate(tile, aggregate);
            }
            tile_prefix = tiles.look_back(tile, identity, op);
            if rank == 0 {
                tiles.publish_inclusive(tile, op(tile_prefix, aggregate));
            }
        }
    }
    let tile_prefix = block_broadcast(&mut scratch, tile_prefix, 0);

    // 4. The outputs.
    let prefix = op(initial, op(tile_prefix, thread_prefix));
    let mut out = [prefix; ITEMS];
    for k in 0..ITEMS {
        if exclusive {
            if k > 0 {
                out[k] = op(prefix, scanned[k - 1]);
            }
        } else {
            out[k] = op(prefix, scanned[k]);
        }
    }
    store_warp_transposed(
        output.get_mut(start..).unwrap_or(&mut []),
        &mut exchange,
        &out,
    );
}

/// Sets the counter (`state[0]`) and every tile status to 0 (invalid).
#[kernel]
pub fn scan_init(state: &mut [u64]) {
    let i = grid!(1);
    if i < state.len() {
        state[i] = u64::from(TILE_INVALID);
    }
}

/// Which scan a kernel instance computes: a type, so that each instance compiles only its own
/// output step (a run-time flag cost the `f32` scan a select per element and 3% of its time on
/// the H100).
pub trait ScanKind {
    /// Whether element `i` leaves `input[i]` out.
    const EXCLUSIVE: bool;
}

/// The inclusive scan: element `i` includes `input[i]`.
pub struct Inclusive;
impl ScanKind for Inclusive {
    const EXCLUSIVE: bool = false;
}

/// The exclusive scan: element `i` combines the elements before `input[i]`.
pub struct Exclusive;
impl ScanKind for Exclusive {
    const EXCLUSIVE: bool = true;
}

/// Defines a tile kernel (its attributes, name and items per thread): the two differ only in
/// the items per thread, which must be a constant of the instance.
macro_rules! scan_tile_kernel {
    ($(#[$attribute:meta])* $name:ident, $items:expr) => {
        $(#[$attribute])*
        pub fn $name<T: ScanElement, Op: ReduceOp<T>, Kind: ScanKind>(
            input: &[T],
            output: &mut [T],
            initial: T,
            epoch: u32,
            state: &mut [u64],
            aggregates: &mut [T],
            inclusives: &mut [T],
        ) {
            let tiles = TileState::with_epoch(state, aggregates, inclusives, epoch);
            scan_tile::<T, Op, { $items }>(input, output, Kind::EXCLUSIVE, initial, tiles);
        }
    };
}

scan_tile_kernel!(
    /// The scan of one tile per block of 4-byte elements, [`SCAN_ITEMS_NARROW`] per thread (see
    /// the [module documentation](self)): `Kind` chooses the inclusive or the exclusive scan
    /// (`initial` is the exclusive scan's initial value; the inclusive scan passes the
    /// identity); `epoch` is the scan's epoch in the tile state `state`, `aggregates`,
    /// `inclusives` ([`TileState::with_epoch`]). The dynamic shared memory holds one `T` per
    /// warp, one `T` more, and the warp exchange of the tile (one `T` per element).
    #[kernel(instances(
        (u32, Sum, Inclusive), (i32, Sum, Inclusive), (f32, Sum, Inclusive),
        (u32, Sum, Exclusive), (i32, Sum, Exclusive), (f32, Sum, Exclusive),
        (u32, Min, Inclusive), (i32, Min, Inclusive), (f32, Min, Inclusive),
        (u32, Min, Exclusive), (i32, Min, Exclusive), (f32, Min, Exclusive),
        (u32, Max, Inclusive), (i32, Max, Inclusive), (f32, Max, Inclusive),
        (u32, Max, Exclusive), (i32, Max, Exclusive), (f32, Max, Exclusive)
    ), max_block(SCAN_BLOCK_THREADS))]
    scan_tiles,
    SCAN_ITEMS_NARROW
);

scan_tile_kernel!(
    /// [`scan_tiles`] for 8-byte elements, [`SCAN_ITEMS_WIDE`] per thread.
    #[kernel(instances(
        (u64, Sum, Inclusive), (i64, Sum, Inclusive), (f64, Sum, Inclusive),
        (u64, Sum, Exclusive), (i64, Sum, Exclusive), (f64, Sum, Exclusive),
        (u64, Min, Inclusive), (i64, Min, Inclusive), (f64, Min, Inclusive),
        (u64, Min, Exclusive), (i64, Min, Exclusive), (f64, Min, Exclusive),
        (u64, Max, Inclusive), (i64, Max, Inclusive), (f64, Max, Inclusive),
        (u64, Max, Exclusive), (i64, Max, Exclusive), (f64, Max, Exclusive)
    ), max_block(SCAN_BLOCK_THREADS))]
    scan_tiles_wide,
    SCAN_ITEMS_WIDE
);

#[cfg(not(target_arch = "nvptx64"))]
pub use host::*;

/// The host side: the scan functions and their temporary storage.
#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::*;
    use crate::slices::{DeviceInput, DeviceOutput};
    use ferrocuda::device::look_back::MAX_EPOCH;
    use ferrocuda::{DeviceSlice, DeviceSliceMut, Error};

    /// The element types and operators the scans have kernels for: [`Sum`], [`Min`] and
    /// [`Max`] of `u32`, `i32`, `u64`, `i64`, `f32`, `f64`.
    pub trait Scannable<T: DeviceCopy>: ReduceOp<T> {
        /// Launches `scan_tiles` (or `scan_tiles_wide`) over `tiles` tiles with the next epoch
        /// of `scratch` (after `scan_init` when the state must be zeroed).
        #[doc(hidden)]
        fn launch_tiles(
            stream: &Stream,
            tiles: u32,
            input: DeviceSlice<'_, T>,
            output: DeviceSliceMut<'_, T>,
            exclusive: bool,
            initial: T,
            scratch: &mut ScanScratch<T>,
        ) -> ferrocuda::Result<()>;
    }

    /// The dynamic shared memory of `scan_tiles` for elements of `T`: the block scan's scratch,
    /// the warp exchange of a tile, and alignment slack.
    fn shared_bytes<T>() -> usize {
        (block_scratch_len(SCAN_BLOCK_THREADS) + scan_tile_len::<T>()) * size_of::<T>() + 32
    }

    /// Implements [`Scannable`] for the kernel's instances.
    macro_rules! scannable {
        ($($op:ident: $($t:ty => $kernel:ident),*;)*) => {$($(
            impl Scannable<$t> for $op {
                fn launch_tiles(
                    stream: &Stream,
                    tiles: u32,
                    input: DeviceSlice<'_, $t>,
                    output: DeviceSliceMut<'_, $t>,
                    exclusive: bool,
                    initial: $t,
                    scratch: &mut ScanScratch<$t>,
                ) -> ferrocuda::Result<()> {
                    let n = tiles as usize;
                    let epoch = scratch.next_epoch(stream)?;
                    let shape = (tiles, SCAN_BLOCK_THREADS, stream, shared_bytes::<$t>());
                    let state = scratch.state.slice_mut(..n + 1);
                    let aggregates = scratch.aggregates.slice_mut(..n);
                    let inclusives = scratch.inclusives.slice_mut(..n);
                    if exclusive {
                        launch!($kernel::<$t, $op, Exclusive>[shape.0, shape.1, shape.2, shape.3](
                            input, output, initial, epoch, state, aggregates, inclusives
                        ))
                    } else {
                        launch!($kernel::<$t, $op, Inclusive>[shape.0, shape.1, shape.2, shape.3](
                            input, output, initial, epoch, state, aggregates, inclusives
                        ))
                    }
                }
            }
        )*)*};
    }
    scannable! {
        Sum: u32 => scan_tiles, i32 => scan_tiles, f32 => scan_tiles,
            u64 => scan_tiles_wide, i64 => scan_tiles_wide, f64 => scan_tiles_wide;
        Min: u32 => scan_tiles, i32 => scan_tiles, f32 => scan_tiles,
            u64 => scan_tiles_wide, i64 => scan_tiles_wide, f64 => scan_tiles_wide;
        Max: u32 => scan_tiles, i32 => scan_tiles, f32 => scan_tiles,
            u64 => scan_tiles_wide, i64 => scan_tiles_wide, f64 => scan_tiles_wide;
    }

    /// The temporary storage of a scan (CUB's `d_temp_storage`): the tile counter and, per
    /// tile of [`scan_tile_len`] elements, a status word, an aggregate and an inclusive prefix.
    /// Storage for `n` elements serves every scan of at most `n`. The kernels use it after the
    /// call returns: scans queued on different streams at the same time need a storage each.
    ///
    /// Each scan with the storage has the next epoch of its tile state
    /// ([`TileState::with_epoch`]): the first zeroes the state with `scan_init` (and so does
    /// the one after epoch [`MAX_EPOCH`]); the others launch the scan's kernel alone.
    pub struct ScanScratch<T: DeviceCopy> {
        /// `[counter, status of tile 0, status of tile 1, ...]`.
        state: DeviceBuffer<u64>,
        /// The tiles' aggregates.
        aggregates: DeviceBuffer<T>,
        /// The tiles' inclusive prefixes.
        inclusives: DeviceBuffer<T>,
        /// The epoch of the last scan queued with this storage, 0 before the first.
        epoch: u32,
    }

    /// The epoch after `epoch` (0: none yet), and whether the tile state must be zeroed first
    /// (before the first epoch and after [`MAX_EPOCH`], where the epochs start again at 1).
    pub(crate) fn advance_epoch(epoch: u32) -> (u32, bool) {
        if epoch == 0 || epoch >= MAX_EPOCH {
            (1, true)
        } else {
            (epoch + 1, false)
        }
    }

    impl<T: DeviceCopy> ScanScratch<T> {
        /// Storage for scans of up to `len` elements on `device`.
        ///
        /// # Errors
        /// Those of the allocations.
        pub fn new(device: &Device, len: usize) -> ferrocuda::Result<Self> {
            let tiles = Self::tiles(len);
            Ok(ScanScratch {
                state: DeviceBuffer::zeros(device, tiles + 1)?,
                aggregates: DeviceBuffer::zeros(device, tiles)?,
                inclusives: DeviceBuffer::zeros(device, tiles)?,
                epoch: 0,
            })
        }

        /// The epoch of the next scan, queued on `stream`; zeroes the whole tile state first
        /// on `stream` when [`advance_epoch`] says so.
        fn next_epoch(&mut self, stream: &Stream) -> ferrocuda::Result<u32> {
            let (epoch, zero_first) = advance_epoch(self.epoch);
            if zero_first {
                let words = self.state.len();
                let state = self.state.slice_mut(..);
                launch!(scan_init[words.div_ceil(256), 256, stream](state))?;
            }
            self.epoch = epoch;
            Ok(epoch)
        }

        /// The tiles of a scan of `len` elements.
        pub fn tiles(len: usize) -> usize {
            len.div_ceil(scan_tile_len::<T>())
        }

        /// The bytes of device memory the storage for `len` elements takes (CUB's
        /// `temp_storage_bytes`).
        pub fn bytes(len: usize) -> usize {
            let tiles = Self::tiles(len);
            (tiles + 1) * size_of::<u64>() + 2 * tiles * size_of::<T>()
        }

        /// The most elements a scan with this storage may have.
        pub fn capacity(&self) -> usize {
            self.aggregates.len() * scan_tile_len::<T>()
        }
    }

    /// Checks the lengths and runs the scan.
    fn scan<'a, 'b, T, Op>(
        stream: &Stream,
        input: impl DeviceInput<'a, T>,
        output: impl DeviceOutput<'b, T>,
        exclusive: bool,
        initial: T,
        scratch: Option<&mut ScanScratch<T>>,
    ) -> ferrocuda::Result<()>
    where
        T: DeviceCopy + 'a + 'b,
        Op: Scannable<T>,
    {
        let input = input.device_slice();
        let output = output.device_slice_mut();
        let operation = if exclusive {
            "exclusive_scan: the output has one element per input element"
        } else {
            "inclusive_scan: the output has one element per input element"
        };
        if output.len() != input.len() {
            return Err(Error::LengthMismatch {
                operation,
                expected: input.len(),
                actual: output.len(),
            });
        }
        if input.is_empty() {
            return Ok(());
        }
        let tiles = ScanScratch::<T>::tiles(input.len());
        let Ok(grid) = u32::try_from(tiles) else {
            return Err(Error::LengthMismatch {
                operation: "scan: at most u32::MAX elements",
                expected: u32::MAX as usize,
                actual: input.len(),
            });
        };
        let mut own;
        let scratch = match scratch {
            Some(scratch) => {
                if scratch.capacity() < input.len() {
                    return Err(Error::LengthMismatch {
                        operation: "scan: the ScanScratch's capacity (make it with ScanScratch::new(device, len) for at least the input's length)",
                        expected: input.len(),
                        actual: scratch.capacity(),
                    });
                }
                scratch
            }
            None => {
                own = ScanScratch::new(stream.device(), input.len())?;
                &mut own
            }
        };
        Op::launch_tiles(stream, grid, input, output, exclusive, initial, scratch)
    }

    /// Writes the inclusive scan of `input` with `op` to `output` (same length) on `stream`,
    /// without waiting: `output[i] = input[0] op ... op input[i]`. Allocates its temporary
    /// storage ([`inclusive_scan_with`] takes it from the caller). An empty input does nothing.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] naming both lengths when they differ; the errors of the
    /// allocations and of a launch (buffers of another device than the stream's:
    /// [`Error::DeviceMismatch`]; more than `u32::MAX` elements).
    pub fn inclusive_scan<'a, 'b, T, Op>(
        stream: &Stream,
        input: impl DeviceInput<'a, T>,
        output: impl DeviceOutput<'b, T>,
        _op: Op,
    ) -> ferrocuda::Result<()>
    where
        T: DeviceCopy + 'a + 'b,
        Op: Scannable<T>,
    {
        scan::<T, Op>(stream, input, output, false, Op::identity(), None)
    }

    /// [`inclusive_scan`] with the caller's temporary storage.
    ///
    /// # Errors
    /// Those of [`inclusive_scan`], and [`Error::LengthMismatch`] when `scratch` was made for
    /// fewer elements than `input` has.
    pub fn inclusive_scan_with<'a, 'b, T, Op>(
        stream: &Stream,
        input: impl DeviceInput<'a, T>,
        output: impl DeviceOutput<'b, T>,
        _op: Op,
        scratch: &mut ScanScratch<T>,
    ) -> ferrocuda::Result<()>
    where
        T: DeviceCopy + 'a + 'b,
        Op: Scannable<T>,
    {
        scan::<T, Op>(stream, input, output, false, Op::identity(), Some(scratch))
    }

    /// Writes the exclusive scan of `input` with `op` and initial value `initial` to `output`
    /// (same length) on `stream`, without waiting: `output[0] = initial`, `output[i] = initial
    /// op input[0] op ... op input[i - 1]`. Allocates its temporary storage.
    ///
    /// # Errors
    /// Those of [`inclusive_scan`].
    pub fn exclusive_scan<'a, 'b, T, Op>(
        stream: &Stream,
        input: impl DeviceInput<'a, T>,
        output: impl DeviceOutput<'b, T>,
        initial: T,
        _op: Op,
    ) -> ferrocuda::Result<()>
    where
        T: DeviceCopy + 'a + 'b,
        Op: Scannable<T>,
    {
        scan::<T, Op>(stream, input, output, true, initial, None)
    }

    /// [`exclusive_scan`] with the caller's temporary storage.
    ///
    /// # Errors
    /// Those of [`inclusive_scan_with`].
    pub fn exclusive_scan_with<'a, 'b, T, Op>(
        stream: &Stream,
        input: impl DeviceInput<'a, T>,
        output: impl DeviceOutput<'b, T>,
        initial: T,
        _op: Op,
        scratch: &mut ScanScratch<T>,
    ) -> ferrocuda::Result<()>
    where
        T: DeviceCopy + 'a + 'b,
        Op: Scannable<T>,
    {
        scan::<T, Op>(stream, input, output, true, initial, Some(scratch))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn epochs_start_at_one_and_wrap_after_the_largest_with_a_zeroing() {
            assert_eq!(advance_epoch(0), (1, true));
            assert_eq!(advance_epoch(1), (2, false));
            assert_eq!(advance_epoch(MAX_EPOCH - 1), (MAX_EPOCH, false));
            assert_eq!(advance_epoch(MAX_EPOCH), (1, true));
            // The tag of the largest epoch still fits its 30 bits.
            assert_eq!((MAX_EPOCH << 2) >> 2, MAX_EPOCH);
        }
    }
}
