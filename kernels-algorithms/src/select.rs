//! Stream compaction: [`select_if`] keeps the elements of a buffer for which a predicate holds,
//! in their order, and counts them (CUB's `DeviceSelect::If` and `DeviceSelect::Flagged`), for
//! `u32`, `i32`, `f32` and `u64` elements; [`select_into`] is the device-side function behind it,
//! for a kernel of the user's own crate with a predicate of its own.
//!
//! ```ignore
//! let mut kept = DeviceBuffer::<f32>::zeros(&device, input.len())?;
//! let count = select_count(&stream, &input, Predicate::GreaterThan(0.5), &mut kept)?;
//! // kept[..count]: the elements above 0.5, in input order
//! ```
//!
//! # Predicates
//! [`Predicate::NonZero`] (not `0`; for `f32` neither `+0.0` nor `-0.0`, and NaN is kept),
//! [`Predicate::GreaterThan`] (`x > value`; NaN is not), [`Predicate::Flagged`] (element `i`
//! is kept when `flags[i] != 0`, a `u8` buffer as long as the input).
//!
//! # The kernel: one pass with decoupled look-back
//! Each block of [`SELECT_THREADS`] threads takes the next tile of [`SELECT_TILE`] elements
//! (numbered by an atomic counter, so earlier tiles are running or done), each thread
//! [`SELECT_ITEMS`] consecutive ones. The block counts its kept elements and scans the
//! threads' counts ([`block_exclusive_scan`]); thread 0 publishes the tile's count and looks back
//! over the earlier tiles' states for the number kept before the tile, as in the radix sort's
//! passes (a 64-bit state: 2 status bits and a 62-bit count, so any length works). Each thread
//! then writes its kept elements at the tile's prefix plus its offset. The tile that holds the
//! last element writes the total to the count.

use ferrocuda::device::block_radix_rank::for_each_item;
use ferrocuda::prelude::*;

/// Threads per block of the select kernels.
pub const SELECT_THREADS: u32 = 256;
/// Consecutive elements per thread.
pub const SELECT_ITEMS: usize = 8;
/// Elements per tile (one block's share).
pub const SELECT_TILE: usize = SELECT_THREADS as usize * SELECT_ITEMS;

/// The status of a tile state: the count is the tile's alone.
const STATE_AGGREGATE: u64 = 1 << 62;
/// The status of a tile state: the count is the tile's and every earlier tile's.
const STATE_INCLUSIVE: u64 = 2 << 62;
/// The count bits of a tile state.
const STATE_COUNT: u64 = (1 << 62) - 1;

/// The index of the tile counter in the control words, which hold the counter, then one state
/// per tile, all zero before the select.
const COUNTER: usize = 0;

