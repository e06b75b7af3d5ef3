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
