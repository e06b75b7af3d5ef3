//! Warp matrix multiply-accumulate (`mma_sync`, `device/src/mma.rs`) on the simulator and the
//! GPU, against references that share nothing with the device code: the fragment layouts are
//! written out here from the PTX ISA's formulas, f16/bf16 values come from the `half` crate,
//! tf32 rounding is done in `f64`, and products are summed in `f64`.
//!
//! On a GPU the kernels need PTX for sm_80 or newer (`FERROCUDA_ARCH=sm_90`, as
//! `scripts/gpu-bundle.sh` builds it); PTX for an older target carries stubs that leave the
//! `ran` flag at 0, and the GPU variants then say they skipped. The simulator always runs them.
//!
//! Tolerance against the `f64` reference: `2^-18 * (|c| + sum_k |a b|)` per element. The
//! simulator rounds the exact sum once (error at most 2^-24 of the result); the PTX ISA leaves
//! the tensor cores' accumulation order and rounding unspecified, and they keep fewer bits.

use ferrocuda::prelude::*;
use ferrocuda::{Error, SimulatorFault};
use ferrocuda_tests::{device_tests, expect_panic, rng};
use half::{bf16, f16};
use rand::Rng;
use test_kernels::mma::{
    GEMM_BLOCK, mma_gemm_bf16, mma_gemm_f16, mma_gemm_tf32, mma_half_warp,
    mma_loaded_registers_f16, mma_loaded_registers_tf32, mma_mixed_inputs, mma_registers_bf16,
    mma_registers_f16, mma_registers_tf32, mma_round_to_tf32, mma_tile_bf16, mma_tile_f16,
    mma_tile_tf32,
};

/// The input types, as the references see them.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Input {
    F16,
    Bf16,
    Tf32,
}

impl Input {
    /// The K of the shape.
    fn k(self) -> usize {
        if self == Input::Tf32 { 8 } else { 16 }
    }
}

/// `group` and `threadID_in_group` of the PTX ISA.
fn group(lane: usize) -> (usize, usize) {
    (lane >> 2, lane % 4)
}

/// The PTX ISA's (row, col) of element `i` of lane `lane`'s A fragment.
fn isa_a(input: Input, lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = group(lane);
    match input {
        // "row = groupID for ai where 0 <= i < 2 || 4 <= i < 6, groupID + 8 otherwise;
        //  col = threadID_in_group * 2 + (i & 0x1) for i < 4, ... + 8 for i >= 4"
        Input::F16 | Input::Bf16 => {
            let row = if i < 2 || (4..6).contains(&i) {
                g
            } else {
                g + 8
            };
            let col = if i < 4 {
                t * 2 + (i & 1)
            } else {
                t * 2 + (i & 1) + 8
            };
            (row, col)
        }
        // "row = groupID for a0 and a2, groupID + 8 for a1 and a3;
        //  col = threadID_in_group for a0 and a1, threadID_in_group + 4 for a2 and a3"
        Input::Tf32 => {
            let row = if i == 0 || i == 2 { g } else { g + 8 };
            let col = if i < 2 { t } else { t + 4 };
            (row, col)
        }
    }
}

/// The PTX ISA's (row, col) of element `i` of lane `lane`'s B fragment.
fn isa_b(input: Input, lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = group(lane);
    match input {
        // "row = threadID_in_group * 2 + (i & 0x1) for bi where i < 2, ... + 8 for i >= 2;
        //  col = groupID"
        Input::F16 | Input::Bf16 => {
            let row = if i < 2 {
                t * 2 + (i & 1)
            } else {
                t * 2 + (i & 1) + 8
            };
            (row, g)
        }
        // "row = threadID_in_group for b0, threadID_in_group + 4 for b1; col = groupID"
        Input::Tf32 => (if i == 0 { t } else { t + 4 }, g),
    }
}

/// The PTX ISA's (row, col) of element `i` of lane `lane`'s C/D fragment.
fn isa_c(lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = group(lane);
    // "row = groupID for ci where i < 2, groupID + 8 for i >= 2; col = threadID_in_group * 2 + (i & 0x1)"
    (if i < 2 { g } else { g + 8 }, t * 2 + (i & 1))
}

