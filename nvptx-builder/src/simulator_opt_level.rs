//! The warning for a kernel crate built without optimisation.
//!
//! Without a GPU, `cargo test` runs every kernel on the CPU simulator, once per simulated
//! thread: the kernel crate's host code *is* the simulated GPU code, and at `opt-level = 0`
//! it runs 5-25x slower than in a release build. A workspace fixes that with profile overrides
//! in its root `Cargo.toml`, but cargo ignores a dependency's profile settings, so ferrocuda's
//! own overrides never reach a downstream project. The build script sees the kernel crate's
//! optimisation level (`OPT_LEVEL`, which follows `[profile.*.package.<crate>]` overrides) and
//! says once, on one line, which lines to add, and how to silence it ([`QUIET_ENV`]).

/// Environment variable that silences the warning when set to anything but empty or `0`.
pub(crate) const QUIET_ENV: &str = "FERROCUDA_QUIET_OPT_LEVEL";

/// Prints the warning when the kernel crate being built (`CARGO_PKG_NAME`) is unoptimised.
pub(crate) fn warn_if_unoptimised() {
    println!("cargo:rerun-if-env-changed={QUIET_ENV}");
    let package = std::env::var("CARGO_PKG_NAME").unwrap_or_default();
    if let Some(text) = advice(&package, |k| std::env::var(k).ok()) {
        println!("cargo::warning={text}");
    }
}

/// The warning for `package` under the build-script environment `env`, or `None` when the
/// crate is optimised, when `OPT_LEVEL` is unknown, or when [`QUIET_ENV`] silences it.
pub(crate) fn advice(package: &str, env: impl Fn(&str) -> Option<String>) -> Option<String> {
    if env(QUIET_ENV).is_some_and(|v| !matches!(v.trim(), "" | "0")) {
        return None;
    }
    if env("OPT_LEVEL")?.trim() != "0" {
        return None;
    }
    // Cargo's `PROFILE` is `debug` for the `dev` and `test` profiles (and profiles inheriting
    // from them), `release` for `release` and `bench`.
    let profile = match env("PROFILE").as_deref() {
        Some("release") => "release",
        _ => "dev",
    };
    Some(format!(
        "nvptx-builder: `{package}` is built with opt-level 0, so on the CPU simulator (`cargo \
         test` without a GPU) its kernels run unoptimised, 5-25x slower than in a release \
         build; cargo takes profile settings only from the workspace root, so add to its \
         Cargo.toml: `[profile.{profile}.package.{package}] opt-level = 3` and \
         `[profile.{profile}.package.\"*\"] opt-level = 3` (each table on its own line) \
         (silence this with {QUIET_ENV}=1)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::env_of;

    #[test]
    fn warns_at_opt_level_0_with_the_lines_to_add() {
        let text = advice(
            "my-kernels",
            env_of(&[("OPT_LEVEL", "0"), ("PROFILE", "debug")]),
        )
        .expect("a warning at opt-level 0");
        assert!(
            text.contains("`[profile.dev.package.my-kernels] opt-level = 3`"),
            "{text}"
        );
        assert!(
            text.contains("`[profile.dev.package.\"*\"] opt-level = 3`"),
            "{text}"
        );
        assert!(text.contains("FERROCUDA_QUIET_OPT_LEVEL=1"), "{text}");
        assert!(!text.contains('\n'), "one cargo::warning line: {text}");
        let text = advice("k", env_of(&[("OPT_LEVEL", "0"), ("PROFILE", "release")])).unwrap();
        assert!(
            text.contains("`[profile.release.package.k] opt-level = 3`"),
            "{text}"
        );
    }

    #[test]
    fn silent_when_optimised_unknown_or_silenced() {
        for level in ["1", "2", "3", "s", "z"] {
            let env = [("OPT_LEVEL", level), ("PROFILE", "debug")];
            assert_eq!(advice("k", env_of(&env)), None, "opt-level {level}");
        }
        assert_eq!(advice("k", env_of(&[("PROFILE", "debug")])), None);
        for quiet in ["1", "yes"] {
            let env = [("OPT_LEVEL", "0"), (QUIET_ENV, quiet)];
            assert_eq!(advice("k", env_of(&env)), None, "{QUIET_ENV}={quiet}");
        }
        for not_quiet in ["", "0"] {
            let env = [("OPT_LEVEL", "0"), (QUIET_ENV, not_quiet)];
            assert!(
                advice("k", env_of(&env)).is_some(),
                "{QUIET_ENV}={not_quiet:?}"
            );
        }
    }
}
