//! Warp-level matrix multiply-accumulate on the tensor cores (`mma.sync.aligned`, sm_80 and
//! newer): the 32 lanes of a warp together compute `D = A * B + C` on a 16 x K tile of `A`, a
//! K x 8 tile of `B` and a 16 x 8 tile of `C` and `D`, each lane holding a few elements of each
//! tile in registers, its *fragment*.
//!
//! ```ignore
//! use ferrocuda::prelude::*;
//!
//! /// One warp: d (16 x 8) = a (16 x 16) * b (16 x 8), f16 inputs, f32 result.
//! #[kernel]
//! pub fn tile(a: &[f16], b: &[f16], d: &mut [f32]) {
//!     let a = FragmentA::<F16>::load(&Matrix::new(a, 16, 16), (0, 0), TileLayout::RowMajor);
//!     let b = FragmentB::<F16>::load(&Matrix::new(b, 16, 8), (0, 0), TileLayout::RowMajor);
//!     let d_tile = mma_sync(&a, &b, &Accumulator::zeroed());
//!     d_tile.store(&mut MatrixMut::new(d, 16, 8), (0, 0), TileLayout::RowMajor);
//! }
//! ```
//!
//! # Input types
//! Three [`MmaInput`]s, each a marker type naming the PTX instruction:
//!
//! | marker   | instruction                                         | shape (M x N x K) | element          |
//! |----------|-----------------------------------------------------|-------------------|------------------|
//! | [`F16`]  | `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`   | 16 x 8 x 16       | [`f16`](struct@crate::half::f16) |
//! | [`Bf16`] | `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` | 16 x 8 x 16       | [`bf16`](crate::half::bf16) |
//! | [`Tf32`] | `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`  | 16 x 8 x 8        | `f32`            |
//!
//! The accumulator is `f32` in all three. `F16` and `Bf16` elements are the device crate's
//! half-precision types ([`f16`](struct@crate::half::f16), [`bf16`](crate::half::bf16)); a [`Tf32`] element is an `f32` that the fragment rounds to
//! tf32 (8 exponent bits, 10 mantissa bits) when it is stored into the fragment, as
//! `cvt.rna.tf32.f32` does: to nearest, ties away from zero (see [`round_to_tf32`]).
//!
//! # Fragment layout
//! As in the PTX ISA ("Matrix fragments for mma.m16n8k16 with floating point type" and
//! "... for mma.m16n8k8"), with `group = lane_id() >> 2` and `thread_in_group = lane_id() % 4`.
//! A fragment's elements are numbered `0..ELEMENTS` (the ISA's `a0, a1, ...`); element `i`
//! lives in register `i / 2` for 16-bit types (element `2r` in the low half of register `r`,
//! `2r + 1` in the high half) and in register `i` for tf32. Element `i` of the calling lane is
//! element `(row, col)` of the tile, with `g = group`, `t = thread_in_group`:
//!
//! | fragment          | registers per lane | row of element `i`              | column of element `i`            |
//! |-------------------|--------------------|---------------------------------|----------------------------------|
//! | A, f16/bf16 16x16 | 4 x b32 (8 elems)  | `g + 8 * ((i / 2) % 2)`          | `2t + i % 2 + 8 * (i / 4)`        |
//! | B, f16/bf16 16x8  | 2 x b32 (4 elems)  | `2t + i % 2 + 8 * (i / 2)`       | `g`                              |
//! | A, tf32 16x8      | 4 x b32 (4 elems)  | `g + 8 * (i % 2)`                | `t + 4 * (i / 2)`                |
//! | B, tf32 8x8       | 2 x b32 (2 elems)  | `t + 4 * i`                      | `g`                              |
//! | C and D, f32 16x8 | 4 x f32            | `g + 8 * (i / 2)`                | `2t + i % 2`                     |
//!
//! So lane 5 (`g = 1`, `t = 1`) holds, of an f16 `A`, the elements (1, 2), (1, 3) in register
//! 0, (9, 2), (9, 3) in register 1, (1, 10), (1, 11) in register 2 and (9, 10), (9, 11) in
//! register 3. [`FragmentA::position`] and friends compute these positions. For f16 and bf16,
//! `ldmatrix` yields registers in exactly this layout, which [`FragmentA::from_registers`] and
//! [`FragmentB::from_registers`] accept as they are: `.x4` for A, lanes 0-7, 8-15, 16-23 and
//! 24-31 giving the row addresses of its quarters (rows 0-7, cols 0-7), (rows 8-15, cols 0-7),
//! (rows 0-7, cols 8-15), (rows 8-15, cols 8-15); `.x2` for a B stored N x K (lanes 0-7 and
//! 8-15 giving the rows of k 0-7 and k 8-15), `.x2.trans` for a B stored K x N.
//!
//! # Loading and storing tiles
//! [`FragmentA::load`], [`FragmentB::load`] and [`Accumulator::load`] read the calling lane's
//! elements of the tile whose top-left element is at `origin` from a [`TileSource`]: a
//! [`Matrix`] view of a slice, a shared array ([`SharedArray2d`]), or a closure
//! `|row, col| value` (which is how a caller pads a matrix whose size is not a multiple of the
//! tile with zeros). [`Accumulator::store`] writes to a [`TileSink`] the same way. Every access
//! goes through the source's bounds check (a panic naming the index and the shape). [`TileLayout`]
//! says how the tile lies in the source: `RowMajor` reads element `(r, c)` of the tile at
//! `(origin.0 + r, origin.1 + c)` of the source, `ColumnMajor` at `(origin.1 + c, origin.0 + r)`
//! (the source holds the transposed operand: its rows are the operand's columns, as a `B`
//! stored N x K).
//!
//! # Convergence and architecture
//! [`mma_sync`] is a warp-collective, `.sync.aligned`: all 32 lanes of the warp must call it
//! together, converged, with the same input type. On a GPU anything else is undefined (a hang
//! or wrong results, as for a shuffle with a wrong mask); the simulator reports a warp whose
//! lanes do not all arrive as a divergent warp operation fault, and a warp of fewer than 32
//! threads (a block size that is not a multiple of 32) as a panic of the calling thread.
//!
//! The instructions need sm_80 or newer. A kernel crate built for an older architecture (the
//! default PTX target is sm_70) that calls [`mma_sync`] does not compile: the error says
//! "`mma_sync` needs an sm_80 or newer GPU architecture" and how to pick one
//! (`FERROCUDA_ARCH=sm_80` or newer). Code that must also build for older targets leaves the
//! calls out with the cfg `any(not(target_arch = "nvptx64"), target_feature = "sm_80")` (rustc
//! sets `target_feature = "sm_80"` for sm_80 and every newer target); [`TENSOR_CORES`] is the
//! same condition as a `const`, for the code that remains. On the simulator the instructions are
//! always available.
//!
//! # Numerics
//! On the simulator, each element of `D` is the exact sum `C[r][c] + sum_k A[r][k] * B[k][c]`
//! rounded once to `f32` (to nearest, ties to even): every product of two f16, bf16 or tf32
//! values is exact in `f64`, and the sum is computed in `f64`, exact unless the terms span
//! more than 53 bits of magnitude. The hardware's order and rounding of the accumulation inside
//! `mma` are not specified by the PTX ISA (tensor cores are known to keep fewer bits and to
//! truncate), so GPU results may differ from the simulator's in the last bits of `f32`; the
//! project's tests accept `2^-18 * (|C| + sum_k |A B|)` per element. A tf32 operand that was
//! not rounded to tf32 (a register built with `from_registers`) is read with its low 13 bits
//! cleared on the simulator; the GPU's reading of such bits is implementation-defined.

