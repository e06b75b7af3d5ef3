//! Warpgroup matrix multiply-accumulate (`wgmma`, sm_90a): the four warps of a warpgroup (128
//! consecutive threads, the first warp's index a multiple of 4) multiply a 64 x 16 tile of `A`
//! by a 16 x N tile of `B`, both read by the tensor cores straight from shared memory through
//! [`SharedMatrixDescriptor`]s, and add the product into a 64 x N `f32` accumulator spread over
//! the warpgroup's registers ([`WarpgroupAccumulator`]).
//!
//! PTX ISA 8.x, section 9.7.15 ("Asynchronous Warpgroup Level Matrix Multiply-Accumulate
//! Instructions"): `wgmma.mma_async` (9.7.15.5.2), `wgmma.fence` (9.7.15.6.1),
//! `wgmma.commit_group` (9.7.15.6.2), `wgmma.wait_group` (9.7.15.6.3); the descriptor format and
//! the canonical shared-memory layouts in 9.7.15.5.1 ("Register Fragments and Shared Memory
//! Matrix Layouts"), and the accumulator's fragment layout for `.m64nNk16` in 9.7.15.5.1.1.
//!
//! ```ignore
//! let mut acc = WarpgroupAccumulator::<128>::zeroed();        // m64n256: 128 f32 per thread
//! wgmma_fence();
//! for k in 0..4 {
//!     let a = SharedMatrixDescriptor::new(&tiles, a_start + 16 * k, Swizzle::Bytes128, 16, 1024);
//!     let b = SharedMatrixDescriptor::new(&tiles, b_start + 16 * k * 64, Swizzle::Bytes128, 8192, 1024);
//!     unsafe { acc.mma_async(a, MatrixMajor::K, b, MatrixMajor::Mn) };
//! }
//! wgmma_commit_group();
//! wgmma_wait_group::<0>();
//! acc.store(&mut c, origin);
//! ```
//!
//! # The protocol
//! `wgmma.mma_async` runs asynchronously: it reads its shared-memory operands and updates the
//! accumulator registers after the instruction has been issued. [`wgmma_fence`] must come
//! before the first `mma_async` of a sequence (and whenever the accumulator registers were
//! touched by other instructions in between); [`wgmma_commit_group`] closes the issued
//! operations into a group, and [`wgmma_wait_group::<N>`](wgmma_wait_group) waits until at most
//! `N` groups are pending. Until then the shared operands must not be written and the
//! accumulator must not be read or written: that is the contract of
//! [`WarpgroupAccumulator::mma_async`], an `unsafe fn`.
//!
//! # Architecture and simulator
//! `wgmma` exists only on sm_90a (not sm_90, not later architectures' plain targets): calling
//! [`WarpgroupAccumulator::mma_async`] from a kernel crate built for anything else is a compile
//! error ([`crate::architecture::Sm90a`]), and the fence/commit/wait functions exist only in
//! such builds and on the host. The simulator refuses every `wgmma` instruction with
//! `SimulatorFault::UnsupportedInstruction`.

use crate::DeviceCopy;
use crate::architecture::{Sm90a, Target};
use crate::backend::wgmma as imp;
use crate::half::bf16;
use crate::matrix::MatrixMut;
use crate::mma::TileSink;
use crate::shared::{Shape, Shared};
use core::marker::PhantomData;

/// The swizzle of a shared-memory matrix (ISA 9.7.15.5.1: the 16-byte chunks of each row of the
/// swizzle width are permuted by XOR with the row's index within the pattern): it must match
/// the swizzle the tile was written with (the tensor map's, for TMA copies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Swizzle {
    /// No swizzle: the "interleaved" canonical layout of 8 x 16-byte core matrices.
    None,
    /// 32-byte swizzle (pattern of 256 bytes).
    Bytes32,
    /// 64-byte swizzle (pattern of 512 bytes).
    Bytes64,
    /// 128-byte swizzle (pattern of 1024 bytes).
    Bytes128,
}

