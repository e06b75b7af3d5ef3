//! Which image of a kernel crate's module to hand the driver: one of its cubins or its PTX.
//!
//! A cubin for `sm_XY` runs on GPUs of compute capability `X.Z` with `Z >= Y` (same major
//! version); an architecture-specific one (`sm_90a`) only on `X.Y` itself. [`best_cubin`] prefers
//! the exact match, then the highest minor version below the GPU's. PTX runs on every GPU at
//! least as new as its target, after the driver compiles it at load (seconds for a large module
//! when the driver's compute cache does not hold it).
//!
//! [`LOAD_MODE_ENV`] (`FERROCUDA_MODULE_LOAD`) picks the policy: `auto` (the default: the best
//! cubin, the PTX when there is none or the driver rejects it), `ptx` (always the PTX: for
//! benchmarks of the JIT, or to sidestep a driver problem with the cubins), `cubin` (a cubin or
//! an error: for benchmarks that must not JIT).

/// Environment variable choosing how modules are loaded: `auto`, `ptx` or `cubin`.
pub(crate) const LOAD_MODE_ENV: &str = "FERROCUDA_MODULE_LOAD";

/// The policy of [`LOAD_MODE_ENV`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LoadMode {
    /// The best cubin, else (or when the driver rejects it) the PTX.
    Auto,
    /// Always the PTX.
    Ptx,
    /// The best cubin; none is an error.
    Cubin,
}

impl LoadMode {
    /// Reads the value of [`LOAD_MODE_ENV`] (`None`: unset); the error names the variable and
    /// the values it accepts.
    pub(crate) fn parse(value: Option<&str>) -> Result<LoadMode, String> {
        let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
            return Ok(LoadMode::Auto);
        };
        match value.to_ascii_lowercase().as_str() {
            "auto" => Ok(LoadMode::Auto),
            "ptx" => Ok(LoadMode::Ptx),
            "cubin" => Ok(LoadMode::Cubin),
            _ => Err(format!(
                "{LOAD_MODE_ENV}={value:?} is not one of auto, ptx, cubin"
            )),
        }
    }

    /// The mode of this process's environment (read once).
    pub(crate) fn from_env() -> Result<LoadMode, String> {
        static MODE: std::sync::OnceLock<Result<LoadMode, String>> = std::sync::OnceLock::new();
        MODE.get_or_init(|| LoadMode::parse(std::env::var(LOAD_MODE_ENV).ok().as_deref()))
            .clone()
    }
}

/// What to try loading, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LoadPlan {
    /// The cubin at this index of the module's binaries; the PTX if the driver rejects it.
    CubinThenPtx(usize),
    /// The cubin at this index, and nothing else.
    CubinOnly(usize),
    /// The PTX.
    Ptx,
}

/// The plan for a GPU of compute capability `capability` and a module with cubins for `archs`,
/// under `mode`; an error (for [`LoadMode::Cubin`] without a suitable cubin) names the GPU's
/// architecture and the cubins there are.
pub(crate) fn plan(
    mode: LoadMode,
    capability: (u32, u32),
    archs: &[&str],
) -> Result<LoadPlan, String> {
    match (mode, best_cubin(capability, archs)) {
        (LoadMode::Ptx, _) => Ok(LoadPlan::Ptx),
        (LoadMode::Auto, Some(i)) => Ok(LoadPlan::CubinThenPtx(i)),
        (LoadMode::Auto, None) => Ok(LoadPlan::Ptx),
        (LoadMode::Cubin, Some(i)) => Ok(LoadPlan::CubinOnly(i)),
        (LoadMode::Cubin, None) => {
            let (major, minor) = capability;
            let there = if archs.is_empty() {
                "the module has no cubins (its build found no ptxas, or FERROCUDA_PTXAS=0)"
                    .to_owned()
            } else {
                format!("the module has cubins for {}", archs.join(", "))
            };
            Err(format!(
                "{LOAD_MODE_ENV}=cubin, but no cubin runs on this GPU (sm_{major}{minor}): \
                 {there}; build with FERROCUDA_CUBIN_ARCHS=sm_{major}{minor}, or unset \
                 {LOAD_MODE_ENV} to load the PTX"
            ))
        }
    }
}

/// The index in `archs` of the cubin that suits a GPU of compute capability `capability` best
/// (see the module documentation), or `None` when none runs there.
pub(crate) fn best_cubin(capability: (u32, u32), archs: &[&str]) -> Option<usize> {
    let mut best: Option<(usize, u32)> = None;
    for (i, arch) in archs.iter().enumerate() {
        let Some((major, minor, specific)) = parse_arch(arch) else {
            continue;
        };
        let runs = major == capability.0
            && if specific {
                minor == capability.1
            } else {
                minor <= capability.1
            };
        if runs && best.is_none_or(|(_, best_minor)| minor > best_minor) {
            best = Some((i, minor));
        }
    }
    best.map(|(i, _)| i)
}

