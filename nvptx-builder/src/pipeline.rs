//! The optional passes over the optimised module, in order, and the switch that turns them off.
//!
//! After `opt` the linker runs the required rewrites (fences, dead function pointers, the
//! fast math a crate or kernel asked for), then these passes, each of which may delete or
//! narrow a bounds check or an index computation, in this order:
//!
//! | name | pass |
//! |---|---|
//! | `loop_counter_narrowing` | [`crate::passes::loop_counter_narrowing`] |
//! | `load_speculation` | [`crate::passes::load_speculation`] |
//! | `offset_checks` | [`crate::passes::offset_checks`] |
//! | `proved_checks` | [`crate::passes::proved_checks`] |
//! | `check_versioning` | [`crate::passes::check_versioning`], with [`crate::passes::check_versioning::tile_checks`] and, in the fast copies it makes, [`crate::passes::compare_narrowing`] |
//! | `late_unroll` | LLVM's runtime unrolling moved after the passes (below), and `load_speculation` after it |
//!
//! **`late_unroll`.** LLVM unrolls a loop whose trip count is known only at run time by 4
//! (rustc's own pipeline already does, before the linker sees the module), and the copies of
//! its body each keep their bounds check, now of `i`, `i + 1`, ... against counters LLVM
//! derived: a shape the passes' facts cannot follow (`for i in 0..n { sum += a[i * m + j] }`
//! stayed checked, the induction bound `i < n` of [`crate::analysis::induction`] holding only
//! of the rolled loop). With `late_unroll`, rustc and the linker's `opt` run with
//! `-unroll-runtime=false` (loops with a constant trip count still unroll fully), the passes
//! see rolled loops, and after them `opt` runs LLVM's loop unroller ([`LATE_UNROLL_PASSES`])
//! on what they made, the fast copies' loops now without checks and so with one exit; then
//! `load_speculation`, which reads unrolled loops, runs on what the unroller wrote
//! ([`after_unrolling`]). `FERROCUDA_PASSES=-late_unroll` gives the order of before (rustc and
//! `opt` unroll, then every pass), `none` LLVM's own pipeline.
//!
//! [`PASSES_ENV`] (`FERROCUDA_PASSES`) selects them for a build: `none` runs none of them,
//! `all` (the default) every one, and a comma-separated list of `-name` every one but those
//! named (`FERROCUDA_PASSES=-check_versioning,-proved_checks`). A kernel built without them
//! keeps every bounds check rustc wrote and LLVM could not prove: it is the reference the
//! differential tester (`scripts/gpu-run.sh differential`) compares the optimised build with.

use crate::error::Error;
use crate::passes;
use std::fmt;

/// The environment variable that selects the optional passes (see the module's doc).
pub const PASSES_ENV: &str = "FERROCUDA_PASSES";

/// The linker argument carrying a selection other than the default to the linker.
pub(crate) const LINK_ARG: &str = "--nvptx-builder-passes";

/// The optional passes, in the order they run.
pub(crate) const OPTIONAL_PASSES: [&str; 6] = [
    "loop_counter_narrowing",
    "load_speculation",
    "offset_checks",
    "proved_checks",
    "check_versioning",
    LATE_UNROLL,
];

/// The name of the step that moves LLVM's runtime unrolling after the passes.
const LATE_UNROLL: &str = "late_unroll";

/// The `opt` pipeline `late_unroll` runs after the passes: LLVM's loop unroller at its `O3`
/// settings, then the clean-up `O3` runs after it, and the removal of what the passes
/// orphaned. `instcombine<no-verify-fixpoint>` is how LLVM's own pipelines run it: under the
/// plain name, the `opt` of rustc 1.101.0-nightly (2026-10-29) aborts when one iteration does
/// not reach a fixpoint, as it did on `philox_draws`; the pinned toolchain's output is the same
/// either way.
pub(crate) const LATE_UNROLL_PASSES: &str =
    "function(loop-unroll<O3>,instcombine<no-verify-fixpoint>,simplifycfg),globaldce";

/// The LLVM option that holds runtime unrolling back until [`LATE_UNROLL_PASSES`].
pub(crate) const NO_RUNTIME_UNROLL: &str = "-unroll-runtime=false";

/// Which optional passes run: a bit per entry of [`OPTIONAL_PASSES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PassSelection {
    enabled: u8,
}

impl Default for PassSelection {
    fn default() -> Self {
        PassSelection::ALL
    }
}

impl PassSelection {
    /// Every optional pass.
    pub(crate) const ALL: PassSelection = PassSelection {
        enabled: (1 << OPTIONAL_PASSES.len()) - 1,
    };

    /// Parses `none`, `all` or a list of `-name`; the error names the value and the passes.
    pub(crate) fn parse(value: &str) -> Result<PassSelection, Error> {
        let value = value.trim();
        match value {
            "none" => return Ok(PassSelection { enabled: 0 }),
            "all" | "" => return Ok(PassSelection::ALL),
            _ => {}
        }
        let mut selection = PassSelection::ALL;
        for item in value.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let position = item
                .strip_prefix('-')
                .and_then(|name| OPTIONAL_PASSES.iter().position(|p| *p == name));
            let Some(position) = position else {
                return Err(Error::new(format!(
                    "invalid pass selection {value:?} ({item:?}): expected \"none\", \"all\" or \
                     a comma-separated list of -name, the names being {}",
                    OPTIONAL_PASSES.join(", ")
                )));
            };
            selection.enabled &= !(1 << position);
        }
        Ok(selection)
    }

    /// Whether LLVM's runtime unrolling waits until the passes ran (see the module's doc):
    /// rustc and the linker's `opt` then get [`NO_RUNTIME_UNROLL`], and the linker runs
    /// [`LATE_UNROLL_PASSES`] after the passes.
    pub(crate) fn unrolls_late(self) -> bool {
        self.runs(LATE_UNROLL)
    }

    /// Whether the pass named `name` (one of [`OPTIONAL_PASSES`]) runs.
    pub(crate) fn runs(self, name: &str) -> bool {
        OPTIONAL_PASSES
            .iter()
            .position(|p| *p == name)
            .is_some_and(|i| self.enabled & (1 << i) != 0)
    }
}