impl Swizzle {
    /// The descriptor's encoding of the mode (bits 62-63): 0 none, 1 128-byte, 2 64-byte,
    /// 3 32-byte.
    pub const fn descriptor_bits(self) -> u64 {
        match self {
            Swizzle::None => 0,
            Swizzle::Bytes128 => 1,
            Swizzle::Bytes64 => 2,
            Swizzle::Bytes32 => 3,
        }
    }

    /// The bytes after which the swizzle pattern repeats (8 rows of the swizzle width; 128 for
    /// no swizzle, the size of one 8 x 16-byte core matrix).
    pub const fn pattern_bytes(self) -> usize {
        match self {
            Swizzle::None => 128,
            Swizzle::Bytes32 => 256,
            Swizzle::Bytes64 => 512,
            Swizzle::Bytes128 => 1024,
        }
    }
}

/// Which dimension of a `wgmma` operand is contiguous in shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixMajor {
    /// K is contiguous: `A` row-major, `B` column-major (the instruction's native layouts,
    /// `imm-trans = 0`).
    K,
    /// M (for `A`) or N (for `B`) is contiguous: `A` column-major, `B` row-major (the
    /// transposed form, `imm-trans = 1`, which the ISA allows for 16-bit inputs only).
    Mn,
}

/// The largest byte offset a descriptor field encodes: 14 bits of 16-byte units.
pub const DESCRIPTOR_MAX_OFFSET: u32 = (1 << 14) * 16 - 16;

/// A 64-bit `wgmma` shared-memory matrix descriptor (ISA 9.7.15.5.1, "Matrix Descriptor
/// Format"):
///
/// | bits | field |
/// |---|---|
/// | 0-13 | start address: `(address & 0x3ffff) >> 4` (shared state space) |
/// | 16-29 | leading dimension byte offset `>> 4` |
/// | 32-45 | stride dimension byte offset `>> 4` |
/// | 49-51 | matrix base offset: 0, as the swizzle patterns start on their own boundary (see below) |
/// | 62-63 | swizzle mode ([`Swizzle::descriptor_bits`]) |
///
/// For a 128-byte-swizzled tile of 64 16-bit elements per row: a K-major operand (`A`
/// row-major) has its 8-row groups 1024 bytes apart (stride offset 1024; the leading offset is
/// unused, conventionally 16) and steps along K by moving the start 32 bytes per 16 elements; an
/// MN-major operand (`B` row-major) stores each 64-column block of N as its own `K x 64` tile,
/// the blocks `leading` bytes apart, its 8-row groups of K 1024 bytes apart (stride 1024), and
/// steps along K by moving the start `16 * 128` bytes (CUTLASS's `make_gmma_desc`).
///
/// The base offset is for swizzle patterns that do not start on a multiple of their size
/// ([`Swizzle::pattern_bytes`]); the ISA sets it from the *pattern's* start address, which a
/// descriptor of a matrix start inside a pattern (the K-steps above) cannot know. ferrocuda
/// writes 0, as CUTLASS does, and [`Self::new`] requires swizzled tiles to start on a pattern
/// boundary instead (TMA writes its swizzle from the address bits, so a 1024-byte-aligned
/// destination gives patterns on 1024-byte boundaries).
///
/// The type parameter is the element type of the tile, so that [`WarpgroupAccumulator::mma_async`]
/// takes only descriptors of the inputs it multiplies.
#[derive(Debug, PartialEq, Eq)]
pub struct SharedMatrixDescriptor<T> {
    bits: u64,
    _element: PhantomData<T>,
}

impl<T> Clone for SharedMatrixDescriptor<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for SharedMatrixDescriptor<T> {}

