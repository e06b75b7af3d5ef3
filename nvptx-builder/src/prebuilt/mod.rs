//! Packaged PTX: a kernel crate that ships its build products, for users without the nightly.
//!
//! Compiling kernels needs the dated nightly toolchain; using a published kernel crate should
//! not. So a crate's author may package its products with its sources:
//! `FERROCUDA_WRITE_PREBUILT=1 cargo build` ([`WRITE_ENV`]) builds as usual, then copies what
//! the build wrote to `OUT_DIR` (the PTX, cubins, the ptxas report) into
//! `<crate>/ferrocuda-prebuilt/<arch>-<overflow-checks|wrapping>/` ([`PREBUILT_DIR`]) with a
//! `manifest.txt`, which `cargo package` then ships. One directory per architecture and
//! overflow-check setting, since debug builds check integer overflow on the GPU and release
//! builds wrap (`cargo build` and `cargo build --release` package both).
//!
//! The manifest names what the products were built from: the nvptx-builder version (ferrocuda,
//! ferrocuda-device, ferrocuda-macros and nvptx-builder are released together under one
//! version, so it also names the device library compiled into the PTX), the package's name and
//! version, the architecture, the overflow-check setting, the toolchain, the crate-wide fast
//! math when it is on, and a hash of every
//! file of the package that the device build read (from the nested build's dep-info, restricted
//! to files inside the package, plus `Cargo.toml`, compared as `Cargo.toml.orig` in a packaged
//! crate, where cargo rewrites `Cargo.toml`), and a hash of every product.
//!
//! When the requested toolchain is *not* installed, [`toolchain_or_packaged`] looks for the
//! directory of the current architecture and setting: if its manifest matches (see
//! [`differences`]), the products are written to `OUT_DIR` and a warning says the packaged PTX
//! is used and how to build from source instead; if anything differs, a warning says exactly
//! what, and the build goes on as without a package (installing the toolchain), and if that
//! fails too the error repeats why the package was not used. With the toolchain installed, the
//! sources are always compiled.
//!
//! The hash is 64-bit FNV-1a over the bytes, with the length: it tells stale products from
//! fresh ones, it is not a defence against someone forging a package.

use crate::config::{Config, NESTED_PROFILE, NVPTX_TARGET};
use crate::error::{Error, Result};
use crate::nested::Outer;
use crate::passes::fast_math::FastMath;
use crate::products::write_module_files;
use crate::toolchain::{self, Toolchain};
use crate::{PTX_ARCH_ENV, PTX_FILE_NAME, depinfo};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Environment variable that, set to `1`, writes the build's products into [`PREBUILT_DIR`].
pub(crate) const WRITE_ENV: &str = "FERROCUDA_WRITE_PREBUILT";

/// Directory of the kernel crate that holds its packaged products.
pub(crate) const PREBUILT_DIR: &str = "ferrocuda-prebuilt";

/// Stem of the product files `products::write_module_files` writes (`ferrocuda-kernels.ptx`,
/// `ferrocuda-kernels.<arch>.cubin`, `ferrocuda-kernels.ptxas.txt`).
const STEM: &str = "ferrocuda-kernels";

/// Name of the manifest inside each variant directory.
const MANIFEST_FILE: &str = "manifest.txt";

/// Version of the manifest's format.
const FORMAT: &str = "1";

/// The builder's own version, which names the ferrocuda release the PTX was built with.
const BUILDER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// What a packaged variant was built from, or what the current build needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Manifest {
    /// Version of nvptx-builder (and of the ferrocuda crates released with it).
    pub(crate) builder: String,
    /// `<name> <version>` of the kernel crate.
    pub(crate) package: String,
    /// GPU architecture of the PTX.
    pub(crate) arch: String,
    /// Whether the device code checks integer overflow (debug builds).
    pub(crate) overflow_checks: bool,
    /// Rustup toolchain that compiled it.
    pub(crate) toolchain: String,
    /// The crate-wide fast math (a line of the manifest only when it is on, so that manifests
    /// written before the setting existed still read as off).
    pub(crate) fast_math: FastMath,
    /// The optional passes (a line only when not all of them ran, as for fast math).
    pub(crate) passes: crate::pipeline::PassSelection,
    /// Package-relative paths (with `/`) of the sources the device build read, with their hash.
    pub(crate) sources: Vec<(String, String)>,
    /// File names of the products in the variant directory, with their hash.
    pub(crate) products: Vec<(String, String)>,
}

