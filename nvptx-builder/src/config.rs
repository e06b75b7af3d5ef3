//! Configuration of the PTX build, resolved in one place.
//!
//! Precedence, highest first: environment variable, [`crate::Builder`] setting, default.
//! The environment wins so that CI and benchmarks can pick another GPU architecture
//! without editing code.

use crate::error::Error;
use std::fmt;

/// Environment variable that overrides the GPU architecture (for example `sm_90`).
pub const ARCH_ENV: &str = "FERROCUDA_ARCH";

/// Environment variable that overrides the rustup toolchain used for the device build.
pub const TOOLCHAIN_ENV: &str = "FERROCUDA_NVPTX_TOOLCHAIN";

/// GPU architecture used when neither [`ARCH_ENV`] nor [`crate::Builder::arch`] says otherwise.
///
/// `sm_70` PTX runs on every GPU from Volta on (newer GPUs JIT it in the driver).
pub const DEFAULT_ARCH: &str = "sm_70";

/// Toolchain used when neither [`TOOLCHAIN_ENV`] nor [`crate::Builder::toolchain`] says otherwise:
/// a dated nightly, installed with rustup on first use.
///
/// Dated, so that every machine compiles kernels with the compiler they were checked with:
/// the device build relies on unstable features (`abi_ptx`, `-Zbuild-std`, the
/// `core::intrinsics::gpu` intrinsics) and on the NVPTX backend of that nightly's LLVM (22.1),
/// any of which a later nightly may change; plain `nightly` would mean a different compiler on
/// each machine, whatever day rustup last updated it. This one is rustc 1.97.0-nightly
/// (e50aa6fba 2026-05-19): rustup names nightlies by the date they were published, the day
/// after the commit. `FERROCUDA_NVPTX_TOOLCHAIN=nightly cargo build` follows the latest one.
pub const DEFAULT_TOOLCHAIN: &str = "nightly-2026-05-20";

/// The LLVM / rustc target triple of the device build.
pub const NVPTX_TARGET: &str = "nvptx64-nvidia-cuda";

/// Name of the cargo profile the nested build defines (with `--config`) and uses.
pub(crate) const NESTED_PROFILE: &str = "ferrocuda-nvptx";

/// Settings a [`crate::Builder`] may carry before resolution.
#[derive(Debug, Clone, Default)]
pub(crate) struct Requested {
    pub(crate) arch: Option<String>,
    pub(crate) toolchain: Option<String>,
}

/// Where a setting's value came from, named in error messages so the user knows what to change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The environment variable of that name.
    Env(&'static str),
    /// The [`crate::Builder`] method of that name, called in `build.rs`.
    Builder(&'static str),
    /// The crate's default.
    Default,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Env(name) => write!(f, "from the environment variable {name}"),
            Origin::Builder(method) => write!(f, "from Builder::{method} in build.rs"),
            Origin::Default => f.write_str("the default"),
        }
    }
}

/// Fully resolved configuration of one outer build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Config {
    /// GPU architecture, `sm_XX` (optionally with an `a`/`f` suffix).
    pub(crate) arch: String,
    /// Where [`Config::arch`] came from.
    pub(crate) arch_origin: Origin,
    /// Rustup toolchain name, e.g. `nightly` or `nightly-2026-05-20`.
    pub(crate) toolchain: String,
    /// Where [`Config::toolchain`] came from.
    pub(crate) toolchain_origin: Origin,
}

impl Config {
    /// Resolves the configuration from the process environment and the builder's settings.
    pub(crate) fn resolve(requested: &Requested) -> Result<Config, Error> {
        Config::resolve_with(requested, |k| std::env::var(k).ok())
    }

    /// Like [`Config::resolve`], with the environment given as a lookup function (for tests).
    pub(crate) fn resolve_with(
        requested: &Requested,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Config, Error> {
        let pick = |key: &'static str, builder: &Option<String>, method, default: &str| {
            if let Some(v) = env(key)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
            {
                (v, Origin::Env(key))
            } else if let Some(v) = builder {
                (v.clone(), Origin::Builder(method))
            } else {
                (default.to_owned(), Origin::Default)
            }
        };
        let (arch, arch_origin) = pick(ARCH_ENV, &requested.arch, "arch", DEFAULT_ARCH);
        let (toolchain, toolchain_origin) = pick(
            TOOLCHAIN_ENV,
            &requested.toolchain,
            "toolchain",
            DEFAULT_TOOLCHAIN,
        );
        validate_arch(&arch, arch_origin)?;
        if toolchain.is_empty() || toolchain.chars().any(char::is_whitespace) {
            return Err(Error::new(format!(
                "invalid toolchain name {toolchain:?} ({toolchain_origin}): expected a rustup \
                 toolchain such as \"{DEFAULT_TOOLCHAIN}\" or \"nightly\""
            )));
        }
        Ok(Config {
            arch,
            arch_origin,
            toolchain,
            toolchain_origin,
        })
    }
}