impl<T: DeviceCopy> SharedMatrixDescriptor<T> {
    /// The descriptor of the matrix starting at element `start` of `tile`.
    ///
    /// # Panics
    /// When `start` is outside `tile`, its address is not 16-byte aligned, an offset is not a
    /// multiple of 16 or above [`DESCRIPTOR_MAX_OFFSET`], or, for a swizzled layout, `tile`
    /// does not start on a multiple of the swizzle's pattern ([`Swizzle::pattern_bytes`]).
    #[inline(always)]
    #[track_caller]
    pub fn new<S: Shape>(
        tile: &Shared<T, S>,
        start: usize,
        swizzle: Swizzle,
        leading_byte_offset: u32,
        stride_byte_offset: u32,
    ) -> SharedMatrixDescriptor<T> {
        if start >= tile.len() {
            imp::descriptor_out_of_bounds(start, tile.len());
        }
        if !leading_byte_offset.is_multiple_of(16) || leading_byte_offset > DESCRIPTOR_MAX_OFFSET {
            imp::bad_descriptor_offset(leading_byte_offset);
        }
        if !stride_byte_offset.is_multiple_of(16) || stride_byte_offset > DESCRIPTOR_MAX_OFFSET {
            imp::bad_descriptor_offset(stride_byte_offset);
        }
        let address = imp::shared_address(tile.as_ptr().wrapping_add(start));
        if !address.is_multiple_of(16) {
            imp::misaligned_descriptor(address);
        }
        let tile_address = imp::shared_address(tile.as_ptr());
        if swizzle != Swizzle::None && !tile_address.is_multiple_of(swizzle.pattern_bytes() as u32)
        {
            imp::misaligned_swizzled_tile(tile_address, swizzle.pattern_bytes());
        }
        SharedMatrixDescriptor::from_parts(
            address,
            swizzle,
            leading_byte_offset,
            stride_byte_offset,
        )
    }

    /// The descriptor of the given fields (see the table above), with no checks: a pure
    /// function of its inputs, for tests and for code that computed the address itself.
    pub const fn from_parts(
        shared_address: u32,
        swizzle: Swizzle,
        leading_byte_offset: u32,
        stride_byte_offset: u32,
    ) -> SharedMatrixDescriptor<T> {
        SharedMatrixDescriptor {
            bits: encode_offset(shared_address)
                | (encode_offset(leading_byte_offset) << 16)
                | (encode_offset(stride_byte_offset) << 32)
                | (swizzle.descriptor_bits() << 62),
            _element: PhantomData,
        }
    }

    /// The 64 bits the instruction takes.
    pub const fn bits(self) -> u64 {
        self.bits
    }

    /// The descriptor of the same layout starting `bytes` bytes further (a multiple of 16):
    /// the next K-step of a tile, or another stage of a ring of tiles. Pure arithmetic, without
    /// the checks of [`Self::new`] (so that a kernel's inner loop has no panic paths, which make
    /// ptxas serialise `wgmma`): the caller keeps the result inside the tile it started from,
    /// which the `unsafe` contract of [`WarpgroupAccumulator::mma_async`] asks anyway. The start
    /// address field wraps within its 18 bits of address; the other fields are kept.
    #[inline(always)]
    pub const fn advanced(self, bytes: u32) -> SharedMatrixDescriptor<T> {
        let address = ((self.bits & 0x3fff) << 4) as u32;
        SharedMatrixDescriptor {
            bits: (self.bits & !0x3fff) | encode_offset(address.wrapping_add(bytes)),
            _element: PhantomData,
        }
    }
}

/// The 14-bit encoding of an address or byte offset in a descriptor: `(x & 0x3ffff) >> 4`.
const fn encode_offset(x: u32) -> u64 {
    ((x as u64) & 0x3ffff) >> 4
}

/// A warpgroup's `64 x N` `f32` accumulator of `wgmma.mma_async.m64nNk16`, `R = N / 2`
/// registers per thread ([`WarpgroupAccumulatorN256`], [`WarpgroupAccumulatorN128`]).
///
/// Element layout (ISA 9.7.15.5.1.1, the `D` fragment of `.m64nNk16`): thread `t` of the
/// warpgroup (`thread_idx().x % 128`) holds, in register `i`, the element at row
/// `16 (t / 32) + (t % 32) / 4 + 8 ((i / 2) % 2)` and column `8 (i / 4) + 2 (t % 4) + i % 2`
/// ([`WarpgroupAccumulator::position`]).
#[derive(Clone, Copy, Debug)]
pub struct WarpgroupAccumulator<const R: usize> {
    registers: [f32; R],
}

/// The accumulator of `m64n256k16`: 128 `f32` per thread.
pub type WarpgroupAccumulatorN256 = WarpgroupAccumulator<128>;
/// The accumulator of `m64n128k16`: 64 `f32` per thread.
pub type WarpgroupAccumulatorN128 = WarpgroupAccumulator<64>;