/// Keeps the elements of `input` for which `keep(element, index)` holds, in order, in `out`
/// (from its start), and writes how many to `count[0]`: the device side of [`select_if`], to
/// call from a kernel of the caller's crate launched as [`select_if`]'s kernels are (blocks of
/// [`SELECT_THREADS`] threads, one per tile of [`SELECT_TILE`] elements, `control` zeroed
/// before: [`SelectTemp::prepare`](crate::select::SelectTemp::prepare) does both).
///
/// ```ignore
/// #[kernel]
/// pub fn select_even(input: &[u32], out: &mut [u32], count: &mut [u64], control: &mut [u64]) {
///     select_into(input, |x, _| x % 2 == 0, out, count, control);
/// }
/// ```
///
/// # Launch contract
/// Blocks of exactly [`SELECT_THREADS`] threads, and at least one block per [`SELECT_TILE`]
/// elements of `input` (at least one block); `control` zeroed, with one word per block plus one.
/// Any other block size or grid panics (the first statements check it) instead of counting
/// wrongly; a `control` that was not zeroed is not detected.
///
/// # Panics
/// When the launch breaks the contract above, when `out` is shorter than the number kept (an
/// index out of bounds), when `count` is empty, or when `control` is shorter than one word per
/// block plus one.
#[inline(always)]
#[track_caller]
pub fn select_into<T: Copy>(
    input: &[T],
    keep: impl Fn(T, usize) -> bool,
    out: &mut [T],
    count: &mut [u64],
    control: &mut [u64],
) {
    let mut scan = shared_array!(u32; BLOCK_SCRATCH_LEN);
    let mut tile_prefix = shared_array!(u64; 1);
    let n = input.len();
    let t = thread_rank() as usize;
    let (block, grid) = (block_dim(), grid_dim());
    if block.x * block.y * block.z != SELECT_THREADS {
        panic!("select_into: launch it with blocks of SELECT_THREADS (256) threads");
    }
    let blocks = grid.x as usize * grid.y as usize * grid.z as usize;
    if blocks < n.div_ceil(SELECT_TILE) {
        panic!(
            "select_into: launch it with at least one block per SELECT_TILE (2048) elements of the input"
        );
    }
    if n == 0 {
        if t == 0 {
            count[0] = 0;
        }
        return;
    }

    let mut tile = 0u32;
    if t == 0 {
        tile = control.atomic_add(COUNTER, 1) as u32;
    }
    let tile = block_broadcast(&mut scan, tile, 0) as usize;
    let first = tile * SELECT_TILE + t * SELECT_ITEMS;

    // This thread's consecutive elements and which of them stay.
    let mut values = [input[0]; SELECT_ITEMS];
    let mut kept = [false; SELECT_ITEMS];
    let mut mine = 0u32;
    for_each_item::<SELECT_ITEMS>(|i| {
        let index = first + i;
        if index < n {
            values[i] = input[index];
            kept[i] = keep(values[i], index);
            mine += u32::from(kept[i]);
        }
    });
    let (offset, total) = block_exclusive_scan(&mut scan, mine, 0, u32::wrapping_add);

    if t == 0 {
        let before = look_back(control, tile, u64::from(total));
        tile_prefix[0] = before;
        let end = ((tile + 1) * SELECT_TILE).min(n);
        if end == n {
            count[0] = before + u64::from(total);
        }
    }
    syncthreads();
    let mut place = (tile_prefix[0] + u64::from(offset)) as usize;
    for_each_item::<SELECT_ITEMS>(|i| {
        if kept[i] {
            out[place] = values[i];
            place += 1;
        }
    });
}

/// The number of kept elements of the tiles before `tile`, by decoupled look-back over the
/// tile states in `control` after publishing this tile's `count`; then publishes this tile's
/// inclusive count.
#[inline(always)]
fn look_back(control: &mut [u64], tile: usize, count: u64) -> u64 {
    let here = COUNTER + 1 + tile;
    if tile == 0 {
        control.atomic_store(here, STATE_INCLUSIVE | count);
        return 0;
    }
    control.atomic_store(here, STATE_AGGREGATE | count);
    let mut before = 0u64;
    let mut earlier = here - 1;
    loop {
        let state = control.atomic_load(earlier);
        let status = state & !STATE_COUNT;
        if status == 0 {
            // Not published yet: the tile is running (tiles start in order), ask again.
            continue;
        }
        before += state & STATE_COUNT;
        if status == STATE_INCLUSIVE {
            break;
        }
        earlier -= 1;
    }
    control.atomic_store(here, STATE_INCLUSIVE | (before + count));
    before
}

/// An element type of the select kernels: `u32`, `i32`, `f32`, `u64`.
pub trait SelectElement: Copy + DeviceCopy + PartialOrd {
    /// Zero (for `f32`, `+0.0`, which equals `-0.0`).
    const ZERO: Self;
}

impl SelectElement for u32 {
    const ZERO: Self = 0;
}
impl SelectElement for i32 {
    const ZERO: Self = 0;
}
impl SelectElement for f32 {
    const ZERO: Self = 0.0;
}
impl SelectElement for u64 {
    const ZERO: Self = 0;
}

/// Keeps the elements of `input` that are not zero (`!=`, so NaN stays).
#[kernel(instances(u32, i32, f32, u64))]
pub fn select_nonzero<T: SelectElement>(
    input: &[T],
    out: &mut [T],
    count: &mut [u64],
    control: &mut [u64],
) {
    select_into(input, |x, _| x != T::ZERO, out, count, control);
}

