//! Ahead-of-time PTX for a Rust kernel crate, from its build script.
//!
//! A kernel crate's `build.rs` is one line:
//!
//! ```no_run
//! fn main() { nvptx_builder::build() }
//! ```
//!
//! and the crate (with `nvptx-builder` in `[build-dependencies]`) gets its own code compiled
//! for `nvptx64-nvidia-cuda` and written to `$OUT_DIR/ferrocuda-kernels.ptx`
//! ([`PTX_FILE_NAME`]), ready for
//! `include_str!(concat!(env!("OUT_DIR"), "/ferrocuda-kernels.ptx"))`. The architecture the
//! PTX was built for is exported to the crate as `env!("FERROCUDA_PTX_ARCH")` ([`PTX_ARCH_ENV`]).
//! The PTX carries line tables (`.file`/`.loc`, [`LINE_INFO_ENV`] turns them off). When NVIDIA's
//! `ptxas` is found ([`PTXAS_ENV`]), the PTX is also assembled into cubins, machine code the GPU
//! loads without JIT-compiling, `ferrocuda-kernels.<arch>.cubin` ([`cubin_file_name`]) for each
//! architecture of [`CUBIN_ARCHS_ENV`] (default [`default_cubin_archs`]), listed in
//! [`BINARIES_FILE_NAME`] with their `ptxas -v` report in [`PTXAS_REPORT_FILE_NAME`]; the
//! runtime's `ptx_module!` embeds them all.
//!
//! The same executable plays three roles:
//!
//! * **outer mode** (the normal host build): checks the dated nightly toolchain
//!   ([`DEFAULT_TOOLCHAIN`]; installing it, `rust-src` and `llvm-tools` with rustup if they
//!   are missing) and that it knows the GPU architecture, runs a nested
//!   `cargo rustc --target nvptx64-nvidia-cuda -Zbuild-std=core` on the same crate with its
//!   own target directory, writes the PTX and its cubins, and tells cargo to rerun only when a
//!   source file of the device build changes; when that toolchain is not installed and the
//!   crate was packaged with its PTX (`FERROCUDA_WRITE_PREBUILT=1`, `ferrocuda-prebuilt/`) for
//!   exactly these sources and settings, it uses the packaged PTX instead and says so;
//! * **nested mode** (`NVPTX_BUILDER_NESTED=1`, the crate's build script inside that nested
//!   build): does nothing;
//! * **linker mode** (run with arguments: the nested build uses this executable as rustc's
//!   linker): links the LTO'd bitcode with `compiler_builtins`, moves static shared memory
//!   and constant memory into their address spaces (see [`SHARED_SECTION`] and
//!   [`CONSTANT_SECTION`]) and writes PTX with `opt` and `llc`.
//!
//! Configuration: the GPU architecture defaults to [`DEFAULT_ARCH`], may be set with
//! [`Builder::arch`] and is overridden by the environment variable [`ARCH_ENV`]
//! (`FERROCUDA_ARCH=sm_90 cargo build`); the toolchain defaults to [`DEFAULT_TOOLCHAIN`],
//! [`Builder::toolchain`], overridden by [`TOOLCHAIN_ENV`]; line tables and cubin architectures
//! likewise ([`Builder::line_info`], [`Builder::cubin_archs`]); `FERROCUDA_PTXAS_REPORT=1`
//! ([`PTXAS_REPORT_ENV`]) prints ptxas's per-kernel report as build warnings. Fast math is off
//! unless [`Builder::fast_math`] or [`FAST_MATH_ENV`] (`FERROCUDA_FAST_MATH=contract`) turns it on
//! for the crate, or `#[kernel(fast_math)]` for one kernel ([`FastMath`] says what each option
//! does).
//!
//! The crate compiled for the device must be `#![no_std]` there and enable the kernel ABI. A
//! ferrocuda kernel crate does both in the first of the two lines at its root (the second
//! embeds the PTX; the `#[panic_handler]` comes from `ferrocuda-device`, so the crate declares
//! none):
//!
//! ```ignore
//! #![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]
//! ferrocuda::ptx_module!();
//! ```
//!
//! A crate built without ferrocuda must also define a `#[panic_handler]` behind
//! `#[cfg(target_arch = "nvptx64")]`.

#![expect(
    clippy::needless_doctest_main,
    reason = "the examples show whole `build.rs` files, `fn main` included, on purpose"
)]

mod analysis;
mod cargo_messages;
mod config;
mod contract;
mod depinfo;
mod error;
mod ir;
mod json;
mod link;
mod link_args;
mod nested;
mod passes;
mod pipeline;
mod prebuilt;
mod process;
mod products;
mod ptxas;
mod simulator_opt_level;
mod target_cpus;
mod toolchain;

pub use config::{
    ARCH_ENV, CUBIN_ARCHS_ENV, DEFAULT_ARCH, DEFAULT_TOOLCHAIN, LINE_INFO_ENV, NVPTX_TARGET,
    PTXAS_ENV, PTXAS_REPORT_ENV, TOOLCHAIN_ENV, default_cubin_archs,
};
pub use contract::{
    BINARIES_FILE_NAME, CONSTANT_SECTION, PTX_ARCH_ENV, PTX_FILE_NAME, PTXAS_REPORT_FILE_NAME,
    SHARED_SECTION, cubin_file_name,
};
pub use passes::check_versioning::entry_test::{ENTRY_TEST_NOTE_PREFIX, ENTRY_TEST_TOKEN_BIT};
pub use passes::fast_math::{
    FAST_MATH_ENV, FAST_MATH_NAMES, FAST_MATH_SECTION, FastMath, PTX_NOTE_PREFIX,
};
pub use passes::max_block::MAX_BLOCK_SECTION;
pub use pipeline::PASSES_ENV;

