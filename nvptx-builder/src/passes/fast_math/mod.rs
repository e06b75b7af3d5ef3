//! Opt-in fast math: LLVM fast-math flags added at link time, per kernel crate or per kernel.
//!
//! Off by default: rustc gives floating-point operations no fast-math flags, so every `a * b + c`
//! is a multiply and an add, each rounded (`mul.rn.f32`, `add.rn.f32`), bit for bit what the
//! simulator computes. [`FastMath`] turns on, each on its own:
//!
//! * `contract`: `contract` on every `fmul`, `fadd`, `fsub` and `fneg`, which lets `llc` fuse a
//!   multiply and the add or subtract that uses it into one `fma.rn` (one rounding instead of
//!   two), as nvcc does by default (`--fmad=true`);
//! * `approx-div`: `afn` on every `f32` division, which `llc` lowers to `div.approx.f32`
//!   (at most 2 ulp of error for divisors of magnitude in [2^-126, 2^126]; beyond that the
//!   quotient is 0) instead of the IEEE-rounded `div.rn.f32` (nvcc's `--prec-div=false`);
//! * `approx-sqrt`: `afn` on every `f32` square root, lowered to `sqrt.approx.f32` instead of
//!   `sqrt.rn.f32` (nvcc's `--prec-sqrt=false`).
//!
//! The crate-wide setting ([`crate::Builder::fast_math`], [`FAST_MATH_ENV`]) reaches the linker
//! as the argument [`LINK_ARG`]. A kernel opts in alone with `#[kernel(fast_math)]`: the macro
//! leaves a marker static in the section [`FAST_MATH_SECTION`] whose bytes are
//! `<entry symbol>=<flags>` (the spelling of [`FastMath::parse`]); [`apply`] reads and removes
//! the markers.
//!
//! The flags are added after `opt` has inlined everything it inlines, to the instructions of
//! each entry function that opted in (its own body and what was inlined into it), of each
//! function left out of line that only such kernels call (directly or through other functions,
//! with what all of them allow), and, with the crate-wide setting, of every function. A function
//! that another kernel also calls, or whose address is taken, keeps the crate-wide setting. Nothing changes when no flag is on and no kernel opted in:
//! the module goes to `llc` exactly as before.

use crate::error::{Error, Result};
use crate::ir::markers::{defined_function, push_global_without_markers};
use crate::ir::syntax::symbol_name;
use std::collections::{HashMap, HashSet};
use std::fmt;

/// Environment variable that sets the crate-wide fast math: `off` (or `0`), or a
/// comma-separated list of `contract`, `approx-div`, `approx-sqrt` (`all` for the three).
pub const FAST_MATH_ENV: &str = "FERROCUDA_FAST_MATH";

/// Link section of the markers `#[kernel(fast_math)]` leaves for the linker.
///
/// The `#[kernel]` macro repeats this text; a test there compares it with this constant.
pub const FAST_MATH_SECTION: &str = ".ferrocuda.fast_math";

/// The linker argument that carries the crate-wide setting to linker mode.
pub(crate) const LINK_ARG: &str = "--nvptx-builder-fast-math";

/// Which fast-math relaxations a crate or a kernel allows; all off by default
/// ([`FastMath::OFF`]).
///
/// ```no_run
/// // build.rs: every kernel of the crate may fuse multiply-adds.
/// fn main() {
///     nvptx_builder::Builder::new()
///         .fast_math(nvptx_builder::FastMath::CONTRACT)
///         .build()
/// }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct FastMath {
    /// Fuse a multiply and a dependent add or subtract into one `fma.rn` (LLVM's `contract`).
    pub contract: bool,
    /// `f32` division as `div.approx.f32` (LLVM's `afn` on `fdiv float`).
    pub approx_div: bool,
    /// `f32` square root as `sqrt.approx.f32` (LLVM's `afn` on `llvm.sqrt.f32`).
    pub approx_sqrt: bool,
}