/// `x` rounded to tf32 (10 mantissa bits) to nearest, ties away from zero, computed in `f64`.
fn tf32_reference(x: f32) -> f32 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let x = x as f64;
    let exponent = x.abs().log2().floor();
    // Ten mantissa bits; below the normal range, f32's subnormal spacing times 2^13.
    let quantum = 2f64.powf(exponent - 10.0).max(2f64.powi(-136));
    // `f64::round` rounds ties away from zero.
    ((x / quantum).round() * quantum) as f32
}

/// Random elements of an input type: their register bits and their values.
fn random_elements(rng: &mut impl Rng, input: Input, count: usize) -> (Vec<u32>, Vec<f64>) {
    (0..count)
        .map(|_| {
            let x: f32 = rng.random_range(-2.0..2.0);
            match input {
                Input::F16 => {
                    let h = f16::from_f32(x);
                    (h.to_bits() as u32, h.to_f64())
                }
                Input::Bf16 => {
                    let h = bf16::from_f32(x);
                    (h.to_bits() as u32, h.to_f64())
                }
                Input::Tf32 => (x.to_bits(), tf32_reference(x) as f64),
            }
        })
        .unzip()
}

/// `c + a * b` in `f64` (row-major `a` m x k, `b` k x n, `c` m x n), and the tolerance of each
/// element.
fn reference(
    a: &[f64],
    b: &[f64],
    c: &[f64],
    (m, n, k): (usize, usize, usize),
) -> (Vec<f64>, Vec<f64>) {
    let mut out = vec![0.0; m * n];
    let mut tolerance = vec![0.0; m * n];
    for row in 0..m {
        for col in 0..n {
            let mut sum = c[row * n + col];
            let mut magnitude = sum.abs();
            for i in 0..k {
                let product = a[row * k + i] * b[i * n + col];
                sum += product;
                magnitude += product.abs();
            }
            out[row * n + col] = sum;
            tolerance[row * n + col] = magnitude * 2f64.powi(-18) + 1e-30;
        }
    }
    (out, tolerance)
}

/// Checks `got` against `expected` within `tolerance`, naming the first element off.
#[track_caller]
fn assert_within(what: &str, got: &[f32], expected: &[f64], tolerance: &[f64], cols: usize) {
    assert_eq!(got.len(), expected.len(), "{what}: length");
    for (i, ((&g, &e), &t)) in got.iter().zip(expected).zip(tolerance).enumerate() {
        assert!(
            (g as f64 - e).abs() <= t,
            "{what}: element ({}, {}) is {g}, expected {e} within {t}",
            i / cols,
            i % cols
        );
    }
}

/// `data` on `device`.
fn up<T: ferrocuda::DeviceCopy>(device: &Device, data: &[T]) -> DeviceBuffer<T> {
    DeviceBuffer::from_slice(device, data).unwrap()
}

/// Element bits as ferrocuda's `f16`.
fn to_f16(bits: &[u32]) -> Vec<ferrocuda::device::half::f16> {
    bits.iter()
        .map(|&x| ferrocuda::device::half::f16::from_bits(x as u16))
        .collect()
}

/// Element bits as ferrocuda's `bf16`.
fn to_bf16(bits: &[u32]) -> Vec<ferrocuda::device::half::bf16> {
    bits.iter()
        .map(|&x| ferrocuda::device::half::bf16::from_bits(x as u16))
        .collect()
}

/// Element bits as `f32` (tf32).
fn to32(bits: &[u32]) -> Vec<f32> {
    bits.iter().map(|&x| f32::from_bits(x)).collect()
}

/// Whether the kernel's real body ran; on a GPU with pre-sm_80 PTX it did not, and the test
/// says it skipped.
fn ran(device: &Device, ran: &[u32], test: &str) -> bool {
    if ran[0] == 1 {
        return true;
    }
    assert!(
        !device.is_simulator(),
        "{test}: the simulator must run the tensor-core body"
    );
    eprintln!(
        "skipped {test} on the GPU: the test kernels' PTX predates sm_80 (build them with \
         FERROCUDA_ARCH=sm_80 or newer, as scripts/gpu-bundle.sh does)"
    );
    false
}