use config::{Config, Requested};

/// Environment variable set to `1` for the nested build; the crate's build script then does
/// nothing.
pub const NESTED_ENV: &str = "NVPTX_BUILDER_NESTED";

/// Builds the calling crate to PTX with the default settings: `Builder::new().build()`.
///
/// Call it as the whole body of `build.rs`'s `main`. On failure it reports the reason to cargo
/// as `cargo::error=` lines (compiler diagnostics first, then what nvptx-builder was doing),
/// which fails the build and shows each error once.
pub fn build() {
    Builder::new().build()
}

/// Settings for [`build`]; environment variables ([`ARCH_ENV`], [`TOOLCHAIN_ENV`]) still win.
///
/// ```no_run
/// fn main() {
///     nvptx_builder::Builder::new().arch("sm_80").toolchain("nightly").build()
/// }
/// ```
#[derive(Debug, Clone, Default)]
#[must_use = "a Builder does nothing until .build() is called"]
pub struct Builder {
    requested: Requested,
}

impl Builder {
    /// A builder with the defaults ([`DEFAULT_ARCH`], [`DEFAULT_TOOLCHAIN`]).
    pub fn new() -> Builder {
        Builder::default()
    }

    /// Sets the GPU architecture, e.g. `"sm_90"` (overridden by [`ARCH_ENV`]).
    pub fn arch(mut self, arch: impl Into<String>) -> Builder {
        self.requested.arch = Some(arch.into());
        self
    }

    /// Sets the rustup toolchain of the device build, e.g. `"nightly-2026-05-20"`
    /// (overridden by [`TOOLCHAIN_ENV`]).
    pub fn toolchain(mut self, toolchain: impl Into<String>) -> Builder {
        self.requested.toolchain = Some(toolchain.into());
        self
    }

    /// Turns the line tables of the PTX and the cubins on (the default) or off (overridden by
    /// [`LINE_INFO_ENV`]). They let compute-sanitizer, Nsight and cuda-gdb name Rust source lines.
    pub fn line_info(mut self, on: bool) -> Builder {
        self.requested.line_info = Some(on);
        self
    }

    /// Sets the GPU architectures to assemble cubins for, e.g. `["sm_80", "sm_90"]`, none older
    /// than the PTX's (overridden by [`CUBIN_ARCHS_ENV`]; default [`default_cubin_archs`]).
    pub fn cubin_archs<S: Into<String>>(mut self, archs: impl IntoIterator<Item = S>) -> Builder {
        self.requested.cubin_archs = Some(archs.into_iter().map(Into::into).collect());
        self
    }

    /// Allows fast math in every kernel of the crate, e.g. [`FastMath::CONTRACT`] to fuse
    /// multiply-adds into `fma.rn` as nvcc does by default (overridden by [`FAST_MATH_ENV`];
    /// default [`FastMath::OFF`]). The simulator does not apply it: results of relaxed operations
    /// may differ from the simulator's within the bounds [`FastMath`] states.
    pub fn fast_math(mut self, fast_math: FastMath) -> Builder {
        self.requested.fast_math = Some(fast_math);
        self
    }

    /// Runs the build script: outer, nested or linker mode (see the crate documentation).
    ///
    /// An error is reported to cargo as `cargo::error=` lines, which fails the build; run
    /// outside cargo, it is printed on stderr and the process exits with status 1.
    pub fn build(self) {
        let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
        if !args.is_empty() {
            // rustc runs us as the linker of the nested build.
            if let Err(e) = link::run(args) {
                error::exit_linker(&e);
            }
            return;
        }
        if std::env::var_os(NESTED_ENV).is_some_and(|v| v == "1") {
            // This crate's own build script inside the nested nvptx build.
            println!("cargo:rerun-if-changed=build.rs");
            return;
        }
        if let Err(e) = self.outer() {
            error::report_build_script(&e);
        }
    }

    fn outer(&self) -> error::Result<()> {
        println!("cargo:rerun-if-env-changed={ARCH_ENV}");
        println!("cargo:rerun-if-env-changed={TOOLCHAIN_ENV}");
        for key in [
            LINE_INFO_ENV,
            PTXAS_ENV,
            CUBIN_ARCHS_ENV,
            PTXAS_REPORT_ENV,
            FAST_MATH_ENV,
            PASSES_ENV,
        ] {
            println!("cargo:rerun-if-env-changed={key}");
        }
        println!("cargo:rerun-if-changed=build.rs");
        println!("cargo:rerun-if-changed=Cargo.toml");
        let config = Config::resolve(&self.requested)?;
        // `None`: the toolchain is missing and the crate's packaged PTX is used (`prebuilt/`).
        if let Some(toolchain) = prebuilt::toolchain_or_packaged(&config)? {
            target_cpus::check(&config, &toolchain)?;
            nested::build(&config, &toolchain)?;
            prebuilt::write_if_requested(&config)?;
        }
        simulator_opt_level::warn_if_unoptimised();
        Ok(())
    }
}
