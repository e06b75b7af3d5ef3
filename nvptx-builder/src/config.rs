//! Configuration of the PTX build, resolved in one place.
//!
//! Precedence, highest first: environment variable, [`crate::Builder`] setting, default.
//! The environment wins so that CI and benchmarks can pick another GPU architecture
//! without editing code.
//!
//! | setting | environment | `Builder` | default |
//! |---|---|---|---|
//! | GPU architecture of the PTX | [`ARCH_ENV`] | `arch` | [`DEFAULT_ARCH`] |
//! | toolchain of the device build | [`TOOLCHAIN_ENV`] | `toolchain` | [`DEFAULT_TOOLCHAIN`] |
//! | line tables (`.loc`) in the PTX and cubins | [`LINE_INFO_ENV`] | `line_info` | on |
//! | architectures of the cubins | [`CUBIN_ARCHS_ENV`] | `cubin_archs` | [`default_cubin_archs`] |
//! | ptxas | [`PTXAS_ENV`] (a path, or `0`/`off`) | | searched ([`crate::ptxas`]) |
//! | `ptxas -v` table as build warnings | [`PTXAS_REPORT_ENV`] | | off |
//! | crate-wide fast math ([`crate::FastMath`]) | [`FAST_MATH_ENV`] | `fast_math` | off |
//! | the optional passes ([`crate::pipeline`]) | [`crate::PASSES_ENV`] (`none`, `all`, `-name,...`) | | all |

use crate::error::Error;
use crate::passes::fast_math::{FAST_MATH_ENV, FastMath};
use std::fmt;
use std::path::PathBuf;

/// Environment variable that overrides the GPU architecture (for example `sm_90`).
pub const ARCH_ENV: &str = "FERROCUDA_ARCH";

/// Environment variable that overrides the rustup toolchain used for the device build.
pub const TOOLCHAIN_ENV: &str = "FERROCUDA_NVPTX_TOOLCHAIN";

/// Environment variable that turns the line tables of the PTX and the cubins off (`0`, `off`,
/// `false`) or on (`1`, `on`, `true`, the default).
pub const LINE_INFO_ENV: &str = "FERROCUDA_LINEINFO";

/// Environment variable naming the ptxas executable that assembles the cubins, or turning
/// cubins off (`0` or `off`).
pub const PTXAS_ENV: &str = "FERROCUDA_PTXAS";

/// Environment variable listing the GPU architectures to assemble cubins for, comma-separated
/// (`sm_80,sm_90`).
pub const CUBIN_ARCHS_ENV: &str = "FERROCUDA_CUBIN_ARCHS";

/// Environment variable that, set to `1`, prints ptxas's per-kernel report (registers, spills,
/// stack, shared and constant memory) as build warnings.
pub const PTXAS_REPORT_ENV: &str = "FERROCUDA_PTXAS_REPORT";

/// Architectures newer than the PTX's that get a cubin by default: the datacenter GPUs
/// (Ampere A100, Hopper H100). Each also runs on the later GPUs of its major version
/// (`sm_80` on `sm_86` and `sm_89`).
pub(crate) const LATER_CUBIN_ARCHS: [&str; 2] = ["sm_80", "sm_90"];

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
    pub(crate) line_info: Option<bool>,
    pub(crate) cubin_archs: Option<Vec<String>>,
    pub(crate) fast_math: Option<FastMath>,
}