/// `tile`: one warp, one tile loaded in each combination of row- and column-major storage.
fn check_tile(device: &Device, input: Input) {
    let k = input.k();
    let mut rng = rng(&format!("mma_tile_{input:?}"));
    let (a_bits, a) = random_elements(&mut rng, input, 16 * k);
    let (b_bits, b) = random_elements(&mut rng, input, k * 8);
    let c: Vec<f32> = (0..16 * 8).map(|_| rng.random_range(-4.0..4.0)).collect();
    let c64: Vec<f64> = c.iter().map(|&x| x as f64).collect();
    let (expected, tolerance) = reference(&a, &b, &c64, (16, 8, k));
    for layouts in 0..4u32 {
        // Column-major storage holds the transpose.
        let transpose = |bits: &[u32], rows: usize, cols: usize| -> Vec<u32> {
            (0..rows * cols)
                .map(|i| bits[(i % rows) * cols + i / rows])
                .collect()
        };
        let a_stored = if layouts & 1 == 0 {
            a_bits.clone()
        } else {
            transpose(&a_bits, 16, k)
        };
        let b_stored = if layouts & 2 == 0 {
            b_bits.clone()
        } else {
            transpose(&b_bits, k, 8)
        };
        let mut d = DeviceBuffer::<f32>::zeros(device, 16 * 8).unwrap();
        let mut flag = DeviceBuffer::<u32>::zeros(device, 1).unwrap();
        let (ah, bh) = (
            up(device, &to_f16(&a_stored)),
            up(device, &to_f16(&b_stored)),
        );
        let (ab, bb) = (
            up(device, &to_bf16(&a_stored)),
            up(device, &to_bf16(&b_stored)),
        );
        let (a32, b32) = (up(device, &to32(&a_stored)), up(device, &to32(&b_stored)));
        let c = up(device, &c);
        match input {
            Input::F16 => launch!(mma_tile_f16[1, 32](&ah, &bh, &c, &mut d, layouts, &mut flag)),
            Input::Bf16 => {
                launch!(mma_tile_bf16[1, 32](&ab, &bb, &c, &mut d, layouts, &mut flag))
            }
            Input::Tf32 => {
                launch!(mma_tile_tf32[1, 32](&a32, &b32, &c, &mut d, layouts, &mut flag))
            }
        }
        .unwrap();
        if !ran(
            device,
            &flag.to_vec().unwrap(),
            &format!("mma tile {input:?}"),
        ) {
            return;
        }
        let d = d.to_vec().unwrap();
        assert_within(
            &format!("{input:?} tile, layouts {layouts}"),
            &d,
            &expected,
            &tolerance,
            8,
        );
    }
}

/// `registers`: the host lays out A, B and C in registers by the ISA's formulas and reads D
/// back by them, so a layout mistake anywhere (device code or simulator) shows on the GPU.
fn check_registers(device: &Device, input: Input) {
    let k = input.k();
    let mut rng = rng(&format!("mma_registers_{input:?}"));
    let (a_bits, a) = random_elements(&mut rng, input, 16 * k);
    let (b_bits, b) = random_elements(&mut rng, input, k * 8);
    let c: Vec<f32> = (0..16 * 8).map(|_| rng.random_range(-4.0..4.0)).collect();
    // tf32 registers hold the value rounded to tf32, one per register; 16-bit types two per
    // register, the lower-numbered element in the low half.
    let a_bits: Vec<u32> = match input {
        Input::Tf32 => a.iter().map(|&x| (x as f32).to_bits()).collect(),
        _ => a_bits,
    };
    let b_bits: Vec<u32> = match input {
        Input::Tf32 => b.iter().map(|&x| (x as f32).to_bits()).collect(),
        _ => b_bits,
    };
    let per_register = if input == Input::Tf32 { 1 } else { 2 };
    let mut a_registers = vec![0u32; 32 * 4];
    let mut b_registers = vec![0u32; 32 * 2];
    let mut c_registers = vec![0f32; 32 * 4];
    for lane in 0..32 {
        for i in 0..4 * per_register {
            let (row, col) = isa_a(input, lane, i);
            let shift = 16 * (i % per_register);
            a_registers[lane * 4 + i / per_register] |= a_bits[row * k + col] << shift;
        }
        for i in 0..2 * per_register {
            let (row, col) = isa_b(input, lane, i);
            let shift = 16 * (i % per_register);
            b_registers[lane * 2 + i / per_register] |= b_bits[row * 8 + col] << shift;
        }
        for i in 0..4 {
            let (row, col) = isa_c(lane, i);
            c_registers[lane * 4 + i] = c[row * 8 + col];
        }
    }
    let mut d_buffer = DeviceBuffer::<f32>::zeros(device, 32 * 4).unwrap();
    let mut flag = DeviceBuffer::<u32>::zeros(device, 1).unwrap();
    let (ar, br, cr) = (
        &up(device, &a_registers),
        &up(device, &b_registers),
        &up(device, &c_registers),
    );
    match input {
        Input::F16 => launch!(mma_registers_f16[1, 32](ar, br, cr, &mut d_buffer, &mut flag)),
        Input::Bf16 => launch!(mma_registers_bf16[1, 32](ar, br, cr, &mut d_buffer, &mut flag)),
        Input::Tf32 => launch!(mma_registers_tf32[1, 32](ar, br, cr, &mut d_buffer, &mut flag)),
    }
    .unwrap();
    if !ran(
        device,
        &flag.to_vec().unwrap(),
        &format!("mma registers {input:?}"),
    ) {
        return;
    }
    let d_registers = d_buffer.to_vec().unwrap();
    let mut d = vec![f32::NAN; 16 * 8];
    for lane in 0..32 {
        for i in 0..4 {
            let (row, col) = isa_c(lane, i);
            d[row * 8 + col] = d_registers[lane * 4 + i];
        }
    }
    let c64: Vec<f64> = c.iter().map(|&x| x as f64).collect();
    let (expected, tolerance) = reference(&a, &b, &c64, (16, 8, k));
    assert_within(
        &format!("{input:?} registers"),
        &d,
        &expected,
        &tolerance,
        8,
    );
}