impl<const R: usize> WarpgroupAccumulator<R> {
    /// N, the accumulator's columns.
    pub const COLUMNS: usize = 2 * R;

    /// An accumulator of zeros.
    #[inline(always)]
    pub const fn zeroed() -> Self {
        WarpgroupAccumulator {
            registers: [0.0; R],
        }
    }

    /// (row, column) in the 64 x N tile of register `index` of warpgroup thread `thread`
    /// (`0..128`); see the type's documentation.
    #[inline(always)]
    pub const fn position(thread: usize, index: usize) -> (usize, usize) {
        let (warp, lane) = (thread / 32 % 4, thread % 32);
        (
            16 * warp + lane / 4 + 8 * ((index / 2) % 2),
            8 * (index / 4) + 2 * (lane % 4) + index % 2,
        )
    }

    /// The registers (this thread's elements, in the order of [`Self::position`]).
    #[inline(always)]
    pub const fn registers(&self) -> &[f32; R] {
        &self.registers
    }
}

macro_rules! accumulator_shape {
    ($registers:literal, $shape:literal, [$first:literal $($i:literal)*]) => {
        impl WarpgroupAccumulator<$registers> {
            /// Issues `wgmma.mma_async.sync.aligned.
            #[doc = $shape]
            /// .f32.bf16.bf16`: adds `A` (64 x 16 bf16, described by `a`) times `B` (16 x N
            /// bf16, described by `b`) to the accumulator, with the operands' majors given
            /// (`MatrixMajor::Mn` is the instruction's `imm-trans`). Warpgroup-collective: the
            /// 128 threads issue it together with the same descriptors.
            ///
            /// # Safety
            /// - A [`wgmma_fence`] has been issued since the accumulator's registers were last
            ///   touched by anything but `mma_async`.
            /// - The descriptors describe bf16 tiles in shared memory of the layout and swizzle
            ///   they encode, wholly inside memory the block owns; nothing writes those tiles
            ///   until a [`wgmma_wait_group`] covering this operation returns.
            /// - The accumulator is not read, written or moved until then.
            /// - All 128 threads of the warpgroup execute it, converged.
            #[inline(always)]
            #[track_caller]
            pub unsafe fn mma_async<T>(
                &mut self,
                a: SharedMatrixDescriptor<T>,
                a_major: MatrixMajor,
                b: SharedMatrixDescriptor<T>,
                b_major: MatrixMajor,
            ) where
                Target<T>: Sm90a,
                T: WgmmaInput,
            {
                let d = &mut self.registers;
                let (a, b) = (a.bits(), b.bits());
                imp::unsupported_on_simulator("wgmma.mma_async");
                #[cfg(target_arch = "nvptx64")]
                // SAFETY: the caller's contract.
                unsafe {
                    match (a_major, b_major) {
                        (MatrixMajor::K, MatrixMajor::K) => wgmma_asm!($shape, d, a, b, "0", "0", [$first $($i)*]),
                        (MatrixMajor::K, MatrixMajor::Mn) => wgmma_asm!($shape, d, a, b, "0", "1", [$first $($i)*]),
                        (MatrixMajor::Mn, MatrixMajor::K) => wgmma_asm!($shape, d, a, b, "1", "0", [$first $($i)*]),
                        (MatrixMajor::Mn, MatrixMajor::Mn) => wgmma_asm!($shape, d, a, b, "1", "1", [$first $($i)*]),
                    }
                }
                #[cfg(not(target_arch = "nvptx64"))]
                let _ = (d, a, b, a_major, b_major);
            }

            /// Writes this thread's elements into `sink` at `origin` + their positions
            /// ([`Self::position`]), unrolled so that the registers stay registers. Call it
            /// after [`wgmma_wait_group`] has covered every `mma_async` into the accumulator.
            ///
            /// # Panics
            /// When an element falls outside `sink`.
            #[inline(always)]
            #[track_caller]
            pub fn store(&self, sink: &mut impl TileSink<f32>, origin: (usize, usize)) {
                let thread = crate::thread_idx().x as usize % 128;
                $(
                    let (row, col) = Self::position(thread, $i);
                    sink.set_element_at(origin.0 + row, origin.1 + col, self.registers[$i]);
                )*
                let (row, col) = Self::position(thread, $first);
                sink.set_element_at(origin.0 + row, origin.1 + col, self.registers[$first]);
            }

            /// Writes this thread's elements into `c` at `origin` + their positions, as
            /// [`Self::store`] does, two at a time: registers `2j` and `2j + 1` are neighbours in a
            /// row, so each pair is one 8-byte store when `origin.1` is even (half the store
            /// instructions, and each warp's stores fill whole 32-byte sectors).
            ///
            /// # Panics
            /// When an element falls outside `c`.
            #[inline(always)]
            #[track_caller]
            pub fn store_pairs(&self, c: &mut MatrixMut<'_, f32>, origin: (usize, usize)) {
                let thread = crate::thread_idx().x as usize % 128;
                $(
                    if $i % 2 == 1 {
                        let (row, col) = Self::position(thread, $i - 1);
                        let col = origin.1 + col;
                        let pair = &mut c.row_mut(origin.0 + row)[col..col + 2];
                        store_pair(pair, [self.registers[$i - 1], self.registers[$i]]);
                    }
                )*
            }
        }
    };
}