use crate::backend::mma as imp;
use crate::matrix::{Matrix, MatrixMut};
use crate::shared::SharedArray2d;
use core::marker::PhantomData;

/// The number of rows of `A`, `C` and `D` in every `mma_sync` shape.
pub const MMA_M: usize = 16;

/// The number of columns of `B`, `C` and `D` in every `mma_sync` shape.
pub const MMA_N: usize = 8;

/// Whether this build can execute [`mma_sync`]: always on the simulator, and on the GPU when the
/// kernel crate is compiled for sm_80 or newer.
pub const TENSOR_CORES: bool = cfg!(any(not(target_arch = "nvptx64"), target_feature = "sm_80"));

/// The PTX input type of an `mma`, as the simulator names it.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaType {
    /// `.f16` inputs, shape m16n8k16.
    F16,
    /// `.bf16` inputs, shape m16n8k16.
    Bf16,
    /// `.tf32` inputs, shape m16n8k8.
    Tf32,
}

impl MmaType {
    /// The PTX type name (`f16`, `bf16`, `tf32`).
    pub const fn ptx_name(self) -> &'static str {
        match self {
            MmaType::F16 => "f16",
            MmaType::Bf16 => "bf16",
            MmaType::Tf32 => "tf32",
        }
    }

    /// The K of the shape: 16 for f16 and bf16, 8 for tf32.
    pub const fn k(self) -> usize {
        match self {
            MmaType::F16 | MmaType::Bf16 => 16,
            MmaType::Tf32 => 8,
        }
    }
}

