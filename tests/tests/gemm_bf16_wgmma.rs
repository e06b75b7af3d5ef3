//! The Hopper bf16 GEMM (`kernels_hopper::gemm_bf16_wgmma`, `wgmma` + TMA on sm_90a) and the
//! device API under it:
//! - on a GPU (an H100 or H200), the GEMM against an `f64` CPU reference over non-uniform random
//!   bf16 inputs, at sizes with one and several blocks in each direction, fewer K-steps than
//!   pipeline stages and more (the stages and both barrier parities are reused);
//! - on the simulator, the refusal of every Hopper instruction with
//!   `SimulatorFault::UnsupportedInstruction` naming it, for the GEMM and for a probe kernel
//!   that reaches each instruction;
//! - on the host, the shape rules of the launch and the tensor-map rules of `TensorMap2d`;
//! - the module's PTX: sm_90a, the instructions, the thread bound, and ptxas's verdict.
//!
//! The tolerance is the one of `tests/gemm_bf16.rs`: `(K / 16) 2^-18 sum_k |A B|` per element.
//! A wrong swizzle, descriptor offset or accumulator layout moves whole elements, giving errors
//! of the size of the elements themselves.

use ferrocuda::device::half::bf16;
use ferrocuda::device::wgmma::{SharedMatrixDescriptor, Swizzle, WarpgroupAccumulatorN256};
use ferrocuda::prelude::*;
use ferrocuda::{Error, SimulatorFault, TensorMap2d};
use ferrocuda_tests::{assert_gemm_close, device_tests, random_bf16};
use kernels_hopper::gemm_bf16_wgmma::{GemmWgmmaError, gemm_bf16_wgmma_launch};
use std::path::{Path, PathBuf};
use std::process::Command;
use test_kernels::hopper::{HOPPER_INSTRUCTIONS, HOPPER_SHARED_BYTES, hopper_instruction};

/// The instruction of an `UnsupportedInstruction` fault (and checks the kernel's name).
fn refused(error: Error, kernel: &str) -> &'static str {
    match error {
        Error::SimulatorFault(fault) => match *fault {
            SimulatorFault::UnsupportedInstruction {
                kernel: ref name,
                instruction,
                ref site,
                ..
            } => {
                assert_eq!(name, kernel);
                let text = fault.to_string();
                assert!(
                    text.contains(&format!("`{instruction}`"))
                        && text.contains("which the simulator cannot execute"),
                    "{text}"
                );
                assert!(site.site.line > 0, "{text}");
                instruction
            }
            other => panic!("expected an unsupported instruction, got {other}"),
        },
        other => panic!("expected a simulator fault, got {other:?}"),
    }
}

/// Runs the GEMM of size `m` x `n` x `k` on `device` and checks every element (on a GPU), or
/// checks that the simulator refuses it.
fn check(device: &Device, m: usize, n: usize, k: usize) {
    let (a, a_values) = random_bf16(&format!("gemm_bf16_wgmma a {m} {n} {k}"), m * k, 4.0);
    let (b, b_values) = random_bf16(&format!("gemm_bf16_wgmma b {m} {n} {k}"), k * n, 4.0);
    let a_dev = DeviceBuffer::from_slice(device, &a).unwrap();
    let b_dev = DeviceBuffer::from_slice(device, &b).unwrap();
    let mut c_dev = DeviceBuffer::from_slice(device, &vec![f32::NAN; m * n]).unwrap();
    let result = gemm_bf16_wgmma_launch(
        &device.default_stream(),
        &a_dev,
        &b_dev,
        &mut c_dev,
        (m, n, k),
    );
    if device.is_simulator() {
        let Err(GemmWgmmaError::Launch(error)) = result else {
            panic!("the simulator ran the wgmma GEMM: {result:?}");
        };
        let instruction = refused(error, "gemm_bf16_wgmma");
        assert!(instruction.starts_with("mbarrier."), "{instruction}");
        return;
    }
    if let Err(GemmWgmmaError::Architecture { capability }) = result {
        eprintln!(
            "skipped: gemm_bf16_wgmma needs compute capability 9.0, this GPU is {capability:?}"
        );
        return;
    }
    result.unwrap();
    let c = c_dev.to_vec().unwrap();
    assert_gemm_close(&c, (&a_values, &b_values), (m, n, k));
}

/// The launch's shape error for `m` x `n` x `k` with buffers of the given lengths.
fn rejected(device: &Device, (m, n, k): (usize, usize, usize), lengths: [usize; 3]) -> String {
    let a = DeviceBuffer::<bf16>::zeros(device, lengths[0]).unwrap();
    let b = DeviceBuffer::<bf16>::zeros(device, lengths[1]).unwrap();
    let mut c = DeviceBuffer::<f32>::zeros(device, lengths[2]).unwrap();
    match gemm_bf16_wgmma_launch(&device.default_stream(), &a, &b, &mut c, (m, n, k)) {
        Err(error @ GemmWgmmaError::Shape(_)) => error.to_string(),
        other => panic!("{m} x {n} x {k}: expected a shape error, got {other:?}"),
    }
}

