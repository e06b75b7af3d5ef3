//! Marker statics that `#[kernel]` leaves for the linker: globals in a link section of their own
//! whose bytes are `<entry symbol>=<value>`. `#[kernel(fast_math)]` ([`crate::fast_math`]) and
//! `#[kernel(max_block(...))]` ([`crate::max_block`]) use them; each reads its section's
//! markers here and removes them from the module, so the PTX carries only their effect.

use crate::error::{Error, Result};
use crate::ir_syntax::{GlobalLine, symbol_name, used_list_keeping};

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

/// What to write for the global definition `line` when the globals named `markers` go: `None`
/// to drop the line (a marker, or a used-list left empty), else the line, without the markers
/// where it is a used-list.
pub(crate) fn without_markers(line: &str, markers: &[&str]) -> Option<String> {
    let Some(g) = GlobalLine::parse(line) else {
        return Some(line.to_owned());
    };
    if markers.contains(&g.name) {
        return None;
    }
    if g.name != "llvm.used" && g.name != "llvm.compiler.used" {
        return Some(line.to_owned());
    }
    used_list_keeping(&g, |item| {
        let name = item.trim().rsplit_once('@').map_or("", |(_, n)| n);
        !markers.contains(&name)
    })
}

/// The symbol of the function a `define` line opens.
pub(crate) fn defined_function(line: &str) -> Option<String> {
    if !line.starts_with("define ") {
        return None;
    }
    let at = line.find(" @")? + 2;
    let rest = &line[at..];
    let len = crate::ir_syntax::name_len(rest);
    (len > 0).then(|| symbol_name(&rest[..len]))
}