/// An input type of [`mma_sync`]: [`F16`], [`Bf16`] or [`Tf32`].
///
/// Sealed: implemented for those three marker types only.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an input type of `mma_sync`",
    note = "the input types are the markers `F16`, `Bf16` and `Tf32` of `ferrocuda::device::mma`"
)]
pub trait MmaInput: Copy + sealed::Sealed {
    /// The type a kernel reads and writes elements as: [`f16`](struct@crate::half::f16) for
    /// `F16`, [`bf16`](crate::half::bf16) for `Bf16`, `f32` for `Tf32`.
    type Element: Copy;
    /// The zero element (for padding).
    const ZERO: Self::Element;
    /// The PTX type name and shape.
    #[doc(hidden)]
    const TYPE: MmaType;
    /// The K of the shape: the columns of `A` and the rows of `B` (16, or 8 for tf32).
    const K: usize = Self::TYPE.k();
    /// Elements per 32-bit register: 2 for 16-bit types, 1 for tf32.
    const PER_REGISTER: usize = 32 / Self::BITS;
    /// Bits of one element in a register.
    #[doc(hidden)]
    const BITS: usize;
    /// The register bits of `value` (for tf32, rounded to tf32).
    #[doc(hidden)]
    fn to_bits(value: Self::Element) -> u32;
    /// The element of the register bits `bits`.
    #[doc(hidden)]
    fn from_bits(bits: u32) -> Self::Element;
}

mod sealed {
    pub trait Sealed {}
}

/// IEEE binary16 inputs (`.f16`, shape m16n8k16); elements are [`f16`](struct@crate::half::f16).
#[derive(Clone, Copy, Debug)]
pub struct F16;

/// bfloat16 inputs (`.bf16`, shape m16n8k16); elements are [`bf16`](crate::half::bf16).
#[derive(Clone, Copy, Debug)]
pub struct Bf16;

/// TensorFloat-32 inputs (`.tf32`, shape m16n8k8); elements are `f32`, rounded to tf32 as they
/// enter a fragment.
#[derive(Clone, Copy, Debug)]
pub struct Tf32;

impl sealed::Sealed for F16 {}
impl sealed::Sealed for Bf16 {}
impl sealed::Sealed for Tf32 {}

impl MmaInput for F16 {
    type Element = crate::half::f16;
    const ZERO: crate::half::f16 = crate::half::f16::ZERO;
    const TYPE: MmaType = MmaType::F16;
    const BITS: usize = 16;
    #[inline(always)]
    fn to_bits(value: crate::half::f16) -> u32 {
        u32::from(value.to_bits())
    }
    #[inline(always)]
    fn from_bits(bits: u32) -> crate::half::f16 {
        crate::half::f16::from_bits(bits as u16)
    }
}