device_tests! {
    fn gemm_bf16_wgmma_one_block_two_steps(device) {
        check(device, 128, 256, 128);
    }

    fn gemm_bf16_wgmma_two_by_one_blocks_three_steps(device) {
        check(device, 256, 256, 192);
    }

    fn gemm_bf16_wgmma_four_by_two_blocks_nine_steps(device) {
        // 9 K-steps: every stage is used three times, each barrier in both parities.
        check(device, 512, 512, 576);
    }

    fn gemm_bf16_wgmma_nine_block_rows_in_two_groups(device) {
        check(device, 9 * 128, 256, 64);
    }

    fn gemm_bf16_wgmma_rejects_sizes_off_the_tile(device) {
        let message = rejected(device, (100, 256, 64), [100 * 64, 64 * 256, 100 * 256]);
        assert!(message.contains("m = 100") && message.contains("multiple of 128"), "{message}");
        let message = rejected(device, (128, 128, 64), [128 * 64, 64 * 128, 128 * 128]);
        assert!(message.contains("n = 128") && message.contains("n of 256"), "{message}");
        let message = rejected(device, (128, 256, 32), [128 * 32, 32 * 256, 128 * 256]);
        assert!(message.contains("k = 32") && message.contains("k of 64"), "{message}");
        let message = rejected(device, (128, 256, 64), [128 * 64, 64 * 256 - 1, 128 * 256]);
        assert!(
            message.contains("b holds 16383 elements") && message.contains("64 x 256"),
            "{message}"
        );
        let message = rejected(device, (128, 256, 64), [128 * 64, 64 * 256, 128 * 256 - 1]);
        assert!(message.contains("c holds 32767 elements"), "{message}");
    }

    fn tensor_map_rules_are_checked_before_the_driver(device) {
        let buffer = DeviceBuffer::<bf16>::zeros(device, 64 * 1000).unwrap();
        let problem = |shape, boxes, swizzle| match TensorMap2d::new(&buffer, shape, boxes, swizzle) {
            Err(Error::TensorMap(e)) => e.problem,
            Err(other) => panic!("expected a tensor-map error, got {other}"),
            Ok(_) => panic!("{shape:?} {boxes:?} {swizzle:?} was accepted"),
        };
        let m = problem((64, 1001), (64, 64), Swizzle::Bytes128);
        assert!(m.contains("64 x 1001 matrix does not fit in a buffer of 64000"), "{m}");
        let m = problem((640, 100), (64, 64), Swizzle::Bytes128);
        assert!(m.contains("row stride 200 bytes must be a multiple of 16"), "{m}");
        let m = problem((64, 1000), (300, 64), Swizzle::Bytes128);
        assert!(m.contains("box_rows = 300") && m.contains("from 1 to 256"), "{m}");
        let m = problem((64, 1000), (64, 128), Swizzle::Bytes128);
        assert!(m.contains("256 bytes") && m.contains("128-byte span"), "{m}");
        let m = problem((64, 1000), (64, 64), Swizzle::Bytes64);
        assert!(m.contains("128 bytes") && m.contains("64-byte span"), "{m}");
        let m = problem((64, 1000), (8, 4), Swizzle::None);
        assert!(m.contains("8 bytes") && m.contains("multiple of 16 bytes"), "{m}");
        let map = TensorMap2d::new(&buffer, (64, 1000), (64, 64), Swizzle::Bytes128).unwrap();
        assert_eq!(map.box_bytes(), 64 * 64 * 2);
        assert_eq!(map.buffer().len(), 1);
    }
}

#[test]
fn the_simulator_refuses_each_hopper_instruction_by_name() {
    let device = Device::simulator();
    let matrix = DeviceBuffer::<bf16>::zeros(&device, 64 * 64).unwrap();
    let map = TensorMap2d::new(&matrix, (64, 64), (64, 64), Swizzle::Bytes128).unwrap();
    for (case, &expected) in HOPPER_INSTRUCTIONS.iter().enumerate() {
        let error =
            launch!(hopper_instruction[1, 128, &device.default_stream(), HOPPER_SHARED_BYTES](
                case as u32,
                map.buffer()
            ))
            .and_then(|()| device.synchronize())
            .unwrap_err();
        assert_eq!(
            refused(error, "hopper_instruction"),
            expected,
            "case {case}"
        );
    }
}