/// `sm_XY` as `(X, Y, architecture-specific)`: the last digit is the minor version
/// (`sm_90` → 9.0, `sm_86` → 8.6, `sm_120` → 12.0); an `a` suffix makes it specific to that
/// version. `None` for anything else.
fn parse_arch(arch: &str) -> Option<(u32, u32, bool)> {
    let rest = arch.strip_prefix("sm_")?;
    let (digits, specific) = match rest.strip_suffix('a') {
        Some(d) => (d, true),
        None => (rest.strip_suffix('f').unwrap_or(rest), false),
    };
    if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    Some((major.parse().ok()?, minor.parse().ok()?, specific))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exact_match_then_the_highest_lower_minor_of_the_same_major() {
        let archs = ["sm_70", "sm_80", "sm_90"];
        assert_eq!(best_cubin((9, 0), &archs), Some(2));
        assert_eq!(best_cubin((8, 0), &archs), Some(1));
        // Ada and the consumer Ampere GPUs run the sm_80 cubin.
        assert_eq!(best_cubin((8, 6), &archs), Some(1));
        assert_eq!(best_cubin((8, 9), &archs), Some(1));
        // Turing runs sm_70 machine code.
        assert_eq!(best_cubin((7, 5), &archs), Some(0));
        // Order in the list does not matter; the exact match wins over a lower minor.
        assert_eq!(best_cubin((8, 6), &["sm_86", "sm_80"]), Some(0));
        assert_eq!(best_cubin((8, 6), &["sm_80", "sm_86"]), Some(1));
        assert_eq!(best_cubin((8, 7), &["sm_80", "sm_86"]), Some(1));
    }

    #[test]
    fn no_cubin_of_another_major_or_a_higher_minor() {
        let archs = ["sm_70", "sm_80", "sm_90"];
        // Blackwell (10.0, 12.0) and Pascal (6.1) get none: the PTX is JIT-compiled (or, for
        // Pascal, rejected as older than the PTX's target).
        assert_eq!(best_cubin((10, 0), &archs), None);
        assert_eq!(best_cubin((12, 0), &archs), None);
        assert_eq!(best_cubin((6, 1), &archs), None);
        assert_eq!(best_cubin((8, 0), &["sm_86"]), None);
        assert_eq!(best_cubin((9, 0), &[]), None);
        // An sm_120 cubin is 12.0, not 1.20.
        assert_eq!(best_cubin((12, 0), &["sm_120"]), Some(0));
        assert_eq!(best_cubin((10, 0), &["sm_100"]), Some(0));
        assert_eq!(best_cubin((1, 2), &["sm_120"]), None);
    }

    #[test]
    fn architecture_specific_cubins_only_on_their_own_version() {
        assert_eq!(best_cubin((9, 0), &["sm_90a"]), Some(0));
        assert_eq!(best_cubin((9, 1), &["sm_90a"]), None);
        assert_eq!(best_cubin((10, 3), &["sm_100f"]), Some(0));
        // Names that are not architectures are ignored.
        assert_eq!(
            best_cubin((9, 0), &["compute_90", "sm_", "sm_9", "sm_9x0"]),
            None
        );
    }

    #[test]
    fn the_plan_of_each_mode() {
        let archs = ["sm_80", "sm_90"];
        assert_eq!(
            plan(LoadMode::Auto, (9, 0), &archs),
            Ok(LoadPlan::CubinThenPtx(1))
        );
        assert_eq!(plan(LoadMode::Auto, (10, 0), &archs), Ok(LoadPlan::Ptx));
        assert_eq!(plan(LoadMode::Auto, (9, 0), &[]), Ok(LoadPlan::Ptx));
        assert_eq!(plan(LoadMode::Ptx, (9, 0), &archs), Ok(LoadPlan::Ptx));
        assert_eq!(
            plan(LoadMode::Cubin, (8, 6), &archs),
            Ok(LoadPlan::CubinOnly(0))
        );
        let e = plan(LoadMode::Cubin, (10, 0), &archs).unwrap_err();
        assert_eq!(
            e,
            "FERROCUDA_MODULE_LOAD=cubin, but no cubin runs on this GPU (sm_100): the module has \
             cubins for sm_80, sm_90; build with FERROCUDA_CUBIN_ARCHS=sm_100, or unset \
             FERROCUDA_MODULE_LOAD to load the PTX"
        );
        let e = plan(LoadMode::Cubin, (9, 0), &[]).unwrap_err();
        assert!(e.contains("(sm_90): the module has no cubins"), "{e}");
    }

    #[test]
    fn the_environment_variable() {
        assert_eq!(LoadMode::parse(None), Ok(LoadMode::Auto));
        assert_eq!(LoadMode::parse(Some("")), Ok(LoadMode::Auto));
        assert_eq!(LoadMode::parse(Some("auto")), Ok(LoadMode::Auto));
        assert_eq!(LoadMode::parse(Some(" PTX ")), Ok(LoadMode::Ptx));
        assert_eq!(LoadMode::parse(Some("cubin")), Ok(LoadMode::Cubin));
        assert_eq!(
            LoadMode::parse(Some("sass")),
            Err("FERROCUDA_MODULE_LOAD=\"sass\" is not one of auto, ptx, cubin".to_owned())
        );
    }
}
