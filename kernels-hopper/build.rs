//! Compiles this crate's kernels to PTX for sm_90a, whatever `FERROCUDA_ARCH` says, and gives
//! the GEMM's entry its thread bound.
//!
//! - `wgmma` exists only on sm_90a, so the architecture is pinned here (the builder lets the
//!   environment override `Builder::arch`, which is right for every other kernel crate: this one
//!   sets the variable for its own build instead).
//! - A block of 384 threads can have at most 168 registers per thread (65536 / 384, rounded down
//!   to 8); ptxas respects that only when it knows the block size, which CUDA C tells it with
//!   `__launch_bounds__(384)` and Rust cannot express. After the build, `.maxntid 384, 1, 1` is
//!   added to the entries listed in [`THREAD_BOUNDS`] of the PTX. The cubins the builder would
//!   assemble before that edit would lack the bound, so this crate ships PTX only
//!   (`FERROCUDA_PTXAS=off`): the driver compiles it at load (and caches it).

use std::path::PathBuf;

/// Entries and their `.maxntid` (threads per block).
const THREAD_BOUNDS: [(&str, u32); 1] = [("gemm_bf16_wgmma", 384)];

fn main() {
    let outer = std::env::args_os().len() == 1
        && std::env::var_os(nvptx_builder::NESTED_ENV).is_none_or(|v| v != "1");
    if outer {
        // SAFETY: the build script is single-threaded here; the variables are read by the
        // builder below and inherited by the processes it starts.
        unsafe {
            std::env::set_var(nvptx_builder::ARCH_ENV, "sm_90a");
            std::env::set_var(nvptx_builder::PTXAS_ENV, "off");
            std::env::remove_var(nvptx_builder::CUBIN_ARCHS_ENV);
        }
    }
    nvptx_builder::build();
    if outer {
        add_thread_bounds();
    }
}

/// Adds `.maxntid` to the entries of [`THREAD_BOUNDS`] in `$OUT_DIR/ferrocuda-kernels.ptx`.
fn add_thread_bounds() {
    let path = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join(nvptx_builder::PTX_FILE_NAME);
    let Ok(ptx) = std::fs::read_to_string(&path) else {
        return; // The build failed and said why.
    };
    let mut out = String::with_capacity(ptx.len() + 64);
    let mut pending: Option<u32> = None;
    for line in ptx.lines() {
        if let Some(threads) = pending
            && line.trim() == "{"
        {
            out.push_str(&format!(".maxntid {threads}, 1, 1\n"));
            pending = None;
        }
        if line.contains(".entry ") {
            pending = THREAD_BOUNDS
                .iter()
                .find(|(name, _)| line.contains(&format!(".entry {name}(")))
                .map(|&(_, threads)| threads);
        }
        out.push_str(line);
        out.push('\n');
    }
    std::fs::write(&path, out).expect("the PTX file is writable");
}