/// Keeps the elements of `input` greater than `threshold`.
#[kernel(instances(u32, i32, f32, u64))]
pub fn select_greater<T: SelectElement>(
    input: &[T],
    threshold: T,
    out: &mut [T],
    count: &mut [u64],
    control: &mut [u64],
) {
    select_into(input, |x, _| x > threshold, out, count, control);
}

/// Keeps element `i` of `input` when `flags[i] != 0` (`flags` as long as `input`).
#[kernel(instances(u32, i32, f32, u64))]
pub fn select_flagged<T: SelectElement>(
    input: &[T],
    flags: &[u8],
    out: &mut [T],
    count: &mut [u64],
    control: &mut [u64],
) {
    select_into(input, |_, i| flags[i] != 0, out, count, control);
}

/// Zeroes `control` (grid-stride).
#[kernel]
pub fn select_clear(control: &mut [u64]) {
    let stride = gridsize!(1);
    let mut i = grid!(1);
    while i < control.len() {
        control[i] = 0;
        i += stride;
    }
}

#[cfg(not(target_arch = "nvptx64"))]
pub use host::*;

/// The host side: [`select_if`], [`select_count`], the predicates and the temporary storage.
#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::*;
    use ferrocuda::LaunchError;

    /// Which elements [`select_if`] keeps.
    #[derive(Clone, Copy, Debug)]
    pub enum Predicate<'a, T: DeviceCopy> {
        /// The elements that are not zero.
        NonZero,
        /// The elements greater than the value.
        GreaterThan(T),
        /// Element `i` when `flags[i] != 0` (CUB's `DeviceSelect::Flagged`); as long as the
        /// input.
        Flagged(&'a DeviceBuffer<u8>),
    }

    mod sealed {
        /// Only `u32`, `i32`, `f32` and `u64` have select kernels.
        pub trait Sealed {}
        impl Sealed for u32 {}
        impl Sealed for i32 {}
        impl Sealed for f32 {}
        impl Sealed for u64 {}
    }

    /// An element type [`select_if`] launches kernels for.
    pub trait Selectable: SelectElement + sealed::Sealed {
        /// Launches the select kernel of `predicate`.
        #[doc(hidden)]
        fn launch_select(
            stream: &Stream,
            tiles: usize,
            input: &DeviceBuffer<Self>,
            predicate: Predicate<'_, Self>,
            out: &mut DeviceBuffer<Self>,
            count: &mut DeviceBuffer<u64>,
            control: &mut DeviceBuffer<u64>,
        ) -> ferrocuda::Result<()>;
    }

    macro_rules! selectable {
        ($($t:ty),*) => {$(
            impl Selectable for $t {
                fn launch_select(
                    stream: &Stream,
                    tiles: usize,
                    input: &DeviceBuffer<$t>,
                    predicate: Predicate<'_, $t>,
                    out: &mut DeviceBuffer<$t>,
                    count: &mut DeviceBuffer<u64>,
                    control: &mut DeviceBuffer<u64>,
                ) -> ferrocuda::Result<()> {
                    match predicate {
                        Predicate::NonZero => launch!(select_nonzero::<$t>[tiles, SELECT_THREADS, stream](
                            input, out, count, control
                        )),
                        Predicate::GreaterThan(threshold) => launch!(select_greater::<$t>[tiles, SELECT_THREADS, stream](
                            input, threshold, out, count, control
                        )),
                        Predicate::Flagged(flags) => launch!(select_flagged::<$t>[tiles, SELECT_THREADS, stream](
                            input, flags, out, count, control
                        )),
                    }
                }
            }
        )*};
    }
    selectable!(u32, i32, f32, u64);

    /// The temporary storage of a select: the tile counter and one state per tile (CUB's
    /// `d_temp_storage`), grown as needed.
    pub struct SelectTemp {
        control: DeviceBuffer<u64>,
    }

    impl SelectTemp {
        /// Storage for selects of up to `capacity` elements.
        ///
        /// # Errors
        /// Those of an allocation.
        pub fn new(device: &Device, capacity: usize) -> ferrocuda::Result<Self> {
            Ok(SelectTemp {
                control: DeviceBuffer::zeros(device, capacity.div_ceil(SELECT_TILE) + 1)?,
            })
        }

        /// Readies the storage for a select of `len` elements on `stream` (grows it if needed
        /// and zeroes its words) and returns the grid to launch, one block per tile: for a
        /// kernel of the caller's crate that calls [`select_into`].
        ///
        /// # Errors
        /// Those of an allocation or a launch.
        pub fn prepare(&mut self, stream: &Stream, len: usize) -> ferrocuda::Result<usize> {
            let tiles = len.div_ceil(SELECT_TILE);
            if self.control.len() < tiles + 1 {
                self.control = DeviceBuffer::zeros(stream.device(), tiles + 1)?;
            }
            let words = tiles + 1;
            let grid = words.div_ceil(SELECT_THREADS as usize).min(1024);
            launch!(select_clear[grid, SELECT_THREADS, stream](self.control.slice_mut(..words)))?;
            Ok(tiles)
        }

        /// The control words, for the `control` parameter of [`select_into`].
        pub fn control_mut(&mut self) -> &mut DeviceBuffer<u64> {
            &mut self.control
        }
    }

    /// Writes the elements of `input` that `predicate` keeps, in order, to the start of `out`,
    /// and their number to `count[0]`, on `stream` (asynchronously), with the caller's
    /// temporary storage. An empty input writes a count of 0.
    ///
    /// # Errors
    /// [`Error::Launch`](ferrocuda::Error::Launch) when `out` is shorter than `input` (it must
    /// have room for every element), `count` is empty, or the flags of
    /// [`Predicate::Flagged`] are not as many as the elements; those of a launch.
    pub fn select_if_with<T: Selectable>(
        stream: &Stream,
        input: &DeviceBuffer<T>,
        predicate: Predicate<'_, T>,
        out: &mut DeviceBuffer<T>,
        count: &mut DeviceBuffer<u64>,
        temp: &mut SelectTemp,
    ) -> ferrocuda::Result<()> {
        let problem = if out.len() < input.len() {
            format!(
                "the output holds {} elements, the input has {}; it needs room for every element",
                out.len(),
                input.len()
            )
        } else if count.is_empty() {
            "the count buffer is empty; it needs one element".to_string()
        } else if let Predicate::Flagged(flags) = predicate
            && flags.len() != input.len()
        {
            format!(
                "{} flags for {} elements; they must be as many",
                flags.len(),
                input.len()
            )
        } else {
            String::new()
        };
        if !problem.is_empty() {
            return Err(LaunchError {
                kernel: "select",
                problem,
            }
            .into());
        }
        if input.is_empty() {
            count.slice_mut(..1).copy_from(&[0])?;
            return Ok(());
        }
        let tiles = temp.prepare(stream, input.len())?;
        T::launch_select(
            stream,
            tiles,
            input,
            predicate,
            out,
            count,
            &mut temp.control,
        )
    }

    /// [`select_if_with`], allocating its temporary storage.
    ///
    /// # Errors
    /// Those of [`select_if_with`] and of an allocation.
    pub fn select_if<T: Selectable>(
        stream: &Stream,
        input: &DeviceBuffer<T>,
        predicate: Predicate<'_, T>,
        out: &mut DeviceBuffer<T>,
        count: &mut DeviceBuffer<u64>,
    ) -> ferrocuda::Result<()> {
        let mut temp = SelectTemp::new(stream.device(), input.len())?;
        select_if_with(stream, input, predicate, out, count, &mut temp)
    }

    /// [`select_if`], then waits for it and returns the number of elements kept (the prefix of
    /// `out` that holds them).
    ///
    /// # Errors
    /// Those of [`select_if`] and of the synchronization.
    pub fn select_count<T: Selectable>(
        stream: &Stream,
        input: &DeviceBuffer<T>,
        predicate: Predicate<'_, T>,
        out: &mut DeviceBuffer<T>,
    ) -> ferrocuda::Result<usize> {
        let mut count = DeviceBuffer::<u64>::zeros(stream.device(), 1)?;
        select_if(stream, input, predicate, out, &mut count)?;
        stream.synchronize()?;
        Ok(count.to_vec()?[0] as usize)
    }
}
