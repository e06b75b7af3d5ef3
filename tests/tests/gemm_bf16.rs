//! The tensor-core bf16 GEMM (`kernels_nvptx::gemm_bf16`) against an `f64` CPU reference on the
//! simulator and the GPU: one K-step (fewer steps than the pipeline's stages), as many steps as
//! stages, and more (the stages are reused, twice at nine steps), over several blocks in both
//! directions and over two groups of the grouped block order; and the sizes the host rejects.
//! The sizes are written in tiles and K-steps (`BLOCK_M`, `BLOCK_N`, `BLOCK_K`, `STAGES`), so
//! they keep their meaning when the tile changes.
//!
//! bf16 values come from the `half` crate (an independent rounding), and the reference is summed
//! in `f64` from the same bf16 values. Per element the result may differ from it by
//! `(K / 16) 2^-18 sum_k |A B|`: the project's tolerance for one `mma` (see
//! `ferrocuda::device::mma`), once per 16 of K, each added to a running sum no larger than
//! `sum_k |A B|`. A wrong fragment layout, swizzle or stage index gives errors of the size of the
//! elements themselves, thousands of times that.
//!
//! The kernel needs sm_80: on a GPU it runs when the kernels' PTX targets sm_80 or newer
//! (`scripts/gpu-bundle.sh` builds it for sm_90), and the test says it skipped otherwise.

use ferrocuda::device::half::bf16;
use ferrocuda::prelude::*;
use ferrocuda_tests::{assert_gemm_close, device_tests, random_bf16};
use kernels_nvptx::gemm_bf16::{
    BLOCK_K, BLOCK_M, BLOCK_N, GROUP_M, GemmError, STAGES, gemm_bf16_launch, ptx_architecture,
};

/// Whether the kernel can run on `device` (else it says why it skips).
fn runs_on(device: &Device) -> bool {
    if device.is_simulator() || ptx_architecture() >= 80 {
        return true;
    }
    eprintln!(
        "skipped on the GPU: kernels-nvptx was built for sm_{}, and gemm_bf16 needs sm_80 (build with FERROCUDA_ARCH=sm_90, as scripts/gpu-bundle.sh does)",
        ptx_architecture()
    );
    false
}

/// Runs the GEMM of size `m` x `n` x `k` on `device` and checks every element.
fn check(device: &Device, m: usize, n: usize, k: usize) {
    let (a, a_values) = random_bf16(&format!("gemm_bf16 a {m} {n} {k}"), m * k, 4.0);
    let (b, b_values) = random_bf16(&format!("gemm_bf16 b {m} {n} {k}"), k * n, 4.0);
    let a_dev = DeviceBuffer::from_slice(device, &a).unwrap();
    let b_dev = DeviceBuffer::from_slice(device, &b).unwrap();
    let mut c_dev = DeviceBuffer::from_slice(device, &vec![f32::NAN; m * n]).unwrap();
    gemm_bf16_launch(
        &device.default_stream(),
        &a_dev,
        &b_dev,
        &mut c_dev,
        (m, n, k),
    )
    .unwrap();
    device.synchronize().unwrap();
    let c = c_dev.to_vec().unwrap();
    assert_gemm_close(&c, (&a_values, &b_values), (m, n, k));
}

/// The launch's error for `m` x `n` x `k` with buffers of the given lengths (nothing runs).
fn rejected(device: &Device, (m, n, k): (usize, usize, usize), lengths: [usize; 3]) -> String {
    let a = DeviceBuffer::<bf16>::zeros(device, lengths[0]).unwrap();
    let b = DeviceBuffer::<bf16>::zeros(device, lengths[1]).unwrap();
    let mut c = DeviceBuffer::<f32>::zeros(device, lengths[2]).unwrap();
    match gemm_bf16_launch(&device.default_stream(), &a, &b, &mut c, (m, n, k)) {
        Err(error @ GemmError::Shape(_)) => error.to_string(),
        other => panic!("{m} x {n} x {k}: expected a shape error, got {other:?}"),
    }
}

device_tests! {
    fn gemm_bf16_one_block_one_step(device) {
        if runs_on(device) {
            check(device, BLOCK_M, BLOCK_N, BLOCK_K);
        }
    }

    fn gemm_bf16_two_block_rows_as_many_steps_as_stages(device) {
        if runs_on(device) {
            check(device, 2 * BLOCK_M, BLOCK_N, STAGES * BLOCK_K);
        }
    }

    fn gemm_bf16_two_block_columns_one_step_more_than_stages(device) {
        if runs_on(device) {
            check(device, BLOCK_M, 2 * BLOCK_N, (STAGES + 1) * BLOCK_K);
        }
    }

    fn gemm_bf16_two_by_two_blocks_nine_steps(device) {
        if runs_on(device) {
            check(device, 2 * BLOCK_M, 2 * BLOCK_N, 9 * BLOCK_K);
        }
    }

    fn gemm_bf16_block_rows_in_two_groups(device) {
        // GROUP_M + 1 tile rows: one group of GROUP_M and one of a single row, two tile columns.
        if runs_on(device) {
            check(device, (GROUP_M + 1) * BLOCK_M, 2 * BLOCK_N, BLOCK_K);
        }
    }

    fn gemm_bf16_rejects_sizes_off_the_tile(device) {
        let (m, n, k) = (BLOCK_M, BLOCK_N, BLOCK_K);
        let message = rejected(device, (100, n, k), [100 * k, k * n, 100 * n]);
        assert!(
            message.contains("m = 100") && message.contains(&format!("m a nonzero multiple of {m}")),
            "{message}"
        );
        let message = rejected(device, (m, 128 + n, k), [m * k, k * (128 + n), m * (128 + n)]);
        assert!(
            message.contains(&format!("n = {}", 128 + n))
                && message.contains(&format!("n of {n}")),
            "{message}"
        );
        let message = rejected(device, (m, n, k + 8), [m * (k + 8), (k + 8) * n, m * n]);
        assert!(
            message.contains(&format!("k = {}", k + 8)) && message.contains(&format!("k of {k}")),
            "{message}"
        );
        let message = rejected(device, (1 << 20, 1 << 20, 1 << 20), [1, 1, 1]);
        assert!(
            message.contains("a is 1048576 x 1048576") && message.contains("at most 4294967295"),
            "{message}"
        );
        let message = rejected(device, (0, n, k), [1, k * n, 1]);
        assert!(message.contains("m = 0"), "{message}");
        let message = rejected(device, (m, n, k), [m * k, k * n - 1, m * n]);
        assert!(
            message.contains(&format!("b holds {} elements", k * n - 1))
                && message.contains(&format!("{k} x {n}")),
            "{message}"
        );
    }
}