impl MmaInput for Bf16 {
    type Element = crate::half::bf16;
    const ZERO: crate::half::bf16 = crate::half::bf16::ZERO;
    const TYPE: MmaType = MmaType::Bf16;
    const BITS: usize = 16;
    #[inline(always)]
    fn to_bits(value: crate::half::bf16) -> u32 {
        u32::from(value.to_bits())
    }
    #[inline(always)]
    fn from_bits(bits: u32) -> crate::half::bf16 {
        crate::half::bf16::from_bits(bits as u16)
    }
}

impl MmaInput for Tf32 {
    type Element = f32;
    const ZERO: f32 = 0.0;
    const TYPE: MmaType = MmaType::Tf32;
    const BITS: usize = 32;
    #[inline(always)]
    fn to_bits(value: f32) -> u32 {
        round_to_tf32(value).to_bits()
    }
    #[inline(always)]
    fn from_bits(bits: u32) -> f32 {
        f32::from_bits(bits)
    }
}

/// `value` rounded to tf32 (`cvt.rna.tf32.f32`): the 13 low mantissa bits cleared after
/// rounding to nearest, ties away from zero; infinities and NaNs keep their top 19 bits.
///
/// On the GPU it is `cvt.rna.tf32.f32` on sm_80 and newer and the same bit arithmetic on older
/// architectures; on the simulator the bit arithmetic.
#[inline(always)]
pub fn round_to_tf32(value: f32) -> f32 {
    imp::round_to_tf32(value)
}

/// `value` rounded to tf32 by bit arithmetic, as the hardware does `cvt.rna.tf32.f32`: add
/// half of the last kept bit to the magnitude (finite values only), then clear the low 13 bits.
#[cfg_attr(
    all(target_arch = "nvptx64", target_feature = "sm_80"),
    expect(
        dead_code,
        reason = "sm_80 and newer round with `cvt.rna.tf32.f32` instead"
    )
)]
#[inline(always)]
pub(crate) const fn round_to_tf32_bits(bits: u32) -> u32 {
    let finite = bits & 0x7f80_0000 != 0x7f80_0000;
    let rounded = if finite {
        bits.wrapping_add(0x1000)
    } else {
        bits
    };
    rounded & 0xffff_e000
}

/// How a tile lies in its source or sink; see the [module documentation](self#loading-and-storing-tiles).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileLayout {
    /// Element `(r, c)` of the tile is at `(origin.0 + r, origin.1 + c)`.
    RowMajor,
    /// Element `(r, c)` of the tile is at `(origin.1 + c, origin.0 + r)`: the source's rows are
    /// the operand's columns.
    ColumnMajor,
}

impl TileLayout {
    /// Where element `(r, c)` of a tile at `origin` lies in the source.
    #[inline(always)]
    const fn locate(self, origin: (usize, usize), (r, c): (usize, usize)) -> (usize, usize) {
        match self {
            TileLayout::RowMajor => (origin.0 + r, origin.1 + c),
            TileLayout::ColumnMajor => (origin.1 + c, origin.0 + r),
        }
    }
}

/// Something a fragment loads elements from, by (row, column): a [`Matrix`] or [`MatrixMut`]
/// view, a [`SharedArray2d`], or a closure `Fn(usize, usize) -> E`.
pub trait TileSource<E> {
    /// The element at `(row, col)`; panics (with the index and the shape) when it is out of
    /// bounds.
    #[track_caller]
    fn element_at(&self, row: usize, col: usize) -> E;
}

/// Something an [`Accumulator`] stores elements to, by (row, column): a [`MatrixMut`] view, a
/// [`SharedArray2d`], or a closure `FnMut(usize, usize, E)`.
pub trait TileSink<E> {
    /// Writes `value` at `(row, col)`; panics (with the index and the shape) when it is out of
    /// bounds.
    #[track_caller]
    fn set_element_at(&mut self, row: usize, col: usize, value: E);
}

