//! Names shared with the rest of ferrocuda: the one definition of each.
//!
//! The runtime, the device library and the `#[constant]` macro must spell these exactly as
//! they are here. Where Rust needs a literal (`#[link_section = "..."]`, `include_str!`), the
//! other crate repeats the text; a test there should compare it with the constant here.

/// Name of the PTX file written to `OUT_DIR`.
///
/// The runtime's `ptx_module!` does
/// `include_str!(concat!(env!("OUT_DIR"), "/ferrocuda-kernels.ptx"))`.
pub const PTX_FILE_NAME: &str = "ferrocuda-kernels.ptx";

/// Environment variable set for the kernel crate's host build to the GPU architecture the PTX
/// was built for (`env!("FERROCUDA_PTX_ARCH")`, e.g. `sm_70`).
pub const PTX_ARCH_ENV: &str = "FERROCUDA_PTX_ARCH";

/// Link section that marks a static as static shared memory (`.shared`, address space 3).
///
/// The device library's `shared_array!` puts its statics there with
/// `#[unsafe(link_section = ".shared")] #[used]`; the link step moves them.
pub const SHARED_SECTION: &str = ".shared";

/// Link section that marks a static as constant memory (`.const`, address space 4).
///
/// The `#[constant]` macro puts its statics there; the link step moves them and keeps their
/// names so the host can find them with `cuModuleGetGlobal`.
pub const CONSTANT_SECTION: &str = ".ferrocuda.constant";

/// What every file name of a kernel crate's build products in `OUT_DIR` starts with.
pub(crate) const MODULE_FILE_STEM: &str = "ferrocuda-kernels";

/// Name of the file in `OUT_DIR` that lists the cubins as a Rust expression of type
/// `&[(&str, &[u8])]` (architecture, machine code).
///
/// The runtime's `ptx_module!` does
/// `include!(concat!(env!("OUT_DIR"), "/ferrocuda-kernels.binaries.rs"))`.
pub const BINARIES_FILE_NAME: &str = "ferrocuda-kernels.binaries.rs";

/// Name of the file in `OUT_DIR` holding what `ptxas -v` reported for the cubins (registers,
/// spills, stack, shared and constant memory per kernel and architecture); empty when no cubin
/// was made.
///
/// The runtime's `ptx_module!` does
/// `include_str!(concat!(env!("OUT_DIR"), "/ferrocuda-kernels.ptxas.txt"))`.
pub const PTXAS_REPORT_FILE_NAME: &str = "ferrocuda-kernels.ptxas.txt";

/// Name of the cubin file of architecture `arch` in `OUT_DIR`:
/// `ferrocuda-kernels.<arch>.cubin`.
pub fn cubin_file_name(arch: &str) -> String {
    format!("{MODULE_FILE_STEM}.{arch}.cubin")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_share_the_stem() {
        for name in [PTX_FILE_NAME, BINARIES_FILE_NAME, PTXAS_REPORT_FILE_NAME] {
            assert!(name.starts_with(MODULE_FILE_STEM), "{name}");
        }
        assert_eq!(cubin_file_name("sm_90"), "ferrocuda-kernels.sm_90.cubin");
    }
}