/// `loaded_registers`: each register holds the elements the ISA names, and the fragments'
/// `position` functions agree with the ISA.
fn check_loaded_registers(device: &Device, input: Input) {
    let k = input.k();
    // Distinct elements: A (r, c) -> base + 16r + c, B -> base + 8r + c, C -> 8r + c + 0.5. As
    // f16 bits any values do; as tf32 they must be exact in 11 significant bits.
    let (a_base, b_base) = if input == Input::Tf32 {
        (1, 300)
    } else {
        (0x1000, 0x2000)
    };
    let a_bits: Vec<u32> = (0..16 * k)
        .map(|i| a_base + (i / k * 16 + i % k) as u32)
        .collect();
    let b_bits: Vec<u32> = (0..k * 8)
        .map(|i| b_base + (i / 8 * 8 + i % 8) as u32)
        .collect();
    let c: Vec<f32> = (0..16 * 8).map(|i| i as f32 + 0.5).collect();
    let mut out = DeviceBuffer::<u32>::zeros(device, 32 * 10).unwrap();
    let mut positions = up(device, &vec![u32::MAX; 32 * 16]);
    let mut flag = DeviceBuffer::<u32>::zeros(device, 1).unwrap();
    let c_buffer = up(device, &c);
    match input {
        Input::F16 => {
            let (a, b) = (up(device, &to_f16(&a_bits)), up(device, &to_f16(&b_bits)));
            launch!(mma_loaded_registers_f16[1, 32](&a, &b, &c_buffer, &mut out, &mut positions, &mut flag))
        }
        _ => {
            let a: Vec<f32> = a_bits.iter().map(|&x| x as f32).collect();
            let b: Vec<f32> = b_bits.iter().map(|&x| x as f32).collect();
            let (a, b) = (up(device, &a), up(device, &b));
            launch!(mma_loaded_registers_tf32[1, 32](&a, &b, &c_buffer, &mut out, &mut positions, &mut flag))
        }
    }
    .unwrap();
    if !ran(
        device,
        &flag.to_vec().unwrap(),
        &format!("mma loaded registers {input:?}"),
    ) {
        return;
    }
    let (out, positions) = (out.to_vec().unwrap(), positions.to_vec().unwrap());
    let per_register = if input == Input::Tf32 { 1 } else { 2 };
    let element_bits = |value: u32| -> u32 {
        if input == Input::Tf32 {
            (value as f32).to_bits()
        } else {
            value
        }
    };
    for lane in 0..32 {
        let registers = &out[lane * 10..lane * 10 + 10];
        let mut expected = [0u32; 10];
        for i in 0..4 * per_register {
            let (row, col) = isa_a(input, lane, i);
            expected[i / per_register] |=
                element_bits(a_bits[row * k + col]) << (16 * (i % per_register));
            assert_eq!(
                positions[lane * 16 + i],
                (row * 16 + col) as u32,
                "lane {lane}: position of A element {i}"
            );
        }
        for i in 0..2 * per_register {
            let (row, col) = isa_b(input, lane, i);
            expected[4 + i / per_register] |=
                element_bits(b_bits[row * 8 + col]) << (16 * (i % per_register));
            assert_eq!(
                positions[lane * 16 + 8 + i],
                (row * 16 + col) as u32,
                "lane {lane}: position of B element {i}"
            );
        }
        for i in 0..4 {
            let (row, col) = isa_c(lane, i);
            expected[6 + i] = c[row * 8 + col].to_bits();
            assert_eq!(
                positions[lane * 16 + 12 + i],
                (row * 16 + col) as u32,
                "lane {lane}: position of C element {i}"
            );
        }
        assert_eq!(
            registers, expected,
            "lane {lane}: registers of A (4), B (2), C (4)"
        );
    }
}