impl<E: Copy> TileSource<E> for Matrix<'_, E> {
    #[inline(always)]
    #[track_caller]
    fn element_at(&self, row: usize, col: usize) -> E {
        self[(row, col)]
    }
}

impl<E: Copy> TileSource<E> for MatrixMut<'_, E> {
    #[inline(always)]
    #[track_caller]
    fn element_at(&self, row: usize, col: usize) -> E {
        self[(row, col)]
    }
}

impl<E: Copy, const R: usize, const C: usize> TileSource<E> for SharedArray2d<E, R, C> {
    #[inline(always)]
    #[track_caller]
    fn element_at(&self, row: usize, col: usize) -> E {
        self.get((row, col))
    }
}

impl<E, F: Fn(usize, usize) -> E> TileSource<E> for F {
    #[inline(always)]
    #[track_caller]
    fn element_at(&self, row: usize, col: usize) -> E {
        self(row, col)
    }
}

impl<E> TileSink<E> for MatrixMut<'_, E> {
    #[inline(always)]
    #[track_caller]
    fn set_element_at(&mut self, row: usize, col: usize, value: E) {
        self[(row, col)] = value;
    }
}

impl<E, const R: usize, const C: usize> TileSink<E> for SharedArray2d<E, R, C> {
    #[inline(always)]
    #[track_caller]
    fn set_element_at(&mut self, row: usize, col: usize, value: E) {
        self.set((row, col), value);
    }
}

impl<E, F: FnMut(usize, usize, E)> TileSink<E> for F {
    #[inline(always)]
    #[track_caller]
    fn set_element_at(&mut self, row: usize, col: usize, value: E) {
        self(row, col, value)
    }
}

/// `group` and `thread_in_group` of a lane.
#[inline(always)]
const fn lane_coordinates(lane: u32) -> (usize, usize) {
    let lane = (lane % 32) as usize;
    (lane >> 2, lane % 4)
}

/// Panics unless `index < elements` (a static message, cheap on the GPU).
#[inline(always)]
#[track_caller]
fn check_element(index: usize, elements: usize) {
    if index >= elements {
        panic!(
            "mma fragment element index out of range: a lane holds 8 elements of an f16/bf16 A, \
             4 of a B or a tf32 A, 2 of a tf32 B, 4 of an accumulator"
        );
    }
}

/// The calling lane's part of a 16 x K tile of the `A` operand (K = `T::K`): four 32-bit
/// registers. See the [module documentation](self#fragment-layout) for the layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FragmentA<T: MmaInput> {
    registers: [u32; 4],
    input: PhantomData<T>,
}

impl<T: MmaInput> FragmentA<T> {
    /// The number of elements each lane holds: 8 for f16/bf16, 4 for tf32.
    pub const ELEMENTS: usize = 4 * T::PER_REGISTER;

    /// A fragment of zeros.
    #[inline(always)]
    pub const fn zeroed() -> Self {
        Self::from_registers([0; 4])
    }

    /// The fragment whose registers are `registers` (as `ldmatrix.x4` returns them for a
    /// row-major A).
    #[inline(always)]
    pub const fn from_registers(registers: [u32; 4]) -> Self {
        FragmentA {
            registers,
            input: PhantomData,
        }
    }

    /// The four registers.
    #[inline(always)]
    pub const fn registers(&self) -> [u32; 4] {
        self.registers
    }

    /// The (row, column) in the tile of element `index` of lane `lane`'s fragment.
    ///
    /// # Panics
    /// When `index >= ELEMENTS`.
    #[inline(always)]
    #[track_caller]
    pub fn position_of_lane(lane: u32, index: usize) -> (usize, usize) {
        check_element(index, Self::ELEMENTS);
        let (g, t) = lane_coordinates(lane);
        match T::TYPE {
            MmaType::F16 | MmaType::Bf16 => (
                g + 8 * ((index / 2) % 2),
                2 * t + index % 2 + 8 * (index / 4),
            ),
            MmaType::Tf32 => (g + 8 * (index % 2), t + 4 * (index / 2)),
        }
    }
}