impl fmt::Display for PassSelection {
    /// The form [`PassSelection::parse`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.enabled {
            0 => f.write_str("none"),
            e if e == PassSelection::ALL.enabled => f.write_str("all"),
            _ => {
                let off: Vec<String> = OPTIONAL_PASSES
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| self.enabled & (1 << i) == 0)
                    .map(|(_, p)| format!("-{p}"))
                    .collect();
                f.write_str(&off.join(","))
            }
        }
    }
}

/// What the optional passes made of a module.
pub(crate) struct Optimised {
    /// The module, when a pass changed it.
    pub(crate) text: Option<String>,
    /// The entry tests of the kernels [`crate::passes::check_versioning`] versioned: `(entry, program)`.
    pub(crate) entry_tests: Vec<(String, String)>,
}

/// Runs the selected optional passes over `text`, in the order of [`OPTIONAL_PASSES`].
pub(crate) fn run(text: &str, selection: PassSelection) -> Optimised {
    let mut current: Option<String> = None;
    let step = |name: &str, pass: fn(&str) -> Option<String>, current: &mut Option<String>| {
        if selection.runs(name)
            && let Some(changed) = pass(current.as_deref().unwrap_or(text))
        {
            *current = Some(changed);
        }
    };
    step(
        "loop_counter_narrowing",
        passes::loop_counter_narrowing::apply,
        &mut current,
    );
    // With `late_unroll`, on the functions without loops here, on every one after the
    // unroller ([`after_unrolling`]).
    let late = selection.unrolls_late();
    let speculation = move |ir: &str| passes::load_speculation::apply_to(ir, late);
    if selection.runs("load_speculation")
        && let Some(changed) = speculation(current.as_deref().unwrap_or(text))
    {
        current = Some(changed);
    }
    step("offset_checks", passes::offset_checks::apply, &mut current);
    step("proved_checks", passes::proved_checks::apply, &mut current);
    let mut entry_tests = Vec::new();
    if selection.runs("check_versioning")
        && let Some(versioned) = passes::check_versioning::apply(
            current.as_deref().unwrap_or(text),
            selection.unrolls_late(),
        )
    {
        entry_tests = versioned.notes;
        current = Some(passes::compare_narrowing::apply(&versioned.text).unwrap_or(versioned.text));
    }
    Optimised {
        text: current,
        entry_tests,
    }
}

/// With `late_unroll`, the passes that read loops as LLVM unrolls them, run on the module the
/// unroller ([`LATE_UNROLL_PASSES`]) wrote: [`passes::load_speculation`], which moves the
/// loads of an unrolled loop's checked iterations above their checks (SpMV's gather: with it
/// run on the rolled loop instead, the unrolled copies kept their loads apart and SpMV ran at
/// 0.58x its CUDA C twin on the H200, against 1.01x). It ran on the functions without loops
/// before the unroller too, so that both copies [`passes::check_versioning`] makes of one
/// inherit its loads; running it twice on a function is sound, each run being. `None` when
/// nothing changed.
pub(crate) fn after_unrolling(text: &str, selection: PassSelection) -> Option<String> {
    if !selection.unrolls_late() || !selection.runs("load_speculation") {
        return None;
    }
    passes::load_speculation::apply(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections_read_back_and_name_the_passes() {
        let all = PassSelection::parse("all").unwrap();
        assert!(OPTIONAL_PASSES.iter().all(|p| all.runs(p)));
        assert_eq!(all.to_string(), "all");
        let none = PassSelection::parse("none").unwrap();
        assert!(OPTIONAL_PASSES.iter().all(|p| !none.runs(p)));
        assert_eq!(PassSelection::parse(&none.to_string()).unwrap(), none);
        let some = PassSelection::parse("-check_versioning, -offset_checks").unwrap();
        assert!(!some.runs("check_versioning") && !some.runs("offset_checks"));
        assert!(some.runs("proved_checks"));
        assert_eq!(some.to_string(), "-offset_checks,-check_versioning");
        assert_eq!(PassSelection::parse(&some.to_string()).unwrap(), some);
        let e = PassSelection::parse("-tile_checks")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("\"-tile_checks\"") && e.contains("check_versioning"),
            "{e}"
        );
        assert!(PassSelection::parse("check_versioning").is_err());
    }

    #[test]
    fn no_pass_runs_when_none_is_selected() {
        // A check the range analysis decides: `proved_checks` deletes it, `none` keeps it.
        let body = "define void @f(i32 %n) {\nstart:\n  %c = icmp ult i32 %n, 0\n  \
                    br i1 %c, label %panic, label %ok\n\npanic:\n  call void @p()\n  \
                    unreachable\n\nok:\n  ret void\n}\n";
        let none = run(body, PassSelection::parse("none").unwrap());
        assert!(none.text.is_none() && none.entry_tests.is_empty());
        let all = run(body, PassSelection::ALL);
        assert!(all.text.is_some_and(|t| t.contains("br label %ok")));
    }
}
