//! Marker statics that `#[kernel]` leaves for the linker: globals in a link section of their own
//! whose bytes are `<entry symbol>=<value>`. `#[kernel(fast_math)]` ([`crate::passes::fast_math`]) and
//! `#[kernel(max_block(...))]` ([`crate::passes::max_block`]) use them; each reads its section's
//! markers here and removes them from the module, so the PTX carries only their effect.

use crate::error::{Error, Result};
use crate::ir::syntax::{GlobalLine, symbol_name, used_list_keeping};

/// One marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Marker {
    /// The marker global's name as written in the IR.
    pub(crate) global: String,
    /// The entry symbol it names.
    pub(crate) kernel: String,
    /// What follows the `=`.
    pub(crate) value: String,
}

/// The markers of `section` in the module `ir` (text of `llvm-dis`); `attribute` names the
/// `#[kernel]` option in errors.
pub(crate) fn read(ir: &str, section: &str, attribute: &str) -> Result<Vec<Marker>> {
    let marked = format!("section \"{section}\"");
    let mut out = Vec::new();
    for line in ir
        .lines()
        .filter(|l| l.starts_with('@') && l.contains(&marked))
    {
        let bad = |why: &str| {
            Error::new(format!(
                "cannot read a #[kernel({attribute})] marker ({why}):\n{line}"
            ))
        };
        let g = GlobalLine::parse(line).ok_or_else(|| bad("not a global definition"))?;
        let init = g.init.ok_or_else(|| bad("no initializer"))?;
        // `c"..."`, possibly inside rustc's packed struct `<{ [N x i8] c"..." }>`.
        let bytes = init
            .split_once("c\"")
            .and_then(|(_, s)| s.split_once('"'))
            .map(|(bytes, _)| bytes)
            .ok_or_else(|| bad("not a byte string"))?;
        // `symbol_name` undoes LLVM's `\XX` escapes of a quoted string.
        let content = symbol_name(&format!("\"{bytes}\""));
        let (kernel, value) = content
            .split_once('=')
            .ok_or_else(|| bad("no `=` between the kernel and its value"))?;
        out.push(Marker {
            global: g.name.to_owned(),
            kernel: kernel.to_owned(),
            value: value.to_owned(),
        });
    }
    Ok(out)
}

/// Appends the global definition `line` to `text` as it stays when the globals named `markers`
/// go: nothing for a marker or for a used-list left empty, the used-list without the markers,
/// any other global unchanged.
pub(crate) fn push_global_without_markers(text: &mut String, line: &str, markers: &[&str]) {
    let kept = match GlobalLine::parse(line) {
        Some(g) if markers.contains(&g.name) => return,
        Some(g) if g.name == "llvm.used" || g.name == "llvm.compiler.used" => {
            match used_list_keeping(&g, |item| {
                let name = item.trim().rsplit_once('@').map_or("", |(_, n)| n);
                !markers.contains(&name)
            }) {
                Some(list) => list,
                None => return,
            }
        }
        _ => line.to_owned(),
    };
    text.push_str(&kept);
    text.push('\n');
}

/// The symbol of the function a `define` line opens.
pub(crate) fn defined_function(line: &str) -> Option<String> {
    if !line.starts_with("define ") {
        return None;
    }
    let at = line.find(" @")? + 2;
    let rest = &line[at..];
    let len = crate::ir::syntax::name_len(rest);
    (len > 0).then(|| symbol_name(&rest[..len]))
}