/// Which ptxas assembles the cubins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PtxasChoice {
    /// No cubins ([`PTXAS_ENV`] is `0` or `off`).
    Off,
    /// This executable ([`PTXAS_ENV`] names it).
    Path(PathBuf),
    /// Look in the usual places ([`crate::ptxas::locate`]).
    Search,
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
    /// Whether the PTX and the cubins carry line tables.
    pub(crate) line_info: bool,
    /// The architectures to assemble cubins for, in order, and where the list came from
    /// ([`default_cubin_archs`] when it is the default).
    pub(crate) cubin_archs: (Vec<String>, Origin),
    /// Which ptxas assembles them.
    pub(crate) ptxas: PtxasChoice,
    /// Whether ptxas's report is shown as build warnings.
    pub(crate) ptxas_report: bool,
    /// The fast math of every kernel of the crate, and where it came from.
    pub(crate) fast_math: (FastMath, Origin),
    /// The optional passes that run ([`crate::pipeline`]).
    pub(crate) passes: crate::pipeline::PassSelection,
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
        let set = |key: &str| {
            env(key)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let line_info = match set(LINE_INFO_ENV) {
            Some(v) => parse_switch(&v, LINE_INFO_ENV)?,
            None => requested.line_info.unwrap_or(true),
        };
        let cubin_archs = if let Some(list) = set(CUBIN_ARCHS_ENV) {
            let archs: Vec<String> = list
                .split(',')
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(str::to_owned)
                .collect();
            (archs, Origin::Env(CUBIN_ARCHS_ENV))
        } else if let Some(archs) = &requested.cubin_archs {
            (archs.clone(), Origin::Builder("cubin_archs"))
        } else {
            (default_cubin_archs(&arch), Origin::Default)
        };
        check_cubin_archs(&cubin_archs.0, cubin_archs.1, &arch, arch_origin)?;
        let ptxas = match set(PTXAS_ENV) {
            Some(v) if matches!(v.to_ascii_lowercase().as_str(), "0" | "off") => PtxasChoice::Off,
            Some(v) => PtxasChoice::Path(PathBuf::from(v)),
            None => PtxasChoice::Search,
        };
        let ptxas_report = match set(PTXAS_REPORT_ENV) {
            Some(v) => parse_switch(&v, PTXAS_REPORT_ENV)?,
            None => false,
        };
        let fast_math = match set(FAST_MATH_ENV) {
            Some(v) => (
                FastMath::parse(&v).map_err(|e| {
                    Error::new(format!(
                        "invalid value {v:?} of the environment variable {FAST_MATH_ENV}: {e}"
                    ))
                })?,
                Origin::Env(FAST_MATH_ENV),
            ),
            None => match requested.fast_math {
                Some(f) => (f, Origin::Builder("fast_math")),
                None => (FastMath::OFF, Origin::Default),
            },
        };
        let passes = match set(crate::pipeline::PASSES_ENV) {
            Some(v) => crate::pipeline::PassSelection::parse(&v).map_err(|e| {
                Error::new(format!(
                    "the environment variable {}: {e}",
                    crate::pipeline::PASSES_ENV
                ))
            })?,
            None => crate::pipeline::PassSelection::ALL,
        };
        Ok(Config {
            arch,
            arch_origin,
            toolchain,
            toolchain_origin,
            line_info,
            cubin_archs,
            ptxas,
            ptxas_report,
            fast_math,
            passes,
        })
    }
}

/// Reads an on/off environment variable.
fn parse_switch(value: &str, key: &'static str) -> Result<bool, Error> {
    match value.to_ascii_lowercase().as_str() {
        "1" | "on" | "true" | "yes" => Ok(true),
        "0" | "off" | "false" | "no" => Ok(false),
        _ => Err(Error::new(format!(
            "invalid value {value:?} of the environment variable {key}: expected 1/on/true or \
             0/off/false"
        ))),
    }
}

/// The cubins made when neither [`CUBIN_ARCHS_ENV`] nor `Builder::cubin_archs` names them: the
/// PTX's own architecture, then those of the datacenter GPUs (`sm_80`, `sm_90`) newer than it.
///
/// `sm_70` PTX gets `sm_70`, `sm_80` and `sm_90` cubins (Volta and Turing, Ampere and Ada,
/// Hopper run machine code; later GPUs JIT the PTX); `sm_90` PTX gets `sm_90` alone.
pub fn default_cubin_archs(ptx_arch: &str) -> Vec<String> {
    let mut archs = vec![ptx_arch.to_owned()];
    let ptx_number = arch_number(ptx_arch);
    for later in LATER_CUBIN_ARCHS {
        if arch_number(later) > ptx_number {
            archs.push(later.to_owned());
        }
    }
    archs
}

/// The number of an `sm_XY` architecture (`90` for `sm_90a`); 0 when it has none.
pub(crate) fn arch_number(arch: &str) -> u32 {
    arch.strip_prefix("sm_")
        .map(|rest| rest.trim_end_matches(['a', 'f']))
        .and_then(|digits| digits.parse().ok())
        .unwrap_or(0)
}

