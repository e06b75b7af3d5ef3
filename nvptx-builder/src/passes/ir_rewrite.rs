//! Link-time rewrite of textual LLVM IR: static shared memory and constant memory.
//!
//! Rust has no address-space attribute for statics, so the device library marks them with a
//! link section and this pass moves them where the NVPTX backend wants them:
//!
//! * globals in section [`SHARED_SECTION`] move to `addrspace(3)` (`.shared`) and get an
//!   `undef` initializer (shared memory cannot be initialised);
//! * globals in section [`CONSTANT_SECTION`] move to `addrspace(4)` (`.const`), keep their
//!   initializer, become `externally_initialized` (the host writes them with
//!   `cuModuleGetGlobal` + a copy, so their initial value must not be folded into code) and get
//!   external linkage so they keep their name in the PTX.
//!
//! The section attribute is dropped from moved globals. With opaque pointers every other use
//! `@NAME` becomes `addrspacecast (ptr addrspace(N) @NAME to ptr)`, which keeps the module
//! valid; LLVM's address-space inference then turns the generic accesses into
//! `ld.shared`/`st.shared`/`ld.const`. Moved globals are removed from `@llvm.used` and
//! `@llvm.compiler.used` (rustc needs `#[used]` on shared statics, but after the move an unused
//! shared array may as well be dropped). Constant-memory globals are returned so the linker can
//! keep them through internalization.

use crate::contract::{CONSTANT_SECTION, SHARED_SECTION};
use crate::error::{Error, Result};
use crate::ir::syntax::{GlobalLine, name_len, skip_string, symbol_name, used_list_keeping};
use std::collections::HashMap;

const SHARED_ADDRSPACE: u32 = 3;
const CONSTANT_ADDRSPACE: u32 = 4;

/// The result of [`rewrite`].
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Rewritten {
    /// The rewritten module text (the input unchanged when nothing had to move).
    pub(crate) text: String,
    /// Symbol names of the globals moved to shared memory.
    pub(crate) shared: Vec<String>,
    /// Symbol names of the globals moved to constant memory (to keep public).
    pub(crate) constant: Vec<String>,
}

/// How one moved global changes.
#[derive(Debug, Clone, Copy)]
struct Move {
    from: u32,
    to: u32,
}

/// Rewrites the module text `ir` (as printed by `llvm-dis`).
pub(crate) fn rewrite(ir: &str) -> Result<Rewritten> {
    // Pass 1: find the globals to move.
    let mut moves: HashMap<String, Move> = HashMap::new();
    let mut out = Rewritten::default();
    for line in ir.lines() {
        if !line.starts_with('@') {
            continue;
        }
        let marked = line.contains(&format!("section \"{SHARED_SECTION}\""))
            || line.contains(&format!("section \"{CONSTANT_SECTION}\""));
        let Some(g) = GlobalLine::parse(line) else {
            if marked {
                return Err(Error::new(format!(
                    "cannot parse a global definition marked for shared/constant memory:\n{line}"
                )));
            }
            continue;
        };
        let to = match g.section() {
            Some(SHARED_SECTION) => SHARED_ADDRSPACE,
            Some(CONSTANT_SECTION) => CONSTANT_ADDRSPACE,
            _ => continue,
        };
        let from = g.addrspace();
        if to == SHARED_ADDRSPACE {
            out.shared.push(symbol_name(g.name));
        } else {
            out.constant.push(symbol_name(g.name));
        }
        moves.insert(g.name.to_owned(), Move { from, to });
    }
    if moves.is_empty() {
        out.text = ir.to_owned();
        return Ok(out);
    }

    // Pass 2: rewrite definitions, `llvm.used` lists and uses.
    let mut text = String::with_capacity(ir.len() + 64 * moves.len());
    for line in ir.lines() {
        let parsed = if line.starts_with('@') {
            GlobalLine::parse(line)
        } else {
            None
        };
        match parsed {
            Some(g) if moves.contains_key(g.name) => {
                text.push_str(&rewrite_definition(&g, moves[g.name], &moves));
            }
            Some(g) if g.name == "llvm.used" || g.name == "llvm.compiler.used" => {
                if let Some(new_line) = rewrite_used_list(&g, &moves) {
                    text.push_str(&new_line);
                } else {
                    // Every member moved: the list disappears.
                    continue;
                }
            }
            _ => text.push_str(&replace_uses(line, &moves)),
        }
        text.push('\n');
    }
    out.text = text;
    Ok(out)
}