/// The calling lane's part of a K x 8 tile of the `B` operand (K = `T::K`): two 32-bit
/// registers. See the [module documentation](self#fragment-layout) for the layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FragmentB<T: MmaInput> {
    registers: [u32; 2],
    input: PhantomData<T>,
}

impl<T: MmaInput> FragmentB<T> {
    /// The number of elements each lane holds: 4 for f16/bf16, 2 for tf32.
    pub const ELEMENTS: usize = 2 * T::PER_REGISTER;

    /// A fragment of zeros.
    #[inline(always)]
    pub const fn zeroed() -> Self {
        Self::from_registers([0; 2])
    }

    /// The fragment whose registers are `registers` (as `ldmatrix.x2` returns them for a B
    /// stored N x K, or `ldmatrix.x2.trans` for a B stored K x N).
    #[inline(always)]
    pub const fn from_registers(registers: [u32; 2]) -> Self {
        FragmentB {
            registers,
            input: PhantomData,
        }
    }

    /// The two registers.
    #[inline(always)]
    pub const fn registers(&self) -> [u32; 2] {
        self.registers
    }

    /// The (row, column) in the tile of element `index` of lane `lane`'s fragment.
    ///
    /// # Panics
    /// When `index >= ELEMENTS`.
    #[inline(always)]
    #[track_caller]
    pub fn position_of_lane(lane: u32, index: usize) -> (usize, usize) {
        check_element(index, Self::ELEMENTS);
        let (g, t) = lane_coordinates(lane);
        match T::TYPE {
            MmaType::F16 | MmaType::Bf16 => (2 * t + index % 2 + 8 * (index / 2), g),
            MmaType::Tf32 => (t + 4 * index, g),
        }
    }
}

/// The accessors `FragmentA` and `FragmentB` share: each has its own `ELEMENTS` and
/// `position_of_lane` (the ISA's layout of that operand); the rest is the same code.
macro_rules! operand_fragment_accessors {
    ($fragment:ident, $tile:literal) => {
        impl<T: MmaInput> $fragment<T> {
            /// The (row, column) in the tile of the calling lane's element `index`.
            ///
            /// # Panics
            /// When `index >= ELEMENTS`.
            #[inline(always)]
            #[track_caller]
            pub fn position(index: usize) -> (usize, usize) {
                Self::position_of_lane(crate::warp::lane_id(), index)
            }

            /// Element `index` of this lane's fragment.
            ///
            /// # Panics
            /// When `index >= ELEMENTS`.
            #[inline(always)]
            #[track_caller]
            pub fn element(&self, index: usize) -> T::Element {
                check_element(index, Self::ELEMENTS);
                T::from_bits(read_packed::<T>(&self.registers, index))
            }

            /// Sets element `index` of this lane's fragment (a tf32 value is rounded to tf32).
            ///
            /// # Panics
            /// When `index >= ELEMENTS`.
            #[inline(always)]
            #[track_caller]
            pub fn set_element(&mut self, index: usize, value: T::Element) {
                check_element(index, Self::ELEMENTS);
                write_packed::<T>(&mut self.registers, index, T::to_bits(value));
            }

            #[doc = concat!("The calling lane's fragment of the ", $tile, " tile whose top-left element is at `origin` in")]
            /// `source`, laid out as `layout` says.
            ///
            /// # Panics
            /// When an element of the tile is outside `source` (its bounds check).
            #[inline(always)]
            #[track_caller]
            pub fn load(
                source: &impl TileSource<T::Element>,
                origin: (usize, usize),
                layout: TileLayout,
            ) -> Self {
                let mut fragment = Self::zeroed();
                let lane = crate::warp::lane_id();
                for index in 0..Self::ELEMENTS {
                    let (row, col) = layout.locate(origin, Self::position_of_lane(lane, index));
                    fragment.set_element(index, source.element_at(row, col));
                }
                fragment
            }
        }
    };
}

