//! `mma.sync` on the simulator: each lane hands its registers to the simulator as a warp
//! operation ([`WarpOp::Mma`]); when all 32 lanes have arrived, the simulator calls
//! [`execute_warp_mma`], which rebuilds `A`, `B` and `C` from the 32 fragments with the PTX ISA
//! layout of `mma.rs` and gives every lane its fragment of `D`.

use crate::mma::{
    Accumulator, FragmentA, FragmentB, MmaInput, MmaType, TensorCoreInput, read_packed,
    round_to_tf32_bits,
};
use crate::sim::{self, WarpOp};
use crate::warp::WARP_SIZE;
use core::panic::Location;

/// `value` rounded to tf32, by the bit arithmetic the hardware does for `cvt.rna.tf32.f32`.
#[inline]
pub(crate) fn round_to_tf32(value: f32) -> f32 {
    f32::from_bits(round_to_tf32_bits(value.to_bits()))
}

impl<T: MmaInput> TensorCoreInput for T {
    #[track_caller]
    fn __mma(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
        check_full_warp();
        let mut d = [0u32; 4];
        let op = WarpOp::Mma {
            input: T::TYPE,
            a,
            b,
            c: c.map(f32::to_bits),
            d: &mut d,
        };
        sim::hooks().warp(op, Location::caller());
        d.map(f32::from_bits)
    }
}

/// Panics unless the calling thread's warp has 32 threads (`mma.sync` needs them all; a block
/// whose size is not a multiple of 32 has a partial last warp).
#[track_caller]
fn check_full_warp() {
    let context = sim::current();
    let block = context.block_dim;
    let threads = block.x as usize * block.y as usize * block.z as usize;
    let rank = crate::index::thread_rank() as usize;
    let base = rank - rank % WARP_SIZE as usize;
    if base + WARP_SIZE as usize > threads {
        panic!(
            "mma_sync needs all 32 lanes of a warp, but this thread's warp has only {} threads \
             (a block of {threads} threads; use a multiple of 32)",
            threads - base
        );
    }
}

/// The operands one lane passed to an `mma`: its registers of `A`, `B` and `C` (`f32` bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaneOperands {
    /// The four registers of `A`.
    pub a: [u32; 4],
    /// The two registers of `B`.
    pub b: [u32; 2],
    /// The four registers of `C`, as `f32` bits.
    pub c: [u32; 4],
}

/// Executes one warp's `mma` of input type `input` on the 32 lanes' operands: returns each
/// lane's four registers of `D` (`f32` bits). Each element of `D` is
/// `C[r][c] + sum_k A[r][k] * B[k][c]` summed in `f64` (the products are exact) and rounded
/// once to `f32`.
pub fn execute_warp_mma(input: MmaType, lanes: &[LaneOperands; 32]) -> [[u32; 4]; 32] {
    match input {
        MmaType::F16 => execute::<crate::mma::F16>(lanes, f16_to_f64),
        MmaType::Bf16 => {
            execute::<crate::mma::Bf16>(lanes, |bits| f32::from_bits(bits << 16) as f64)
        }
        // The hardware reads the tf32 bits of the register: sign, exponent, 10 mantissa bits.
        MmaType::Tf32 => {
            execute::<crate::mma::Tf32>(lanes, |bits| f32::from_bits(bits & 0xffff_e000) as f64)
        }
    }
}

/// [`execute_warp_mma`] for one input type, with the decoding of an element's bits.
fn execute<T: MmaInput>(lanes: &[LaneOperands; 32], decode: fn(u32) -> f64) -> [[u32; 4]; 32] {
    let k = T::K;
    let mut a = [[0f64; 16]; 16];
    let mut b = [[0f64; 8]; 16];
    let mut c = [[0f64; 8]; 16];
    for (lane, operands) in lanes.iter().enumerate() {
        let lane = lane as u32;
        for index in 0..FragmentA::<T>::ELEMENTS {
            let (row, col) = FragmentA::<T>::position_of_lane(lane, index);
            a[row][col] = decode(read_packed::<T>(&operands.a, index));
        }
        for index in 0..FragmentB::<T>::ELEMENTS {
            let (row, col) = FragmentB::<T>::position_of_lane(lane, index);
            b[row][col] = decode(read_packed::<T>(&operands.b, index));
        }
        for index in 0..Accumulator::ELEMENTS {
            let (row, col) = Accumulator::position_of_lane(lane, index);
            c[row][col] = f32::from_bits(operands.c[index]) as f64;
        }
    }
    let mut d = [[0u32; 4]; 32];
    for (lane, registers) in d.iter_mut().enumerate() {
        for (index, register) in registers.iter_mut().enumerate() {
            let (row, col) = Accumulator::position_of_lane(lane as u32, index);
            let sum = (0..k).fold(c[row][col], |sum, i| sum + a[row][i] * b[i][col]);
            *register = (sum as f32).to_bits();
        }
    }
    d
}

/// The value of IEEE binary16 bits.
fn f16_to_f64(bits: u32) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = ((bits >> 10) & 0x1f) as i32;
    let mantissa = (bits & 0x3ff) as f64;
    let magnitude = match exponent {
        0 => mantissa * 2f64.powi(-24),
        31 if mantissa == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1024.0 + mantissa) * 2f64.powi(exponent - 25),
    };
    sign * magnitude
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_decoding() {
        assert_eq!(f16_to_f64(0x3c00), 1.0);
        assert_eq!(f16_to_f64(0xc000), -2.0);
        assert_eq!(f16_to_f64(0x7bff), 65504.0);
        assert_eq!(f16_to_f64(0x0001), 2f64.powi(-24));
        assert_eq!(f16_to_f64(0x3555), 0.333_251_953_125);
        assert!(f16_to_f64(0x7c01).is_nan());
        assert_eq!(f16_to_f64(0xfc00), f64::NEG_INFINITY);
    }
}
