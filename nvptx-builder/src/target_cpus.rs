//! The GPU architectures the device toolchain can compile for, and the check of the chosen one.
//!
//! [`crate::config`] only checks that an architecture looks like `sm_<digits>[a|f]`. LLVM's
//! NVPTX backend accepts any such name: `sm_9000` builds PTX for `.target sm_9000` without a
//! word and then crashes on the first instruction it cannot select for an unknown processor
//! (a warp shuffle: "Cannot select: intrinsic %llvm.nvvm.shfl.sync.idx.i32"). So, once the
//! toolchain is there, the architecture is looked up in the list the toolchain itself prints
//! (`rustc --print target-cpus --target nvptx64-nvidia-cuda`, which names the `a` and `f`
//! variants such as `sm_90a` and `sm_100f` too), and an unknown one is an error that names the
//! value, where it came from and the accepted list.

use crate::config::{Config, NVPTX_TARGET};
use crate::error::{Error, Result};
use crate::process::run_captured;
use crate::toolchain::Toolchain;
use std::process::Command;

/// Asks the toolchain's rustc for the architectures it knows and checks `config.arch` against
/// them.
pub(crate) fn check(config: &Config, toolchain: &Toolchain) -> Result<()> {
    let mut cmd = Command::new(&toolchain.rustc);
    cmd.args(["--print", "target-cpus", "--target", NVPTX_TARGET]);
    let out = run_captured(&mut cmd)?;
    let known = parse(&String::from_utf8_lossy(&out.stdout));
    check_known(config, &known)
}

/// Checks `config.arch` against `known`, the output of [`parse`].
///
/// An empty list (a future rustc printing another format) checks nothing: the build then goes
/// on as it did before this check existed.
pub(crate) fn check_known(config: &Config, known: &[String]) -> Result<()> {
    if known.is_empty() || known.contains(&config.arch) {
        return Ok(());
    }
    let mut sorted: Vec<&str> = known.iter().map(String::as_str).collect();
    sorted.sort_by_key(|cpu| sort_key(cpu));
    Err(Error::new(format!(
        "GPU architecture `{}` ({}) is not one that toolchain `{}` can compile for; accepted: {} \
         (from `rustc +{} --print target-cpus --target {NVPTX_TARGET}`)",
        config.arch,
        config.arch_origin,
        config.toolchain,
        sorted.join(", "),
        config.toolchain,
    )))
}

/// The CPU names in the output of `rustc --print target-cpus`: the first word of each indented
/// line after the `Available CPUs for this target:` header.
pub(crate) fn parse(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|line| !line.trim_start().starts_with("Available CPUs"))
        .skip(1)
        .filter(|line| line.starts_with(char::is_whitespace))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|cpu| cpu.starts_with("sm_"))
        .map(str::to_owned)
        .collect()
}

/// Orders `sm_90` < `sm_90a` < `sm_100`: by number, then by suffix.
fn sort_key(cpu: &str) -> (u32, String) {
    let rest = cpu.strip_prefix("sm_").unwrap_or(cpu);
    let digits = rest.trim_end_matches(|c: char| !c.is_ascii_digit());
    let suffix = &rest[digits.len()..];
    (digits.parse().unwrap_or(u32::MAX), suffix.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Origin;

    /// `rustc +nightly-2026-05-20 --print target-cpus --target nvptx64-nvidia-cuda`, shortened.
    const PRINTED: &str = "Available CPUs for this target:
    sm_100
    sm_100a
    sm_100f
    sm_120
    sm_70   - This is the default target CPU for the current build target (currently nvptx64-nvidia-cuda).
    sm_80
    sm_90
    sm_90a
";

    fn config(arch: &str, arch_origin: Origin) -> Config {
        Config {
            arch: arch.to_owned(),
            arch_origin,
            toolchain: "nightly-2026-05-20".to_owned(),
            toolchain_origin: Origin::Default,
            line_info: true,
            cubin_archs: (vec![arch.to_owned()], Origin::Default),
            ptxas: crate::config::PtxasChoice::Search,
            ptxas_report: false,
            fast_math: (crate::FastMath::OFF, Origin::Default),
            passes: crate::pipeline::PassSelection::ALL,
        }
    }

    #[test]
    fn parses_rustc_output() {
        assert_eq!(
            parse(PRINTED),
            [
                "sm_100", "sm_100a", "sm_100f", "sm_120", "sm_70", "sm_80", "sm_90", "sm_90a"
            ]
        );
        assert!(parse("").is_empty());
    }

    #[test]
    fn known_architectures_pass() {
        let known = parse(PRINTED);
        for arch in ["sm_70", "sm_90a", "sm_100f"] {
            assert!(check_known(&config(arch, Origin::Default), &known).is_ok());
        }
        // Nothing to check against: no error.
        assert!(check_known(&config("sm_9000", Origin::Default), &[]).is_ok());
    }

    #[test]
    fn unknown_architecture_names_value_origin_and_accepted_list() {
        let known = parse(PRINTED);
        let e = check_known(&config("sm_9000", Origin::Env("FERROCUDA_ARCH")), &known).unwrap_err();
        let m = e.message();
        assert!(m.contains("`sm_9000`"), "{m}");
        assert!(
            m.contains("from the environment variable FERROCUDA_ARCH"),
            "{m}"
        );
        assert!(m.contains("toolchain `nightly-2026-05-20`"), "{m}");
        assert!(
            m.contains("accepted: sm_70, sm_80, sm_90, sm_90a, sm_100, sm_100a, sm_100f, sm_120 "),
            "{m}"
        );
        let e = check_known(&config("sm_91", Origin::Builder("arch")), &known).unwrap_err();
        assert!(e.message().contains("from Builder::arch in build.rs"));
    }
}
