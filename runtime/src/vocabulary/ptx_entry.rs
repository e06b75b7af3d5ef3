//! [`entry_text`]: the text of one `.entry` of a PTX module, from its declaration to its closing
//! brace, as `inspect_asm` shows it in Numba; [`entry_notes`]: the builder's notes about one
//! entry at the top of the module.

/// The PTX of entry `name` in `ptx`: from the line that declares it (`.visible .entry name(` or
/// `.entry name(`) to the `}` at the start of a line that closes its body. `None` when the module
/// has no such entry.
pub fn entry_text<'p>(ptx: &'p str, name: &str) -> Option<&'p str> {
    let mut offset = 0;
    let mut start = None;
    for line in ptx.split_inclusive('\n') {
        let trimmed = line.trim_start();
        match start {
            None => {
                let declaration = trimmed
                    .strip_prefix(".visible ")
                    .unwrap_or(trimmed)
                    .trim_start();
                let declares = declaration
                    .strip_prefix(".entry ")
                    .and_then(|rest| rest.trim_start().strip_prefix(name))
                    .is_some_and(|rest| rest.starts_with('(') || rest.trim().is_empty());
                if declares {
                    start = Some(offset);
                }
            }
            Some(begin) => {
                if line.starts_with('}') {
                    return Some(&ptx[begin..offset + line.len()]);
                }
            }
        }
        offset += line.len();
    }
    None
}

/// What the notes starting with `prefix` say about entry `name` in `ptx`: the rest of each
/// `{prefix}{name} {note}` comment line before `.version`, where nvptx-builder writes them (its
/// fast-math flags and entry tests).
pub(crate) fn entry_notes<'p>(
    ptx: &'p str,
    prefix: &'p str,
    name: &'p str,
) -> impl Iterator<Item = &'p str> + 'p {
    ptx.lines()
        // The notes come before `.version`; nothing after it is one.
        .take_while(|line| !line.starts_with(".version"))
        .filter_map(move |line| {
            let (entry, note) = line.strip_prefix(prefix)?.split_once(' ')?;
            (entry == name).then_some(note)
        })
}

#[cfg(test)]
mod tests {
    use super::entry_text;

    const MODULE: &str = "\
.version 7.8
.target sm_90
.address_size 64

.func helper()
{
\tret;
}

.visible .entry vecadd_twice(
\t.param .u64 vecadd_twice_param_0
)
{
\tret;
}

.visible .entry vecadd(
\t.param .u64 .ptr .align 1 vecadd_param_0,
\t.param .u64 vecadd_param_1
)
{
\t{ // callseq 0
\t} // callseq 0
\tret;
}
";

    #[test]
    fn the_entry_runs_from_its_declaration_to_its_closing_brace() {
        let text = entry_text(MODULE, "vecadd").unwrap();
        assert!(text.starts_with(".visible .entry vecadd(\n"), "{text}");
        assert!(text.ends_with("\tret;\n}\n"), "{text}");
        // The inner braces of a call sequence do not end it; the other entry is not in it.
        assert!(text.contains("} // callseq 0"));
        assert!(!text.contains("vecadd_twice"));
        let twice = entry_text(MODULE, "vecadd_twice").unwrap();
        assert!(twice.starts_with(".visible .entry vecadd_twice(") && twice.ends_with("}\n"));
        assert!(!twice.contains("vecadd_param_0"));
    }

    #[test]
    fn a_missing_entry_or_a_device_function_is_none() {
        assert_eq!(entry_text(MODULE, "helper"), None);
        assert_eq!(entry_text(MODULE, "vec"), None);
        assert_eq!(entry_text("", "vecadd"), None);
    }
}