/// Writes `values` into the two elements of `pair`, with one 8-byte store (`st.v2.f32`) when
/// they are 8-byte aligned (LLVM neither knows that of a slice of `f32` nor merges the two
/// stores by itself), else with two.
#[inline(always)]
fn store_pair(pair: &mut [f32], values: [f32; 2]) {
    let pointer = pair.as_mut_ptr();
    if pair.len() == 2 && (pointer as usize).is_multiple_of(8) {
        // SAFETY: `pointer` reaches the two elements of `pair` (an exclusive borrow) and is
        // 8-byte aligned (checked).
        unsafe { imp::store_aligned_pair(pointer, values) };
    } else {
        pair.copy_from_slice(&values);
    }
}

/// The `asm!` of one `wgmma.mma_async` with `R` accumulator registers (the list of their
/// indices) and the transpose immediates.
#[cfg(target_arch = "nvptx64")]
macro_rules! wgmma_asm {
    ($shape:literal, $d:ident, $a:ident, $b:ident, $ta:literal, $tb:literal, [$first:literal $($i:literal)*]) => {
        core::arch::asm!(
            "{{ .reg .pred p; setp.ne.b32 p, {scale}, 0;",
            concat!("wgmma.mma_async.sync.aligned.", $shape, ".f32.bf16.bf16 {{{", stringify!($first), "}"),
            $(concat!(", {", stringify!($i), "}"),)*
            concat!("}}, {a}, {b}, p, 1, 1, ", $ta, ", ", $tb, "; }}"),
            inout(reg32) $d[$first],
            $(inout(reg32) $d[$i],)*
            a = in(reg64) $a, b = in(reg64) $b, scale = in(reg32) 1u32,
            options(nostack)
        )
    };
}

/// The input types `wgmma` takes from shared memory with these accumulators: bf16.
pub trait WgmmaInput: DeviceCopy {}
impl WgmmaInput for bf16 {}

accumulator_shape!(128, "m64n256k16", [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127]);
accumulator_shape!(64, "m64n128k16", [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63]);

/// Orders the warpgroup's earlier register accesses before the `wgmma.mma_async` that follow
/// (`wgmma.fence.sync.aligned`). Warpgroup-collective.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90a"))]
#[inline(always)]
#[track_caller]
pub fn wgmma_fence() {
    imp::fence();
}

/// Closes the warpgroup's issued `wgmma.mma_async` operations into a group
/// (`wgmma.commit_group.sync.aligned`). Warpgroup-collective.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90a"))]
#[inline(always)]
#[track_caller]
pub fn wgmma_commit_group() {
    imp::commit_group();
}

/// Waits until at most `N` of the warpgroup's `wgmma` groups are pending
/// (`wgmma.wait_group.sync.aligned N`): the accumulators and shared operands of the others are
/// free again. Warpgroup-collective.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90a"))]
#[inline(always)]
#[track_caller]
pub fn wgmma_wait_group<const N: u32>() {
    imp::wait_group::<N>();
}