/// Checks that `arch` looks like `sm_<digits>` with an optional `a` or `f` suffix.
///
/// Whether the toolchain knows that architecture is checked later, once the toolchain is there
/// ([`crate::target_cpus`]).
pub(crate) fn validate_arch(arch: &str, origin: Origin) -> Result<(), Error> {
    let ok = arch.strip_prefix("sm_").is_some_and(|rest| {
        let digits = rest.trim_end_matches(['a', 'f']);
        !digits.is_empty()
            && digits.len() + 1 >= rest.len()
            && digits.bytes().all(|b| b.is_ascii_digit())
    });
    if ok {
        Ok(())
    } else {
        Err(Error::new(format!(
            "invalid GPU architecture {arch:?} ({origin}): expected something like \"sm_70\" \
             or \"sm_90\""
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(key, _)| *key == k)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn defaults() {
        let c = Config::resolve_with(&Requested::default(), env_of(&[])).unwrap();
        assert_eq!(c.arch, DEFAULT_ARCH);
        assert_eq!(c.arch_origin, Origin::Default);
        assert_eq!(c.toolchain, DEFAULT_TOOLCHAIN);
        assert_eq!(c.toolchain_origin, Origin::Default);
        // A dated nightly, not whatever `nightly` is on this machine today.
        let date = DEFAULT_TOOLCHAIN.strip_prefix("nightly-").unwrap();
        assert!(
            date.len() == 10 && date.bytes().filter(u8::is_ascii_digit).count() == 8,
            "{DEFAULT_TOOLCHAIN}"
        );
    }

    #[test]
    fn env_wins_over_builder() {
        let req = Requested {
            arch: Some("sm_80".into()),
            toolchain: Some("nightly-2026-01-01".into()),
        };
        let c = Config::resolve_with(&req, env_of(&[])).unwrap();
        assert_eq!(c.arch, "sm_80");
        assert_eq!(c.arch_origin, Origin::Builder("arch"));
        assert_eq!(c.toolchain, "nightly-2026-01-01");
        assert_eq!(c.toolchain_origin, Origin::Builder("toolchain"));
        let c = Config::resolve_with(
            &req,
            env_of(&[(ARCH_ENV, "sm_90"), (TOOLCHAIN_ENV, "nightly")]),
        )
        .unwrap();
        assert_eq!(c.arch, "sm_90");
        assert_eq!(c.arch_origin, Origin::Env(ARCH_ENV));
        assert_eq!(c.toolchain, "nightly");
        assert_eq!(c.toolchain_origin, Origin::Env(TOOLCHAIN_ENV));
        // An empty variable counts as unset.
        let c = Config::resolve_with(&req, env_of(&[(ARCH_ENV, "")])).unwrap();
        assert_eq!(c.arch, "sm_80");
    }

    #[test]
    fn arch_validation() {
        for ok in ["sm_70", "sm_90", "sm_90a", "sm_100f", "sm_120"] {
            assert!(validate_arch(ok, Origin::Default).is_ok(), "{ok}");
        }
        for bad in ["", "sm_", "sm70", "compute_70", "sm_9x", "sm_90aa", "sm_a"] {
            assert!(validate_arch(bad, Origin::Default).is_err(), "{bad}");
        }
    }

    #[test]
    fn errors_name_the_value_and_where_it_came_from() {
        let e = Config::resolve_with(&Requested::default(), env_of(&[(ARCH_ENV, "sm9000")]))
            .unwrap_err();
        let m = e.message();
        assert!(m.contains("\"sm9000\""), "{m}");
        assert!(
            m.contains("from the environment variable FERROCUDA_ARCH"),
            "{m}"
        );
        let req = Requested {
            arch: Some("compute_90".into()),
            toolchain: None,
        };
        let m = Config::resolve_with(&req, env_of(&[]))
            .unwrap_err()
            .message()
            .to_owned();
        assert!(m.contains("from Builder::arch in build.rs"), "{m}");
        let m = Config::resolve_with(&Requested::default(), env_of(&[(TOOLCHAIN_ENV, "a b")]))
            .unwrap_err()
            .message()
            .to_owned();
        assert!(m.contains("\"a b\""), "{m}");
        assert!(
            m.contains("from the environment variable FERROCUDA_NVPTX_TOOLCHAIN"),
            "{m}"
        );
    }
}