impl Manifest {
    /// The manifest's text: `key = value` lines, sources and products one per line.
    pub(crate) fn render(&self) -> String {
        let mut s = String::from(
            "# Written by nvptx-builder (FERROCUDA_WRITE_PREBUILT=1): the products in this \
             directory and what they were built from.\n",
        );
        let _ = writeln!(s, "format = {FORMAT}");
        let _ = writeln!(s, "builder = {}", self.builder);
        let _ = writeln!(s, "package = {}", self.package);
        let _ = writeln!(s, "arch = {}", self.arch);
        let _ = writeln!(s, "overflow-checks = {}", self.overflow_checks);
        let _ = writeln!(s, "toolchain = {}", self.toolchain);
        if !self.fast_math.is_off() {
            let _ = writeln!(s, "fast-math = {}", self.fast_math);
        }
        if self.passes != crate::pipeline::PassSelection::ALL {
            let _ = writeln!(s, "passes = {}", self.passes);
        }
        for (path, hash) in &self.sources {
            let _ = writeln!(s, "source {hash} {path}");
        }
        for (name, hash) in &self.products {
            let _ = writeln!(s, "product {hash} {name}");
        }
        s
    }

    /// Parses [`Manifest::render`]'s text; `origin` names the file in errors.
    pub(crate) fn parse(text: &str, origin: &Path) -> Result<Manifest> {
        let bad = |line: &str| {
            Error::new(format!(
                "{}: cannot read the line {line:?} (written by another nvptx-builder version?)",
                origin.display()
            ))
        };
        let mut m = Manifest {
            builder: String::new(),
            package: String::new(),
            arch: String::new(),
            overflow_checks: false,
            toolchain: String::new(),
            fast_math: FastMath::OFF,
            passes: crate::pipeline::PassSelection::ALL,
            sources: Vec::new(),
            products: Vec::new(),
        };
        let mut format = None;
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(rest) = line
                .strip_prefix("source ")
                .or(line.strip_prefix("product "))
            {
                let (hash, path) = rest.split_once(' ').ok_or_else(|| bad(line))?;
                let entry = (path.to_owned(), hash.to_owned());
                if line.starts_with("source ") {
                    m.sources.push(entry);
                } else {
                    m.products.push(entry);
                }
                continue;
            }
            let (key, value) = line.split_once(" = ").ok_or_else(|| bad(line))?;
            let value = value.to_owned();
            match key {
                "format" => format = Some(value),
                "builder" => m.builder = value,
                "package" => m.package = value,
                "arch" => m.arch = value,
                "overflow-checks" => m.overflow_checks = value == "true",
                "toolchain" => m.toolchain = value,
                "fast-math" => m.fast_math = FastMath::parse(&value).map_err(|_| bad(line))?,
                "passes" => {
                    m.passes =
                        crate::pipeline::PassSelection::parse(&value).map_err(|_| bad(line))?
                }
                _ => return Err(bad(line)),
            }
        }
        if format.as_deref() != Some(FORMAT) {
            return Err(Error::new(format!(
                "{}: manifest format {format:?}, this nvptx-builder reads format {FORMAT}",
                origin.display()
            )));
        }
        Ok(m)
    }
}

/// The 64-bit FNV-1a hash of `bytes` followed by their length, as 16 + 8 hex digits.
pub(crate) fn hash(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}-{:x}", bytes.len())
}