/// Checks each cubin architecture's spelling, that none is older than the PTX (ptxas cannot
/// assemble PTX for an older GPU) and that none is listed twice.
fn check_cubin_archs(
    archs: &[String],
    origin: Origin,
    ptx_arch: &str,
    ptx_origin: Origin,
) -> Result<(), Error> {
    for (i, arch) in archs.iter().enumerate() {
        validate_arch(arch, origin)?;
        if arch_number(arch) < arch_number(ptx_arch) {
            return Err(Error::new(format!(
                "cubin architecture {arch} ({origin}) is older than the PTX's architecture \
                 {ptx_arch} ({ptx_origin}): ptxas cannot assemble PTX for an older GPU; list only \
                 architectures from {ptx_arch} on"
            )));
        }
        if ptx_arch.ends_with('a') && arch != ptx_arch {
            return Err(Error::new(format!(
                "cubin architecture {arch} ({origin}) differs from the PTX's architecture \
                 {ptx_arch} ({ptx_origin}): PTX for an architecture-specific target (the `a` \
                 suffix) can only be assembled for that very architecture; list {ptx_arch} alone"
            )));
        }
        if archs[..i].contains(arch) {
            return Err(Error::new(format!(
                "cubin architecture {arch} is listed twice ({origin})"
            )));
        }
    }
    Ok(())
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

/// An environment of `pairs` for the `*_with` functions' tests.
#[cfg(test)]
pub(crate) fn env_of<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |k| {
        pairs
            .iter()
            .find(|(key, _)| *key == k)
            .map(|(_, v)| (*v).to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            ..Requested::default()
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
            ..Requested::default()
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

    #[test]
    fn line_info_is_on_unless_turned_off() {
        let c = Config::resolve_with(&Requested::default(), env_of(&[])).unwrap();
        assert!(c.line_info);
        let off = Requested {
            line_info: Some(false),
            ..Requested::default()
        };
        assert!(!Config::resolve_with(&off, env_of(&[])).unwrap().line_info);
        for (value, expected) in [("0", false), ("off", false), ("OFF", false), ("1", true)] {
            let c = Config::resolve_with(&off, env_of(&[(LINE_INFO_ENV, value)])).unwrap();
            assert_eq!(c.line_info, expected, "{value}");
        }
        let m = Config::resolve_with(&off, env_of(&[(LINE_INFO_ENV, "maybe")]))
            .unwrap_err()
            .message()
            .to_owned();
        assert!(m.contains("\"maybe\"") && m.contains(LINE_INFO_ENV), "{m}");
    }

    #[test]
    fn default_cubins_are_the_ptx_arch_and_later_datacenter_archs() {
        assert_eq!(default_cubin_archs("sm_70"), ["sm_70", "sm_80", "sm_90"]);
        assert_eq!(default_cubin_archs("sm_75"), ["sm_75", "sm_80", "sm_90"]);
        assert_eq!(default_cubin_archs("sm_80"), ["sm_80", "sm_90"]);
        assert_eq!(default_cubin_archs("sm_86"), ["sm_86", "sm_90"]);
        assert_eq!(default_cubin_archs("sm_90"), ["sm_90"]);
        assert_eq!(default_cubin_archs("sm_90a"), ["sm_90a"]);
        assert_eq!(default_cubin_archs("sm_100"), ["sm_100"]);
        let c =
            Config::resolve_with(&Requested::default(), env_of(&[(ARCH_ENV, "sm_80")])).unwrap();
        assert_eq!(
            c.cubin_archs,
            (vec!["sm_80".into(), "sm_90".into()], Origin::Default)
        );
    }

    #[test]
    fn cubin_archs_from_the_environment_or_the_builder() {
        let req = Requested {
            cubin_archs: Some(vec!["sm_90".into()]),
            ..Requested::default()
        };
        let c = Config::resolve_with(&req, env_of(&[])).unwrap();
        assert_eq!(
            c.cubin_archs,
            (vec!["sm_90".into()], Origin::Builder("cubin_archs"))
        );
        let c =
            Config::resolve_with(&req, env_of(&[(CUBIN_ARCHS_ENV, " sm_80, sm_86 ,")])).unwrap();
        assert_eq!(
            c.cubin_archs,
            (
                vec!["sm_80".into(), "sm_86".into()],
                Origin::Env(CUBIN_ARCHS_ENV)
            )
        );
        // Older than the PTX: ptxas cannot do it.
        let m = Config::resolve_with(
            &req,
            env_of(&[(ARCH_ENV, "sm_90"), (CUBIN_ARCHS_ENV, "sm_80")]),
        )
        .unwrap_err()
        .message()
        .to_owned();
        assert!(
            m.contains("cubin architecture sm_80 (from the environment variable FERROCUDA_CUBIN_ARCHS) is older than the PTX's architecture sm_90"),
            "{m}"
        );
        let m = Config::resolve_with(&req, env_of(&[(CUBIN_ARCHS_ENV, "sm_90,compute_90")]))
            .unwrap_err()
            .message()
            .to_owned();
        assert!(m.contains("\"compute_90\""), "{m}");
        let m = Config::resolve_with(&req, env_of(&[(CUBIN_ARCHS_ENV, "sm_90,sm_90")]))
            .unwrap_err()
            .message()
            .to_owned();
        assert!(m.contains("sm_90 is listed twice"), "{m}");
        // sm_90a PTX assembles for sm_90a only.
        let m = Config::resolve_with(
            &req,
            env_of(&[(ARCH_ENV, "sm_90a"), (CUBIN_ARCHS_ENV, "sm_90a,sm_90")]),
        )
        .unwrap_err()
        .message()
        .to_owned();
        assert!(
            m.contains("cubin architecture sm_90 (from the environment variable FERROCUDA_CUBIN_ARCHS) differs from the PTX's architecture sm_90a"),
            "{m}"
        );
        let c = Config::resolve_with(
            &req,
            env_of(&[(ARCH_ENV, "sm_90a"), (CUBIN_ARCHS_ENV, "sm_90a")]),
        )
        .unwrap();
        assert_eq!(c.cubin_archs.0, vec!["sm_90a".to_owned()]);
    }

    #[test]
    fn fast_math_is_off_unless_asked_for() {
        let c = Config::resolve_with(&Requested::default(), env_of(&[])).unwrap();
        assert_eq!(c.fast_math, (FastMath::OFF, Origin::Default));
        let req = Requested {
            fast_math: Some(FastMath::CONTRACT),
            ..Requested::default()
        };
        let c = Config::resolve_with(&req, env_of(&[])).unwrap();
        assert_eq!(
            c.fast_math,
            (FastMath::CONTRACT, Origin::Builder("fast_math"))
        );
        // The environment wins, `off` included.
        let c = Config::resolve_with(&req, env_of(&[(FAST_MATH_ENV, "off")])).unwrap();
        assert_eq!(c.fast_math, (FastMath::OFF, Origin::Env(FAST_MATH_ENV)));
        let c =
            Config::resolve_with(&req, env_of(&[(FAST_MATH_ENV, "contract,approx-div")])).unwrap();
        assert!(c.fast_math.0.contract && c.fast_math.0.approx_div && !c.fast_math.0.approx_sqrt);
        let m = Config::resolve_with(&req, env_of(&[(FAST_MATH_ENV, "fma")]))
            .unwrap_err()
            .message()
            .to_owned();
        assert!(
            m.contains("\"fma\"") && m.contains(FAST_MATH_ENV) && m.contains("approx-sqrt"),
            "{m}"
        );
    }

    #[test]
    fn ptxas_choice_and_report_switch() {
        let r = Requested::default();
        let c = Config::resolve_with(&r, env_of(&[])).unwrap();
        assert_eq!(c.ptxas, PtxasChoice::Search);
        assert!(!c.ptxas_report);
        for off in ["0", "off", "OFF"] {
            let c = Config::resolve_with(&r, env_of(&[(PTXAS_ENV, off)])).unwrap();
            assert_eq!(c.ptxas, PtxasChoice::Off, "{off}");
        }
        let c = Config::resolve_with(
            &r,
            env_of(&[(PTXAS_ENV, "/opt/cuda/bin/ptxas"), (PTXAS_REPORT_ENV, "1")]),
        )
        .unwrap();
        assert_eq!(c.ptxas, PtxasChoice::Path("/opt/cuda/bin/ptxas".into()));
        assert!(c.ptxas_report);
    }
}
