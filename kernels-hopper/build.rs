//! Compiles this crate's kernels to PTX for sm_90a, whatever `FERROCUDA_ARCH` says.
//!
//! `wgmma` exists only on sm_90a, so the architecture is pinned here (the builder lets the
//! environment override `Builder::arch`, which is right for every other kernel crate: this one
//! sets the variable for its own build instead). The crate ships PTX only
//! (`FERROCUDA_PTXAS=off`): the driver compiles it at load for the GPU's sm_90a (and caches it).
//! The GEMM's thread bound (`.maxntid 384`, which caps it at 168 registers per thread) comes
//! from `#[kernel(max_block(THREADS))]`.

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
}
