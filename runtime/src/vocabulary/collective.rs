//! The words of collective operations across devices: the reduction ([`ReduceOp`]), the element
//! types a collective moves ([`CollectiveElement`], [`ElementType`]), and the host-side
//! reduction the simulator computes them with.
//!
//! The element types are those NCCL reduces: 8-, 32- and 64-bit integers, `f16`, `bf16`, `f32`
//! and `f64`. The simulator reduces half-precision values in `f32` and rounds each partial
//! result back, as a GPU reducing in half precision does.

use crate::DeviceCopy;
use crate::device::half::{bf16, f16};

/// How a reducing collective combines the values of the ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// The sum.
    Sum,
    /// The product.
    Prod,
    /// The smallest value.
    Min,
    /// The largest value.
    Max,
}

impl std::fmt::Display for ReduceOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "product",
            ReduceOp::Min => "minimum",
            ReduceOp::Max => "maximum",
        })
    }
}

/// The element type of a collective, as the communication library names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementType {
    /// `i8`.
    I8,
    /// `u8`.
    U8,
    /// `i32`.
    I32,
    /// `u32`.
    U32,
    /// `i64`.
    I64,
    /// `u64`.
    U64,
    /// IEEE half precision ([`f16`](struct@f16)).
    F16,
    /// bfloat16 ([`bf16`]).
    Bf16,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

mod sealed {
    /// Only the element types NCCL reduces implement [`super::CollectiveElement`].
    pub trait Sealed {}
}

/// An element type the collectives of a [`Communicator`](crate::Communicator) move and reduce:
/// `i8`, `u8`, `i32`, `u32`, `i64`, `u64`, [`f16`](struct@f16), [`bf16`], `f32`, `f64`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an element type of the collectives",
    note = "collectives move and reduce i8, u8, i32, u32, i64, u64, f16, bf16, f32 and f64 (the types NCCL reduces)"
)]
pub trait CollectiveElement: DeviceCopy + sealed::Sealed + PartialEq + std::fmt::Debug {
    /// The type, as the communication library names it.
    const TYPE: ElementType;

    /// `a` combined with `b` by `op`, as the simulator computes it (integers wrap, as on a GPU).
    fn combine(a: Self, b: Self, op: ReduceOp) -> Self;
}

macro_rules! integer_element {
    ($($t:ty => $kind:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl CollectiveElement for $t {
            const TYPE: ElementType = ElementType::$kind;
            fn combine(a: Self, b: Self, op: ReduceOp) -> Self {
                match op {
                    ReduceOp::Sum => a.wrapping_add(b),
                    ReduceOp::Prod => a.wrapping_mul(b),
                    ReduceOp::Min => a.min(b),
                    ReduceOp::Max => a.max(b),
                }
            }
        }
    )*};
}
integer_element!(i8 => I8, u8 => U8, i32 => I32, u32 => U32, i64 => I64, u64 => U64);

macro_rules! float_element {
    ($($t:ty => $kind:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl CollectiveElement for $t {
            const TYPE: ElementType = ElementType::$kind;
            fn combine(a: Self, b: Self, op: ReduceOp) -> Self {
                match op {
                    ReduceOp::Sum => a + b,
                    ReduceOp::Prod => a * b,
                    ReduceOp::Min => a.min(b),
                    ReduceOp::Max => a.max(b),
                }
            }
        }
    )*};
}
float_element!(f32 => F32, f64 => F64);

macro_rules! half_element {
    ($($t:ty => $kind:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl CollectiveElement for $t {
            const TYPE: ElementType = ElementType::$kind;
            fn combine(a: Self, b: Self, op: ReduceOp) -> Self {
                // In `f32`, rounded once to the half type.
                <$t>::from_f32(f32::combine(a.to_f32(), b.to_f32(), op))
            }
        }
    )*};
}
half_element!(f16 => F16, bf16 => Bf16);

/// `accumulator[i] = combine(accumulator[i], other[i], op)` for `count` elements of `T` given as
/// bytes: the simulator's reduction, monomorphised where the element type is known and handed to
/// the backend as a function pointer.
///
/// # Safety
/// `accumulator` and `other` are valid for `count` elements of `T` (reads and, for
/// `accumulator`, writes; any alignment).
pub(crate) unsafe fn combine_bytes<T: CollectiveElement>(
    accumulator: *mut u8,
    other: *const u8,
    count: usize,
    op: ReduceOp,
) {
    let (accumulator, other) = (accumulator.cast::<T>(), other.cast::<T>());
    for i in 0..count {
        // SAFETY: the caller guarantees `count` elements behind both pointers; unaligned
        // accesses need no alignment, and any bits are a valid `T` (DeviceCopy).
        unsafe {
            let a = accumulator.add(i).read_unaligned();
            let b = other.add(i).read_unaligned();
            accumulator.add(i).write_unaligned(T::combine(a, b, op));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_wrap_and_floats_follow_ieee() {
        assert_eq!(u8::combine(200, 100, ReduceOp::Sum), 44);
        assert_eq!(i32::combine(i32::MAX, 2, ReduceOp::Prod), -2);
        assert_eq!(i64::combine(-3, 7, ReduceOp::Min), -3);
        assert_eq!(u64::combine(3, 7, ReduceOp::Max), 7);
        assert_eq!(f32::combine(1.5, 2.25, ReduceOp::Sum), 3.75);
        assert_eq!(f64::combine(-1.0, 2.0, ReduceOp::Min), -1.0);
        // 2048 + 1 is not representable in f16: rounds to even, 2048.
        let sum = f16::combine(f16::from_f32(2048.0), f16::from_f32(1.0), ReduceOp::Sum);
        assert_eq!(sum.to_f32(), 2048.0);
        let product = bf16::combine(bf16::from_f32(3.0), bf16::from_f32(-0.5), ReduceOp::Prod);
        assert_eq!(product.to_f32(), -1.5);
    }
}