/// The names of the relaxations, as [`FastMath::parse`] reads them, in order.
pub const FAST_MATH_NAMES: [&str; 3] = ["contract", "approx-div", "approx-sqrt"];

impl FastMath {
    /// Nothing relaxed: IEEE-rounded operations, bit for bit the simulator's (the default).
    pub const OFF: FastMath = FastMath {
        contract: false,
        approx_div: false,
        approx_sqrt: false,
    };

    /// Multiply-add contraction only, nvcc's default (`--fmad=true`).
    pub const CONTRACT: FastMath = FastMath {
        contract: true,
        approx_div: false,
        approx_sqrt: false,
    };

    /// Contraction, approximate division and approximate square root.
    pub const ALL: FastMath = FastMath {
        contract: true,
        approx_div: true,
        approx_sqrt: true,
    };

    /// Whether nothing is relaxed.
    pub fn is_off(self) -> bool {
        self == FastMath::OFF
    }

    /// Reads `off`, `0`, `all` or a comma-separated list of [`FAST_MATH_NAMES`]
    /// (`contract,approx-div`); an unknown name is an error that lists the known ones.
    pub fn parse(text: &str) -> std::result::Result<FastMath, String> {
        let text = text.trim();
        match text.to_ascii_lowercase().as_str() {
            "off" | "0" | "none" | "" => return Ok(FastMath::OFF),
            "all" => return Ok(FastMath::ALL),
            _ => {}
        }
        let mut out = FastMath::OFF;
        for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name {
                "contract" => out.contract = true,
                "approx-div" => out.approx_div = true,
                "approx-sqrt" => out.approx_sqrt = true,
                other => {
                    return Err(format!(
                        "unknown fast-math option {other:?}: expected `off`, `all` or a \
                         comma-separated list of {}",
                        FAST_MATH_NAMES.join(", ")
                    ));
                }
            }
        }
        Ok(out)
    }

    /// The union of two settings.
    pub fn union(self, other: FastMath) -> FastMath {
        FastMath {
            contract: self.contract || other.contract,
            approx_div: self.approx_div || other.approx_div,
            approx_sqrt: self.approx_sqrt || other.approx_sqrt,
        }
    }
}

impl fmt::Display for FastMath {
    /// `off`, or the comma-separated names of what is on (what [`FastMath::parse`] reads).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let on = [self.contract, self.approx_div, self.approx_sqrt];
        let names: Vec<&str> = FAST_MATH_NAMES
            .iter()
            .zip(on)
            .filter_map(|(name, on)| on.then_some(*name))
            .collect();
        if names.is_empty() {
            f.write_str("off")
        } else {
            f.write_str(&names.join(","))
        }
    }
}

/// What [`apply`] did: the rewritten module and each entry's setting (crate-wide included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Applied {
    /// The module text with the flags added and the markers removed.
    pub(crate) text: String,
    /// The fast math of each kernel entry that has any, by symbol, sorted.
    pub(crate) kernels: Vec<(String, FastMath)>,
}

/// Adds the fast-math flags to the optimised module `ir` (text of `llvm-dis`): `crate_wide` to
/// every function, each marker's flags to its entry. `None` when nothing is on and there is no
/// marker (the module is used unchanged).
pub(crate) fn apply(ir: &str, crate_wide: FastMath) -> Result<Option<Applied>> {
    let markers = markers(ir)?;
    if crate_wide.is_off() && markers.is_empty() {
        return Ok(None);
    }
    let per_kernel: HashMap<&str, FastMath> = markers
        .iter()
        .map(|m| (m.kernel.as_str(), m.flags))
        .collect();
    let marker_names: Vec<&str> = markers.iter().map(|m| m.global.as_str()).collect();
    let functions = function_flags(ir, crate_wide, &per_kernel);
    let mut text = String::with_capacity(ir.len() + ir.len() / 16);
    let mut kernels: Vec<(String, FastMath)> = Vec::new();
    // The flags of the function being copied, `None` outside a function body.
    let mut current: Option<FastMath> = None;
    for line in ir.lines() {
        if line.starts_with('@') {
            push_global_without_markers(&mut text, line, &marker_names);
            continue;
        }
        if let Some(name) = defined_function(line) {
            let flags = functions.get(&name).copied().unwrap_or(crate_wide);
            if line.contains("ptx_kernel") && !flags.is_off() {
                kernels.push((name, flags));
            }
            current = Some(flags);
        } else if line.starts_with('}') {
            current = None;
        } else if let Some(flags) = current
            && let Some(flagged) = flag_instruction(line, flags)
        {
            text.push_str(&flagged);
            text.push('\n');
            continue;
        }
        text.push_str(line);
        text.push('\n');
    }
    for m in &markers {
        if !kernels.iter().any(|(k, _)| *k == m.kernel) {
            return Err(Error::new(format!(
                "#[kernel(fast_math)] marks the kernel `{}`, but the module has no entry of that \
                 name",
                m.kernel
            )));
        }
    }
    kernels.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Some(Applied { text, kernels }))
}

