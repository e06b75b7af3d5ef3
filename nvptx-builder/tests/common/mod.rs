//! What the builder's end-to-end tests share: a kernel crate's `Cargo.toml`, the check that the
//! pinned toolchain is installed, and writing a file with its directories.

use std::path::Path;
use std::process::Command;

/// The `Cargo.toml` of a kernel crate `name` with nvptx-builder from this checkout, a workspace
/// of its own.
pub fn manifest(name: &str) -> String {
    format!(
        r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"

[build-dependencies]
nvptx-builder = {{ path = {:?} }}

[workspace]
"#,
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Whether the pinned toolchain is installed; prints why the test is skipped when it is not.
pub fn toolchain_installed() -> bool {
    let toolchain = nvptx_builder::DEFAULT_TOOLCHAIN;
    let installed = Command::new("rustup")
        .args(["which", "rustc", "--toolchain", toolchain])
        .env("RUSTUP_AUTO_INSTALL", "0")
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        eprintln!(
            "skipped: toolchain `{toolchain}` is not installed (rustup toolchain install \
             {toolchain} --profile minimal --component rust-src,llvm-tools)"
        );
    }
    installed
}

/// Writes `text` to `path`, creating its directories.
pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}