/// `gemm`: many warps, sizes that are not multiples of the tile (zero padding by the caller).
fn check_gemm(device: &Device, input: Input, (m, n, k): (usize, usize, usize)) {
    let mut rng = rng(&format!("mma_gemm_{input:?}"));
    let (a_bits, a) = random_elements(&mut rng, input, m * k);
    let (b_bits, b) = random_elements(&mut rng, input, k * n);
    let (expected, tolerance) = reference(&a, &b, &vec![0.0; m * n], (m, n, k));
    let tiles = m.div_ceil(16) * n.div_ceil(8);
    let grid = (tiles * 32).div_ceil(GEMM_BLOCK as usize) as u32;
    let mut c = up(device, &vec![f32::NAN; m * n]);
    let mut flag = DeviceBuffer::<u32>::zeros(device, 1).unwrap();
    let (m32, n32, k32) = (m as u32, n as u32, k as u32);
    let (ah, bh) = (up(device, &to_f16(&a_bits)), up(device, &to_f16(&b_bits)));
    let (ab, bb) = (up(device, &to_bf16(&a_bits)), up(device, &to_bf16(&b_bits)));
    let (a32, b32) = (up(device, &to32(&a_bits)), up(device, &to32(&b_bits)));
    match input {
        Input::F16 => {
            launch!(mma_gemm_f16[grid, GEMM_BLOCK](&ah, &bh, &mut c, m32, n32, k32, &mut flag))
        }
        Input::Bf16 => {
            launch!(mma_gemm_bf16[grid, GEMM_BLOCK](&ab, &bb, &mut c, m32, n32, k32, &mut flag))
        }
        Input::Tf32 => {
            launch!(mma_gemm_tf32[grid, GEMM_BLOCK](&a32, &b32, &mut c, m32, n32, k32, &mut flag))
        }
    }
    .unwrap();
    if !ran(
        device,
        &flag.to_vec().unwrap(),
        &format!("mma gemm {input:?}"),
    ) {
        return;
    }
    let c = c.to_vec().unwrap();
    assert_within(
        &format!("{input:?} gemm {m}x{n}x{k}"),
        &c,
        &expected,
        &tolerance,
        n,
    );
}