operand_fragment_accessors!(FragmentA, "16 x K");
operand_fragment_accessors!(FragmentB, "K x 8");

/// The calling lane's part of a 16 x 8 `f32` tile of the accumulator (`C` or `D`): four `f32`
/// registers. See the [module documentation](self#fragment-layout) for the layout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Accumulator {
    registers: [f32; 4],
}

impl Default for Accumulator {
    fn default() -> Self {
        Self::zeroed()
    }
}

impl Accumulator {
    /// The number of elements each lane holds.
    pub const ELEMENTS: usize = 4;

    /// An accumulator of zeros.
    #[inline(always)]
    pub const fn zeroed() -> Self {
        Self::from_registers([0.0; 4])
    }

    /// The accumulator whose registers are `registers`.
    #[inline(always)]
    pub const fn from_registers(registers: [f32; 4]) -> Self {
        Accumulator { registers }
    }

    /// The four registers.
    #[inline(always)]
    pub const fn registers(&self) -> [f32; 4] {
        self.registers
    }

    /// The (row, column) in the tile of element `index` of lane `lane`'s fragment.
    ///
    /// # Panics
    /// When `index >= ELEMENTS`.
    #[inline(always)]
    #[track_caller]
    pub fn position_of_lane(lane: u32, index: usize) -> (usize, usize) {
        check_element(index, Self::ELEMENTS);
        let (g, t) = lane_coordinates(lane);
        (g + 8 * (index / 2), 2 * t + index % 2)
    }

    /// The (row, column) in the tile of the calling lane's element `index`.
    ///
    /// # Panics
    /// When `index >= ELEMENTS`.
    #[inline(always)]
    #[track_caller]
    pub fn position(index: usize) -> (usize, usize) {
        Self::position_of_lane(crate::warp::lane_id(), index)
    }

    /// Element `index` of this lane's fragment.
    ///
    /// # Panics
    /// When `index >= ELEMENTS`.
    #[inline(always)]
    #[track_caller]
    pub fn element(&self, index: usize) -> f32 {
        check_element(index, Self::ELEMENTS);
        self.registers[index % 4]
    }

    /// Sets element `index` of this lane's fragment.
    ///
    /// # Panics
    /// When `index >= ELEMENTS`.
    #[inline(always)]
    #[track_caller]
    pub fn set_element(&mut self, index: usize, value: f32) {
        check_element(index, Self::ELEMENTS);
        self.registers[index % 4] = value;
    }

    /// The calling lane's fragment of the 16 x 8 tile whose top-left element is at `origin` in
    /// `source`, laid out as `layout` says.
    ///
    /// # Panics
    /// When an element of the tile is outside `source` (its bounds check).
    #[inline(always)]
    #[track_caller]
    pub fn load(source: &impl TileSource<f32>, origin: (usize, usize), layout: TileLayout) -> Self {
        let mut accumulator = Self::zeroed();
        let lane = crate::warp::lane_id();
        for index in 0..Self::ELEMENTS {
            let (row, col) = layout.locate(origin, Self::position_of_lane(lane, index));
            accumulator.registers[index] = source.element_at(row, col);
        }
        accumulator
    }

    /// Writes the calling lane's elements into the 16 x 8 tile whose top-left element is at
    /// `origin` in `sink`, laid out as `layout` says. The 32 lanes together write the whole
    /// tile.
    ///
    /// # Panics
    /// When an element of the tile is outside `sink` (its bounds check).
    #[inline(always)]
    #[track_caller]
    pub fn store(&self, sink: &mut impl TileSink<f32>, origin: (usize, usize), layout: TileLayout) {
        let lane = crate::warp::lane_id();
        for index in 0..Self::ELEMENTS {
            let (row, col) = layout.locate(origin, Self::position_of_lane(lane, index));
            sink.set_element_at(row, col, self.registers[index]);
        }
    }
}