/// Everything about a variant that must match: each difference as a sentence, none when the
/// packaged products may be used. `expected` carries the current build's settings (its
/// `sources` and `products` are ignored); `read` reads a file of the package by its relative
/// path (`Cargo.toml` reads `Cargo.toml.orig` first), `read_product` a product by name.
pub(crate) fn differences(
    packaged: &Manifest,
    expected: &Manifest,
    read: impl Fn(&str) -> std::io::Result<Vec<u8>>,
    read_product: impl Fn(&str) -> std::io::Result<Vec<u8>>,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = |what: &str, packaged: &str, current: &str| {
        if packaged != current {
            out.push(format!("{what}: packaged {packaged}, this build {current}"));
        }
    };
    field(
        "nvptx-builder version",
        &packaged.builder,
        &expected.builder,
    );
    field("package", &packaged.package, &expected.package);
    field("architecture", &packaged.arch, &expected.arch);
    field(
        "overflow checks",
        &packaged.overflow_checks.to_string(),
        &expected.overflow_checks.to_string(),
    );
    field("toolchain", &packaged.toolchain, &expected.toolchain);
    field(
        "fast math",
        &packaged.fast_math.to_string(),
        &expected.fast_math.to_string(),
    );
    field(
        "optional passes",
        &packaged.passes.to_string(),
        &expected.passes.to_string(),
    );
    if packaged.sources.is_empty() {
        out.push("the manifest lists no sources".to_owned());
    }
    for (path, want) in &packaged.sources {
        match read(path) {
            Ok(bytes) if hash(&bytes) == *want => {}
            Ok(_) => out.push(format!("{path} changed since it was packaged")),
            Err(e) => out.push(format!("{path} cannot be read ({e})")),
        }
    }
    if !packaged.products.iter().any(|(n, _)| n == PTX_FILE_NAME) {
        out.push(format!("the manifest lists no {PTX_FILE_NAME}"));
    }
    for (name, want) in &packaged.products {
        match read_product(name) {
            Ok(bytes) if hash(&bytes) == *want => {}
            Ok(_) => out.push(format!("the packaged {name} differs from its manifest")),
            Err(e) => out.push(format!("the packaged {name} cannot be read ({e})")),
        }
    }
    out
}

/// The variant directory's name for an architecture and overflow-check setting.
fn variant_name(arch: &str, overflow_checks: bool) -> String {
    let checks = if overflow_checks {
        "overflow-checks"
    } else {
        "wrapping"
    };
    format!("{arch}-{checks}")
}

/// The current build's settings as a manifest without sources and products.
fn expected(config: &Config, outer: &Outer) -> Manifest {
    Manifest {
        builder: BUILDER_VERSION.to_owned(),
        package: format!(
            "{} {}",
            outer.package,
            std::env::var("CARGO_PKG_VERSION").unwrap_or_default()
        ),
        arch: config.arch.clone(),
        overflow_checks: outer.overflow_checks,
        toolchain: config.toolchain.clone(),
        fast_math: config.fast_math.0,
        passes: config.passes,
        sources: Vec::new(),
        products: Vec::new(),
    }
}

/// Reads a package file for hashing: `Cargo.toml` is `Cargo.toml.orig` when there is one
/// (cargo keeps the author's manifest there when it packages a crate).
fn read_package_file(package_dir: &Path, relative: &str) -> std::io::Result<Vec<u8>> {
    if relative == "Cargo.toml"
        && let Ok(bytes) = std::fs::read(package_dir.join("Cargo.toml.orig"))
    {
        return Ok(bytes);
    }
    std::fs::read(package_dir.join(relative))
}