device_tests! {
    fn round_to_tf32_is_to_nearest_ties_away(device) {
        let mut rng = rng("round_to_tf32");
        let mut input: Vec<f32> = (0..2000)
            .map(|_| f32::from_bits(rng.random::<u32>() & 0xbfff_ffff))
            .collect();
        // Ties (the dropped bits exactly half of the last kept one) of both signs, values just
        // below and above them, the largest finite value (rounds to infinity), subnormals,
        // zeros and infinities.
        for bits in [0x3f80_1000u32, 0xbf80_1000, 0x3f80_0fff, 0x3f80_1001, 0x4049_3000, 0x3fff_f000] {
            input.push(f32::from_bits(bits));
        }
        input.extend([f32::MAX, -f32::MAX, 1e-40, -3e-39, 0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY]);
        let source = up(device, &input);
        let mut output = DeviceBuffer::<f32>::zeros(device, input.len()).unwrap();
        launch!(mma_round_to_tf32[input.len().div_ceil(256), 256](&source, &mut output)).unwrap();
        for (&x, got) in input.iter().zip(output.to_vec().unwrap()) {
            let expected = tf32_reference(x);
            assert_eq!(got.to_bits(), expected.to_bits(), "tf32 of {x:e} ({:#010x}): got {got:e}, expected {expected:e}", x.to_bits());
        }
    }

    fn mma_tile_f16_matches_f64_reference(device) {
        check_tile(device, Input::F16);
    }

    fn mma_tile_bf16_matches_f64_reference(device) {
        check_tile(device, Input::Bf16);
    }

    fn mma_tile_tf32_matches_f64_reference(device) {
        check_tile(device, Input::Tf32);
    }

    fn mma_registers_follow_the_isa_layout_f16(device) {
        check_registers(device, Input::F16);
    }

    fn mma_registers_follow_the_isa_layout_bf16(device) {
        check_registers(device, Input::Bf16);
    }

    fn mma_registers_follow_the_isa_layout_tf32(device) {
        check_registers(device, Input::Tf32);
    }

    fn mma_loads_put_elements_where_the_isa_says_f16(device) {
        check_loaded_registers(device, Input::F16);
    }

    fn mma_loads_put_elements_where_the_isa_says_tf32(device) {
        check_loaded_registers(device, Input::Tf32);
    }

    fn mma_gemm_f16_with_padding(device) {
        check_gemm(device, Input::F16, (61, 45, 37));
    }

    fn mma_gemm_bf16_64_cubed(device) {
        check_gemm(device, Input::Bf16, (64, 64, 64));
    }

    fn mma_gemm_tf32_with_padding(device) {
        check_gemm(device, Input::Tf32, (33, 20, 19));
    }
}

/// The fault of a launch on the simulator that must be a divergent `mma_sync`.
fn expect_divergent_mma(device: &Device) {
    match device.synchronize() {
        Err(Error::SimulatorFault(fault)) => {
            let text = fault.to_string();
            assert!(
                matches!(*fault, SimulatorFault::DivergentWarpOperation { .. }),
                "expected a divergent warp operation, got {text}"
            );
            assert!(
                text.contains("mma_sync"),
                "the fault names the operation: {text}"
            );
        }
        other => panic!("expected a divergent warp operation fault, got {other:?}"),
    }
}

/// The simulator reports a warp whose lanes do not all reach `mma_sync` (a GPU would hang or
/// compute garbage, so this runs on the simulator only).
#[test]
fn mma_in_half_a_warp_is_a_divergent_warp_operation() {
    let device = Device::simulator();
    let mut out = DeviceBuffer::<f32>::zeros(&device, 32).unwrap();
    let mut flag = DeviceBuffer::<u32>::zeros(&device, 1).unwrap();
    launch!(mma_half_warp[1, 32](&mut out, &mut flag)).unwrap();
    expect_divergent_mma(&device);
}

/// Lanes of one warp that reach `mma_sync` with different input types execute different
/// instructions: a divergent warp operation on the simulator.
#[test]
fn mma_with_mixed_input_types_is_a_divergent_warp_operation() {
    let device = Device::simulator();
    let mut out = DeviceBuffer::<f32>::zeros(&device, 32).unwrap();
    let mut flag = DeviceBuffer::<u32>::zeros(&device, 1).unwrap();
    launch!(mma_mixed_inputs[1, 32](&mut out, &mut flag)).unwrap();
    expect_divergent_mma(&device);
}

/// A warp of fewer than 32 threads (a block of 48) cannot execute `mma_sync`: the simulator
/// stops the thread with a panic naming the warp's size.
#[test]
fn mma_in_a_partial_warp_panics() {
    let device = Device::simulator();
    let a = DeviceBuffer::<u32>::zeros(&device, 48 * 4).unwrap();
    let b = DeviceBuffer::<u32>::zeros(&device, 48 * 2).unwrap();
    let c = DeviceBuffer::<f32>::zeros(&device, 48 * 4).unwrap();
    let mut d = DeviceBuffer::<f32>::zeros(&device, 48 * 4).unwrap();
    let mut flag = DeviceBuffer::<u32>::zeros(&device, 1).unwrap();
    launch!(mma_registers_f16[1, 48](&a, &b, &c, &mut d, &mut flag)).unwrap();
    let panic = expect_panic(device.synchronize());
    assert!(
        panic
            .message
            .contains("mma_sync needs all 32 lanes of a warp")
            && panic.message.contains("only 16 threads"),
        "{}",
        panic.message
    );
}
