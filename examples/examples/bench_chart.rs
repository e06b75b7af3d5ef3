//! Writes the benchmark report from a results file: `bench-results.md` (the markdown tables) and
//! `bench-chart.svg` (ferrocuda, CUDA C, CuPy and Numba per kernel, relative to CUDA C) beside it,
//! or into `--out-dir`. Runs anywhere (no GPU):
//!
//! ```text
//! cargo run -p ferrocuda-examples --example bench_chart -- bench/results/h100-….csv [--out-dir DIR]
//! ```
//!
//! `bench_kernels` writes the same two files on the GPU machine; this regenerates them.

use ferrocuda_examples::bench_chart::write_report;
use ferrocuda_examples::bench_report::parse_csv;
use ferrocuda_examples::{ExampleResult, optional_arg};
use std::path::{Path, PathBuf};

fn main() -> ExampleResult {
    let csv = std::env::args()
        .nth(1)
        .filter(|a| !a.starts_with("--"))
        .ok_or("usage: bench_chart RESULTS.csv [--out-dir DIR]")?;
    let text = std::fs::read_to_string(&csv).map_err(|e| format!("reading {csv}: {e}"))?;
    let rows = parse_csv(&text).map_err(|e| format!("{csv}: {e}"))?;
    let dir = optional_arg("--out-dir").map_or_else(
        || {
            Path::new(&csv)
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
        },
        PathBuf::from,
    );
    let written = write_report(&rows, &dir, "")?;
    for path in written {
        println!("wrote {}", path.display());
    }
    Ok(())
}