/// What starts the PTX comment line naming a kernel built with fast math:
/// `// ferrocuda fast math: <entry symbol> <flags>`, one line per kernel before `.version`.
///
/// The runtime's `InspectKernel::fast_math` reads these lines; it repeats this text, and a test
/// there compares it with this constant.
pub const PTX_NOTE_PREFIX: &str = "// ferrocuda fast math: ";

/// `ptx` with a [`PTX_NOTE_PREFIX`] line for each of `kernels` before its `.version` line (at
/// the end of the leading comments when it has none).
pub(crate) fn ptx_note(ptx: &str, kernels: &[(String, FastMath)]) -> String {
    crate::ir::ptx_notes::ptx_notes(ptx, PTX_NOTE_PREFIX, kernels)
}

/// The flags of every defined function: a kernel's are the crate's and its marker's; another
/// function's are the crate's plus what every function that calls it allows (the greatest fixed
/// point, so that recursion keeps them), so that a helper `opt` did not inline gets a kernel's
/// flags only when no other caller can reach it. A function whose address is taken (it may be
/// called from anywhere) or that nothing calls keeps the crate's.
fn function_flags(
    ir: &str,
    crate_wide: FastMath,
    per_kernel: &HashMap<&str, FastMath>,
) -> HashMap<String, FastMath> {
    // Each defined function: whether it is a kernel, and who calls it.
    let mut defined: Vec<(String, bool)> = Vec::new();
    let mut callers: HashMap<String, Vec<String>> = HashMap::new();
    let mut escaping: HashSet<String> = HashSet::new();
    let mut current: Option<String> = None;
    for line in ir.lines() {
        if let Some(name) = defined_function(line) {
            defined.push((name.clone(), line.contains("ptx_kernel")));
            current = Some(name);
            continue;
        }
        if line.starts_with('}') {
            current = None;
            continue;
        }
        for (callee, is_call) in function_references(line) {
            match (&current, is_call) {
                (Some(caller), true) => callers.entry(callee).or_default().push(caller.clone()),
                _ => {
                    escaping.insert(callee);
                }
            }
        }
    }
    let mut flags: HashMap<String, FastMath> = HashMap::new();
    for (name, kernel) in &defined {
        let own = if *kernel {
            crate_wide.union(per_kernel.get(name.as_str()).copied().unwrap_or_default())
        } else if callers.contains_key(name) && !escaping.contains(name) {
            FastMath::ALL
        } else {
            crate_wide
        };
        flags.insert(name.clone(), own);
    }
    // Lower each helper to what all its callers allow until nothing changes.
    loop {
        let mut changed = false;
        for (name, kernel) in &defined {
            if *kernel || escaping.contains(name) {
                continue;
            }
            let Some(calls) = callers.get(name) else {
                continue;
            };
            let mut allowed = FastMath::ALL;
            for caller in calls {
                let theirs = flags.get(caller).copied().unwrap_or(crate_wide);
                allowed = FastMath {
                    contract: allowed.contract && theirs.contract,
                    approx_div: allowed.approx_div && theirs.approx_div,
                    approx_sqrt: allowed.approx_sqrt && theirs.approx_sqrt,
                };
            }
            let new = crate_wide.union(allowed);
            if flags.get(name) != Some(&new) {
                flags.insert(name.clone(), new);
                changed = true;
            }
        }
        if !changed {
            return flags;
        }
    }
}