/// The toolchain for a build from source, or `None` when the toolchain is not installed and
/// the crate's packaged products match: they are then in `OUT_DIR` and a warning says so.
pub(crate) fn toolchain_or_packaged(config: &Config) -> Result<Option<Toolchain>> {
    println!("cargo:rerun-if-env-changed={WRITE_ENV}");
    if toolchain::is_installed(&config.toolchain) {
        return toolchain::ensure(&config.toolchain, config.toolchain_origin).map(Some);
    }
    let outer = Outer::from_env()?;
    let dir = outer
        .manifest_dir
        .join(PREBUILT_DIR)
        .join(variant_name(&config.arch, outer.overflow_checks));
    let manifest_path = dir.join(MANIFEST_FILE);
    let text = match std::fs::read_to_string(&manifest_path) {
        Ok(text) => text,
        // No package of this variant: build from source as usual.
        Err(_) => return toolchain::ensure(&config.toolchain, config.toolchain_origin).map(Some),
    };
    let diffs = match Manifest::parse(&text, &manifest_path) {
        Ok(packaged) => {
            let diffs = differences(
                &packaged,
                &expected(config, &outer),
                |p| read_package_file(&outer.manifest_dir, p),
                |name| std::fs::read(dir.join(name)),
            );
            if diffs.is_empty() {
                use_packaged(config, &outer, &dir, &packaged)?;
                return Ok(None);
            }
            diffs
        }
        Err(e) => vec![e.message().to_owned()],
    };
    let why = format!(
        "the packaged PTX in {} does not match this build: {}",
        dir.display(),
        diffs.join("; ")
    );
    println!(
        "cargo::warning=nvptx-builder: {why}; compiling the kernels with `{}` instead",
        config.toolchain
    );
    toolchain::ensure(&config.toolchain, config.toolchain_origin)
        .map(Some)
        .map_err(|e| Error::new(format!("{}\n{why}", e.message())))
}

/// Writes the packaged products of `dir` to `OUT_DIR` and says so.
fn use_packaged(config: &Config, outer: &Outer, dir: &Path, packaged: &Manifest) -> Result<()> {
    let read = |name: &str| {
        std::fs::read(dir.join(name))
            .map_err(|e| Error::new(format!("cannot read {}: {e}", dir.join(name).display())))
    };
    let ptx = read(PTX_FILE_NAME)?;
    let mut cubins = Vec::new();
    let mut report = String::new();
    for (name, _) in &packaged.products {
        if let Some(arch) = name
            .strip_prefix(&format!("{STEM}."))
            .and_then(|rest| rest.strip_suffix(".cubin"))
        {
            cubins.push((arch.to_owned(), read(name)?));
        } else if *name == format!("{STEM}.ptxas.txt") {
            report = String::from_utf8_lossy(&read(name)?).into_owned();
        }
    }
    write_module_files(&outer.out_dir, &ptx, &cubins, &report)?;
    println!("cargo:rustc-env={PTX_ARCH_ENV}={}", config.arch);
    println!("cargo:rerun-if-changed={}", dir.display());
    for (path, _) in &packaged.sources {
        println!(
            "cargo:rerun-if-changed={}",
            outer.manifest_dir.join(path).display()
        );
    }
    println!(
        "cargo::warning=nvptx-builder: using the packaged PTX of {} ({}, built by {}) because \
         toolchain `{}` is not installed; to compile the kernels from source instead, run: \
         rustup toolchain install {} --profile minimal --component rust-src,llvm-tools",
        packaged.package,
        dir.display(),
        packaged.toolchain,
        config.toolchain,
        config.toolchain
    );
    Ok(())
}

