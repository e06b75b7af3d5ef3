//! What the tensor-core examples share: bf16 inputs, the f64 check of a bf16 GEMM, their
//! command line (`--sizes`, `--torch-tflops`), the timing loop and the report against cuBLAS.

use crate::{EventTimer, ExampleResult, median, optional_arg, random_f32, reference};
use ferrocuda::Device;
use ferrocuda::device::half::bf16;

/// Launches timed per size after the warm-up.
pub const TIMED_RUNS: usize = 10;

/// Parses a comma-separated list of numbers given after `name`.
pub fn list<T: std::str::FromStr>(name: &str, text: &str) -> Result<Vec<T>, String> {
    text.split(',')
        .map(|item| {
            item.trim()
                .parse()
                .map_err(|_| format!("{name}: `{item}` is not a number (expected e.g. 4096,8192)"))
        })
        .collect()
}

/// `n` random bf16 values in [-1, 1) and their exact `f32` values.
pub fn random_bf16(n: usize, seed: u64) -> (Vec<bf16>, Vec<f32>) {
    let values: Vec<bf16> = random_f32(n, seed)
        .into_iter()
        .map(bf16::from_f32)
        .collect();
    let exact = values.iter().map(|x| x.to_f32()).collect();
    (values, exact)
}

/// `C[row][col]` in `f64` and the sum of the products' magnitudes, from `a` (row-major) and `b_t`
/// (`B` transposed: column `col` of `B` is contiguous, which keeps the CPU's caches useful).
fn reference_element(a: &[f32], b_t: &[f32], k: usize, row: usize, col: usize) -> (f64, f64) {
    let (a_row, b_col) = (&a[row * k..(row + 1) * k], &b_t[col * k..(col + 1) * k]);
    a_row
        .iter()
        .zip(b_col)
        .fold((0.0, 0.0), |(sum, size), (&x, &y)| {
            let product = x as f64 * y as f64;
            (sum + product, size + product.abs())
        })
}

/// The elements the CPU checks: all of them when `all`, else the first and last 128 x 128
/// tiles and 4096 more spread over the matrix.
fn checked_elements(m: usize, n: usize, all: bool) -> Vec<(usize, usize)> {
    if all {
        return (0..m).flat_map(|r| (0..n).map(move |c| (r, c))).collect();
    }
    let mut elements: Vec<(usize, usize)> = (0..128)
        .flat_map(|r| (0..128).flat_map(move |c| [(r, c), (m - 128 + r, n - 128 + c)]))
        .collect();
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for _ in 0..4096 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        elements.push(((state >> 33) as usize % m, (state >> 13) as usize % n));
    }
    elements
}

/// Checks `c` (`m` x `n`, row-major) against the `f64` product of `a_exact` (`m` x `k`) and
/// `b_exact` (`k` x `n`), every element when `all`, else a sample (see `checked_elements`), with
/// the tolerance `(K / 16) 2^-18 sum_k |a b|` per element (one `mma` rounding per 16 of K, see
/// `ferrocuda::device::mma`). Prints how many elements matched and the worst error.
pub fn check_gemm(
    c: &[f32],
    (a_exact, b_exact): (&[f32], &[f32]),
    (m, n, k): (usize, usize, usize),
    all: bool,
) -> ExampleResult {
    let per_magnitude = (k / 16) as f64 * 2f64.powi(-18);
    let b_transposed = reference::transpose(b_exact, n, k);
    let elements = checked_elements(m, n, all);
    let mut worst = 0.0f64;
    for &(row, col) in &elements {
        let (want, size) = reference_element(a_exact, &b_transposed, k, row, col);
        let got = c[row * n + col] as f64;
        let error = (got - want).abs();
        if error.is_nan() || error > per_magnitude * size {
            return Err(format!(
                "{m} x {n} x {k}: C[{row}][{col}] = {got}, expected {want} (error {error:e}, tolerance {:e})",
                per_magnitude * size
            )
            .into());
        }
        if size > 0.0 {
            worst = worst.max(error / size);
        }
    }
    println!(
        "C ({m} x {n}) = A ({m} x {k}) B ({k} x {n}): {} elements match the CPU (worst error {worst:.2e} of sum |a b|, tolerance {per_magnitude:.2e})",
        elements.len()
    );
    Ok(())
}

/// The median time in milliseconds of [`TIMED_RUNS`] calls of `launch`, after 3 warm-up calls,
/// measured with CUDA events on `device`.
pub fn median_ms(
    device: &Device,
    mut launch: impl FnMut() -> ferrocuda::Result<()>,
) -> ExampleResult<f64> {
    let timer = EventTimer::new(device)?;
    let mut time_one = || timer.time(&mut launch);
    // Warm-up (clocks, caches), then the timed launches.
    for _ in 0..3 {
        time_one()?;
    }
    let times: Vec<f64> = (0..TIMED_RUNS)
        .map(|_| time_one())
        .collect::<Result<_, _>>()?;
    Ok(median(times))
}

/// The GEMM examples' command line: `--sizes` (square sizes; `default` without it) and
/// `--torch-tflops` (one cuBLAS figure per size, or one for all).
pub struct GemmArgs {
    /// The `(m, n, k)` sizes to run.
    pub sizes: Vec<(usize, usize, usize)>,
    /// cuBLAS's TFLOP/s per size (empty: no ratio).
    pub torch: Vec<f64>,
}

impl GemmArgs {
    /// Reads the arguments; `default` gives the sizes when `--sizes` is absent.
    pub fn parse(default: Vec<(usize, usize, usize)>) -> ExampleResult<Self> {
        let sizes = match optional_arg("--sizes") {
            Some(text) => list::<usize>("--sizes", &text)?
                .into_iter()
                .map(|s| (s, s, s))
                .collect(),
            None => default,
        };
        let torch: Vec<f64> = match optional_arg("--torch-tflops") {
            Some(text) => list("--torch-tflops", &text)?,
            None => Vec::new(),
        };
        if !(torch.is_empty() || torch.len() == 1 || torch.len() == sizes.len()) {
            return Err(format!(
                "--torch-tflops: {} figures for {} sizes (give one per size, or one for all)",
                torch.len(),
                sizes.len()
            )
            .into());
        }
        Ok(Self { sizes, torch })
    }

    /// Prints `<name>_tflops_<n>` and, given a cuBLAS figure for size `i`,
    /// `<name>_ratio_to_cublas_<n>` and the verdict against `target`.
    pub fn report(&self, name: &str, what: &str, i: usize, n: usize, tflops: f64, target: f64) {
        println!("{name}_tflops_{n} {tflops:.1}");
        if let Some(&cublas) = self.torch.get(i).or(self.torch.first()) {
            let ratio = tflops / cublas;
            let verdict = if ratio >= target { "met" } else { "MISSED" };
            println!("{name}_ratio_to_cublas_{n} {ratio:.3}");
            println!(
                "{n}^3{what}: {tflops:.1} TFLOP/s against cuBLAS {cublas:.1}: {ratio:.2}x (target >= {target}x: {verdict})"
            );
        }
    }
}

/// TFLOP/s of an `m` x `n` x `k` product taking `ms` milliseconds.
pub fn gemm_tflops((m, n, k): (usize, usize, usize), ms: f64) -> f64 {
    2.0 * (m * n * k) as f64 / (ms * 1e-3) / 1e12
}