/// The global names `line` mentions, each with whether it is the callee of a `call` in it.
fn function_references(line: &str) -> Vec<(String, bool)> {
    let b = line.as_bytes();
    let callee_at = line
        .find(" call ")
        .and_then(|c| line[c..].find(" @").map(|a| c + a + 2));
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' if i == 0 || b[i - 1] != b'@' => i = crate::ir::syntax::skip_string(b, i),
            b';' => break,
            b'@' => {
                let len = crate::ir::syntax::name_len(&line[i + 1..]);
                if len > 0 {
                    let name = symbol_name(&line[i + 1..i + 1 + len]);
                    out.push((name, callee_at == Some(i + 1)));
                }
                i += 1 + len;
            }
            _ => i += 1,
        }
    }
    out
}

/// One `#[kernel(fast_math)]` marker.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Marker {
    /// The marker global's name as written in the IR.
    global: String,
    /// The entry symbol it names.
    kernel: String,
    /// What the kernel allows.
    flags: FastMath,
}

/// The markers of the module: globals in [`FAST_MATH_SECTION`] holding `<symbol>=<flags>`.
fn markers(ir: &str) -> Result<Vec<Marker>> {
    crate::ir::markers::read(ir, FAST_MATH_SECTION, "fast_math")?
        .into_iter()
        .map(|m| {
            let flags = FastMath::parse(&m.value).map_err(|e| {
                Error::new(format!(
                    "cannot read a #[kernel(fast_math)] marker ({e}): {}={}",
                    m.kernel, m.value
                ))
            })?;
            Ok(Marker {
                global: m.global,
                kernel: m.kernel,
                flags,
            })
        })
        .collect()
}

/// The LLVM fast-math flag keywords (an instruction may already carry some).
const LLVM_FLAGS: [&str; 8] = [
    "fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc",
];

/// `line` with the flags `flags` asks for added, or `None` when it is not an instruction they
/// concern (or already has them).
fn flag_instruction(line: &str, flags: FastMath) -> Option<String> {
    let (lhs, rhs) = line.split_once(" = ")?;
    if !lhs.trim_start().starts_with('%') {
        return None;
    }
    let (opcode, rest) = rhs.split_once(' ')?;
    let (wanted, after_flags) = match opcode {
        "fmul" | "fadd" | "fsub" | "fneg" if flags.contract => ("contract", rest),
        "fdiv" if flags.approx_div && operand_type(rest) == "float" => ("afn", rest),
        "call" | "tail" | "notail" if flags.approx_sqrt && rest.contains("@llvm.sqrt.f32(") => {
            let rest = rest.strip_prefix("call ").unwrap_or(rest);
            ("afn", rest)
        }
        _ => return None,
    };
    if existing_flags(after_flags).any(|f| f == wanted || f == "fast") {
        return None;
    }
    // Insert right after the opcode (`call` for a call), before any existing flag.
    let head_len = line.len() - after_flags.len();
    Some(format!(
        "{}{wanted} {}",
        &line[..head_len],
        &line[head_len..]
    ))
}

/// The fast-math flag keywords at the start of `rest`.
fn existing_flags(rest: &str) -> impl Iterator<Item = &str> {
    rest.split(' ').take_while(|t| LLVM_FLAGS.contains(t))
}

/// The operand type after an instruction's flags (`float` in `fdiv nnan float %a, %b`).
fn operand_type(rest: &str) -> &str {
    rest.split(' ')
        .find(|t| !LLVM_FLAGS.contains(t))
        .unwrap_or("")
}

#[cfg(test)]
mod tests;