/// The definition of a moved global, in its new address space.
fn rewrite_definition(g: &GlobalLine<'_>, mv: Move, moves: &HashMap<String, Move>) -> String {
    let shared = mv.to == SHARED_ADDRSPACE;
    let mut prefix: Vec<&str> = g
        .prefix
        .iter()
        .copied()
        .filter(|t| !t.starts_with("addrspace(") && *t != "externally_initialized")
        .filter(|t| shared || !matches!(*t, "internal" | "private"))
        .collect();
    let space = format!("addrspace({})", mv.to);
    prefix.push(&space);
    if !shared || g.prefix.contains(&"externally_initialized") {
        prefix.push("externally_initialized");
    }
    // Shared memory is written at run time: it is never an LLVM `constant`.
    let keyword = if shared { "global" } else { g.keyword };
    let mut line = format!("@{} = {} {keyword} {}", g.name, prefix.join(" "), g.ty);
    if let Some(init) = g.init {
        line.push(' ');
        if shared {
            line.push_str("undef");
        } else {
            line.push_str(&replace_uses(init, moves));
        }
    }
    for attr in &g.attrs {
        if !attr.starts_with("section ") {
            line.push_str(", ");
            line.push_str(attr);
        }
    }
    line
}

/// `@llvm.used`-style list without the moved globals; `None` when it ends up empty.
fn rewrite_used_list(g: &GlobalLine<'_>, moves: &HashMap<String, Move>) -> Option<String> {
    used_list_keeping(g, |item| !references_any(item, moves))
}

/// Whether `text` mentions any moved global.
fn references_any(text: &str, moves: &HashMap<String, Move>) -> bool {
    replace_uses(text, moves) != text
}