/// The bits of element `index` in packed registers.
#[inline(always)]
pub(crate) fn read_packed<T: MmaInput>(registers: &[u32], index: usize) -> u32 {
    let per = T::PER_REGISTER;
    let word = registers[(index / per) % registers.len()];
    if per == 1 {
        word
    } else {
        (word >> (16 * (index % 2))) & 0xffff
    }
}

/// Writes the bits of element `index` into packed registers.
#[inline(always)]
fn write_packed<T: MmaInput>(registers: &mut [u32], index: usize, bits: u32) {
    let per = T::PER_REGISTER;
    let len = registers.len();
    let word = &mut registers[(index / per) % len];
    if per == 1 {
        *word = bits;
    } else {
        let shift = 16 * (index % 2);
        *word = (*word & !(0xffff << shift)) | ((bits & 0xffff) << shift);
    }
}

/// The input types [`mma_sync`] can execute on this build's target: all three on the simulator,
/// and on the GPU when the kernel crate is compiled for sm_80 or newer. Implemented by the
/// backends; the bound of [`mma_sync`] turns a call on an older architecture into a compile
/// error that says so.
#[diagnostic::on_unimplemented(
    message = "`mma_sync` needs an sm_80 or newer GPU architecture, and this kernel crate is built for an older one",
    label = "`mma.sync` does not exist before sm_80",
    note = "build the kernels with `FERROCUDA_ARCH=sm_80` or newer (`sm_90` for Hopper); code that must also build for older targets can sit under `#[cfg(any(not(target_arch = \"nvptx64\"), target_feature = \"sm_80\"))]`"
)]
pub trait TensorCoreInput: MmaInput {
    /// `D = A * B + C` on the registers of the calling lane.
    #[doc(hidden)]
    #[track_caller]
    fn __mma(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4];
}

/// `D = A * B + C` by the warp's tensor cores (`mma.sync.aligned.m16n8k16.row.col` for f16 and
/// bf16, `m16n8k8` for tf32): every lane passes its fragments of `a`, `b` and `c` and gets its
/// fragment of `D`.
///
/// All 32 lanes of the warp must call it together, converged (see the
/// [module documentation](self#convergence-and-architecture)); sm_80 or newer on the GPU.
#[inline(always)]
#[track_caller]
pub fn mma_sync<T: TensorCoreInput>(
    a: &FragmentA<T>,
    b: &FragmentB<T>,
    c: &Accumulator,
) -> Accumulator {
    Accumulator::from_registers(T::__mma(a.registers, b.registers, c.registers))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tf32_rounding_is_to_nearest_ties_away() {
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: away from zero.
        assert_eq!(round_to_tf32_bits(0x3f80_1000), 0x3f80_2000);
        assert_eq!(round_to_tf32_bits(0xbf80_1000), 0xbf80_2000);
        assert_eq!(round_to_tf32_bits(0x3f80_0fff), 0x3f80_0000);
        // Carry into the exponent.
        assert_eq!(round_to_tf32_bits(0x3fff_f000), 0x4000_0000);
        // Infinity stays, NaN stays NaN.
        assert_eq!(round_to_tf32_bits(0x7f80_0000), 0x7f80_0000);
        assert!(f32::from_bits(round_to_tf32_bits(0x7fc0_0001)).is_nan());
    }

    #[test]
    fn packed_elements_round_trip() {
        let mut a = FragmentA::<F16>::zeroed();
        for i in 0..8 {
            a.set_element(i, crate::half::f16::from_bits(0x100 + i as u16));
        }
        assert_eq!(
            a.registers(),
            [0x0101_0100, 0x0103_0102, 0x0105_0104, 0x0107_0106]
        );
        assert_eq!(a.element(5).to_bits(), 0x105);
        let mut b = FragmentB::<Tf32>::zeroed();
        b.set_element(1, 1.5);
        assert_eq!(b.registers(), [0, 1.5f32.to_bits()]);
    }
}