/// After a build from source: with [`WRITE_ENV`]`=1`, copies the products from `OUT_DIR` into
/// the crate's [`PREBUILT_DIR`] with their manifest.
pub(crate) fn write_if_requested(config: &Config) -> Result<()> {
    if std::env::var(WRITE_ENV).ok().as_deref() != Some("1") {
        return Ok(());
    }
    let outer = Outer::from_env()?;
    let sources = package_sources(config, &outer)?;
    let dir = outer
        .manifest_dir
        .join(PREBUILT_DIR)
        .join(variant_name(&config.arch, outer.overflow_checks));
    let io = |what: &str, path: &Path, e: std::io::Error| {
        Error::new(format!("cannot {what} {}: {e}", path.display()))
    };
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| io("remove", &dir, e))?;
    }
    std::fs::create_dir_all(&dir).map_err(|e| io("create", &dir, e))?;
    let mut products = Vec::new();
    let entries = std::fs::read_dir(&outer.out_dir).map_err(|e| io("list", &outer.out_dir, e))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| {
            n == PTX_FILE_NAME
                || *n == format!("{STEM}.ptxas.txt")
                || (n.starts_with(&format!("{STEM}.")) && n.ends_with(".cubin"))
        })
        .collect();
    names.sort();
    for name in names {
        let from = outer.out_dir.join(&name);
        let bytes = std::fs::read(&from).map_err(|e| io("read", &from, e))?;
        let to = dir.join(&name);
        std::fs::write(&to, &bytes).map_err(|e| io("write", &to, e))?;
        products.push((name, hash(&bytes)));
    }
    let manifest = Manifest {
        sources,
        products,
        ..expected(config, &outer)
    };
    let path = dir.join(MANIFEST_FILE);
    std::fs::write(&path, manifest.render()).map_err(|e| io("write", &path, e))?;
    // Writes again when the package directory is removed or edited.
    println!("cargo:rerun-if-changed={}", path.display());
    println!(
        "cargo::warning=nvptx-builder: wrote the packaged PTX to {} ({} sources hashed); \
         `cargo package` ships it, for users without toolchain `{}`",
        dir.display(),
        manifest.sources.len(),
        config.toolchain
    );
    Ok(())
}

/// The package's files the device build read, relative to the package, with their hashes:
/// `Cargo.toml`, then the files inside the package from the nested build's dep-info.
fn package_sources(config: &Config, outer: &Outer) -> Result<Vec<(String, String)>> {
    let checks = if outer.overflow_checks {
        "overflow-checks"
    } else {
        "wrapping"
    };
    let artifacts = outer
        .target_root
        .join("nvptx-builder")
        .join(&config.arch)
        .join(checks)
        .join(NVPTX_TARGET)
        .join(NESTED_PROFILE);
    let files = dep_info_of_package(&artifacts, &outer.manifest_dir)?;
    let mut relative = vec!["Cargo.toml".to_owned()];
    for file in files {
        if let Ok(rel) = file.strip_prefix(&outer.manifest_dir)
            && !rel.starts_with(PREBUILT_DIR)
        {
            let rel = rel.to_string_lossy().replace('\\', "/");
            if !relative.contains(&rel) {
                relative.push(rel);
            }
        }
    }
    relative
        .into_iter()
        .map(|rel| {
            let bytes = read_package_file(&outer.manifest_dir, &rel).map_err(|e| {
                Error::new(format!(
                    "cannot read {} to package it: {e}",
                    outer.manifest_dir.join(&rel).display()
                ))
            })?;
            Ok((rel, hash(&bytes)))
        })
        .collect()
}

/// The prerequisites of the nested build's dep-info file for the crate at `package_dir`: the
/// newest `*.d` in `artifacts` that lists a file inside the package.
fn dep_info_of_package(artifacts: &Path, package_dir: &Path) -> Result<Vec<PathBuf>> {
    let not_found = || {
        Error::new(format!(
            "cannot package the PTX: no dep-info file in {} lists a file of {}",
            artifacts.display(),
            package_dir.display()
        ))
    };
    let entries = std::fs::read_dir(artifacts).map_err(|_| not_found())?;
    let mut best: Option<(std::time::SystemTime, Vec<PathBuf>)> = None;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "d") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let deps = depinfo::parse(&text);
        if !deps.iter().any(|d| d.starts_with(package_dir)) {
            continue;
        }
        let modified = entry
            .metadata()
            .and_then(|m| m.modified())
            .unwrap_or(std::time::UNIX_EPOCH);
        if best.as_ref().is_none_or(|(t, _)| modified > *t) {
            best = Some((modified, deps));
        }
    }
    best.map(|(_, deps)| deps).ok_or_else(not_found)
}

#[cfg(test)]
mod tests;