/// Replaces each use `@NAME` of a moved global in `line` by a cast back to its old pointer
/// type. String literals and comments are left alone.
fn replace_uses(line: &str, moves: &HashMap<String, Move>) -> String {
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        match b[i] {
            b'"' => i = skip_string(b, i),
            b';' => break,
            b'@' => {
                let len = name_len(&line[i + 1..]);
                let name = &line[i + 1..i + 1 + len];
                match moves.get(name) {
                    Some(mv) if len > 0 && mv.from != mv.to => {
                        out.push_str(&line[copied..i]);
                        let old = if mv.from == 0 {
                            "ptr".to_owned()
                        } else {
                            format!("ptr addrspace({})", mv.from)
                        };
                        out.push_str(&format!(
                            "addrspacecast (ptr addrspace({}) @{name} to {old})",
                            mv.to
                        ));
                        copied = i + 1 + len;
                    }
                    _ => {}
                }
                i += 1 + len;
            }
            _ => i += 1,
        }
    }
    out.push_str(&line[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = r#"; ModuleID = 'k'
target triple = "nvptx64-nvidia-cuda"

@COEF = local_unnamed_addr global [16 x i8] c"\00\00\80?\00\00\00@\00\00@@\00\00\80@", section ".ferrocuda.constant", align 4
@_RNvCs_5probe4TILE = internal global [256 x i8] undef, section ".shared", align 4
@"quoted shared" = internal global <{ [8 x i8] }> zeroinitializer, section ".shared", align 8
@hidden_const = internal constant { i32, ptr } { i32 7, ptr @_RNvCs_5probe4TILE }, section ".ferrocuda.constant", align 8
@plain = global [4 x i8] c"@COEF", align 1
@llvm.used = appending global [3 x ptr] [ptr @_RNvCs_5probe4TILE, ptr @plain, ptr @"quoted shared"], section "llvm.metadata"
@llvm.compiler.used = appending global [1 x ptr] [ptr @_RNvCs_5probe4TILE], section "llvm.metadata"

define ptx_kernel void @k(ptr %0) {
  %2 = getelementptr inbounds nuw float, ptr @_RNvCs_5probe4TILE, i64 3 ; uses @_RNvCs_5probe4TILE
  store float 1.0, ptr %2, align 4
  %3 = load float, ptr @COEF, align 4
  %4 = load i8, ptr @"quoted shared", align 1
  %5 = load i8, ptr @_RNvCs_5probe4TILEX, align 1
  ret void
}
"#;

    #[test]
    fn moves_shared_and_constant_globals() {
        let r = rewrite(MODULE).unwrap();
        let t = &r.text;
        assert_eq!(r.shared, vec!["_RNvCs_5probe4TILE", "quoted shared"]);
        assert_eq!(r.constant, vec!["COEF", "hidden_const"]);
        assert!(t.contains(
            "@COEF = local_unnamed_addr addrspace(4) externally_initialized global [16 x i8] c\"\\00\\00\\80?\\00\\00\\00@\\00\\00@@\\00\\00\\80@\", align 4\n"
        ), "{t}");
        assert!(
            t.contains(
                "@_RNvCs_5probe4TILE = internal addrspace(3) global [256 x i8] undef, align 4\n"
            ),
            "{t}"
        );
        assert!(
            t.contains(
                "@\"quoted shared\" = internal addrspace(3) global <{ [8 x i8] }> undef, align 8\n"
            ),
            "{t}"
        );
        // Constant memory becomes external, keeps its initializer, whose uses are rewritten.
        assert!(t.contains(
            "@hidden_const = addrspace(4) externally_initialized constant { i32, ptr } { i32 7, ptr addrspacecast (ptr addrspace(3) @_RNvCs_5probe4TILE to ptr) }, align 8\n"
        ), "{t}");
        // Strings are untouched.
        assert!(
            t.contains("@plain = global [4 x i8] c\"@COEF\", align 1\n"),
            "{t}"
        );
        assert!(
            t.contains(
                "@llvm.used = appending global [1 x ptr] [ptr @plain], section \"llvm.metadata\"\n"
            ),
            "{t}"
        );
        assert!(!t.contains("@llvm.compiler.used"), "{t}");
        assert!(t.contains(
            "getelementptr inbounds nuw float, ptr addrspacecast (ptr addrspace(3) @_RNvCs_5probe4TILE to ptr), i64 3 ; uses @_RNvCs_5probe4TILE\n"
        ), "{t}");
        assert!(
            t.contains("load float, ptr addrspacecast (ptr addrspace(4) @COEF to ptr), align 4"),
            "{t}"
        );
        assert!(
            t.contains(
                "load i8, ptr addrspacecast (ptr addrspace(3) @\"quoted shared\" to ptr), align 1"
            ),
            "{t}"
        );
        // A longer name with the same prefix is not a use.
        assert!(
            t.contains("load i8, ptr @_RNvCs_5probe4TILEX, align 1"),
            "{t}"
        );
        assert!(!t.contains("section \".shared\""));
        assert!(!t.contains("section \".ferrocuda.constant\""));
    }

    #[test]
    fn untouched_without_marked_globals() {
        let ir = "@a = global i32 0, align 4\ndefine void @f() {\n  store i32 1, ptr @a\n  ret void\n}\n";
        let r = rewrite(ir).unwrap();
        assert_eq!(r.text, ir);
        assert!(r.shared.is_empty() && r.constant.is_empty());
    }

    #[test]
    fn declarations_and_pointer_types() {
        let ir = "@d = external global [4 x i8], section \".shared\", align 4\n@p = internal global ptr addrspace(1) null, section \".ferrocuda.constant\"\n@q = global ptr @d\n";
        let r = rewrite(ir).unwrap();
        assert!(
            r.text
                .contains("@d = external addrspace(3) global [4 x i8], align 4\n"),
            "{}",
            r.text
        );
        assert!(
            r.text.contains(
                "@p = addrspace(4) externally_initialized global ptr addrspace(1) null\n"
            ),
            "{}",
            r.text
        );
        assert!(
            r.text
                .contains("@q = global ptr addrspacecast (ptr addrspace(3) @d to ptr)\n"),
            "{}",
            r.text
        );
    }

    #[test]
    fn already_in_place_is_not_cast() {
        let ir = "@s = internal addrspace(3) global [4 x i8] undef, section \".shared\"\n  load i8, ptr addrspace(3) @s\n";
        let r = rewrite(ir).unwrap();
        assert_eq!(
            r.text,
            "@s = internal addrspace(3) global [4 x i8] undef\n  load i8, ptr addrspace(3) @s\n"
        );
    }
}