#[test]
fn descriptors_follow_the_isa_bit_layout() {
    // Start 0x1_2340, leading 8192, stride 1024, 128-byte swizzle.
    let d = SharedMatrixDescriptor::<bf16>::from_parts(0x1_2340, Swizzle::Bytes128, 8192, 1024);
    let bits = d.bits();
    assert_eq!(bits & 0x3fff, 0x1_2340 >> 4, "start address, bits 0-13");
    assert_eq!(
        (bits >> 16) & 0x3fff,
        8192 >> 4,
        "leading byte offset, bits 16-29"
    );
    assert_eq!(
        (bits >> 32) & 0x3fff,
        1024 >> 4,
        "stride byte offset, bits 32-45"
    );
    assert_eq!(
        (bits >> 49) & 7,
        0,
        "base offset, bits 49-51: patterns on their boundary"
    );
    assert_eq!(bits >> 62, 1, "128-byte swizzle, bits 62-63");
    assert_eq!(
        bits & (0b11 << 14 | 0b11 << 30 | 0b111 << 46 | 0x3ff << 52),
        0
    );
    // The 18-bit address wraps to its low bits; other swizzles and none.
    let d = SharedMatrixDescriptor::<bf16>::from_parts(0x4_0400, Swizzle::None, 16, 256);
    assert_eq!(d.bits(), (0x400 >> 4) | (1 << 16) | (16 << 32));
    assert_eq!(
        SharedMatrixDescriptor::<bf16>::from_parts(0, Swizzle::Bytes64, 0, 0).bits() >> 62,
        2
    );
    assert_eq!(
        SharedMatrixDescriptor::<bf16>::from_parts(0, Swizzle::Bytes32, 0, 0).bits() >> 62,
        3
    );
    // `advanced` is the descriptor of the moved start.
    let first = SharedMatrixDescriptor::<bf16>::from_parts(0x8000, Swizzle::Bytes128, 16, 1024);
    for bytes in [32, 96, 2048, 8192 + 32, 16384 + 3 * 128] {
        assert_eq!(
            first.advanced(bytes),
            SharedMatrixDescriptor::from_parts(0x8000 + bytes, Swizzle::Bytes128, 16, 1024),
            "+{bytes}"
        );
    }
}

#[test]
fn the_accumulator_layout_covers_the_64_by_256_tile_once() {
    // ISA 9.7.15.5.1.1: every (row, column) of the m64n256 tile is held by exactly one
    // (thread, register), and each group of four registers is an 8-column slice.
    let mut seen = vec![0u8; 64 * 256];
    for thread in 0..128 {
        for index in 0..128 {
            let (row, col) = WarpgroupAccumulatorN256::position(thread, index);
            seen[row * 256 + col] += 1;
        }
    }
    assert!(seen.iter().all(|&n| n == 1));
    assert_eq!(WarpgroupAccumulatorN256::position(0, 0), (0, 0));
    // Registers 0 and 1 are neighbours in a row, 2 and 3 eight rows below them.
    assert_eq!(WarpgroupAccumulatorN256::position(0, 1), (0, 1));
    assert_eq!(WarpgroupAccumulatorN256::position(0, 2), (8, 0));
    assert_eq!(WarpgroupAccumulatorN256::position(4, 6), (9, 8));
    assert_eq!(WarpgroupAccumulatorN256::position(5, 3), (9, 3));
    assert_eq!(
        WarpgroupAccumulatorN256::position(37, 127),
        (16 + 1 + 8, 248 + 2 + 1)
    );
    assert_eq!(WarpgroupAccumulatorN256::COLUMNS, 256);
}

fn ptxas() -> Option<PathBuf> {
    if let Ok(path) = std::env::var("PTXAS") {
        return Some(PathBuf::from(path));
    }
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.tools/ptxas/ptxas");
    local.exists().then_some(local)
}

#[test]
fn the_hopper_module_is_sm90a_ptx_that_ptxas_accepts_without_spills() {
    let ptx = kernels_hopper::__FERROCUDA_MODULE.ptx;
    assert!(
        ptx.contains(".target sm_90a"),
        "the module is not built for sm_90a"
    );
    assert!(ptx.contains(".version 8."), "sm_90a needs PTX 8.0 or newer");
    for instruction in [
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
        "mbarrier.arrive.expect_tx",
        "mbarrier.try_wait.parity",
        "wgmma.wait_group.sync.aligned 1",
    ] {
        assert!(ptx.contains(instruction), "the PTX lacks {instruction}");
    }
    assert!(
        ptx.contains(")\n.maxntid 384, 1, 1"),
        "gemm_bf16_wgmma lacks its thread bound (`#[kernel(max_block(THREADS))]`)"
    );
    let Some(ptxas) = ptxas() else {
        eprintln!("skipped the ptxas part: no ptxas (run scripts/fetch-ptxas.sh, or set PTXAS)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("ferrocuda-hopper-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("hopper.ptx");
    std::fs::write(&file, ptx).unwrap();
    let output = Command::new(&ptxas)
        .args(["-arch=sm_90a", "-v", "-o"])
        .arg(dir.join("hopper.cubin"))
        .arg(&file)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let report = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "ptxas -arch=sm_90a failed:\n{report}"
    );
    let entry = report
        .split("Compiling entry function 'gemm_bf16_wgmma'")
        .nth(1)
        .expect("ptxas reports the entry");
    let properties: String = entry.lines().take(4).collect::<Vec<_>>().join("\n");
    eprintln!("ptxas -arch=sm_90a, gemm_bf16_wgmma:{properties}");
    assert!(
        properties.contains(" 0 bytes spill stores, 0 bytes spill loads"),
        "{properties}"
    );
    assert!(
        !report.contains("wgmma.mma_async instructions are serialized"),
        "{report}"
    );
}
