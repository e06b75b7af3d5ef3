//! [`entry_text`]: the text of one `.entry` of a PTX module, from its declaration to its closing
//! brace, as `inspect_asm` shows it in Numba; [`entry_notes`]: the builder's notes about one
//! entry at the top of the module; [`entry_param_sizes`]: the bytes of each parameter the
//! entry declares, which every launch's parameter buffer must match.

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

/// The size in bytes of each parameter entry `name` of `ptx` declares, in order
/// (`.param .u64 .ptr .align 1 k_param_0` is 8, `.param .align 4 .b8 k_param_2[12]` is 12),
/// or `None` when the module has no such entry or a declaration does not read as one.
pub(crate) fn entry_param_sizes(ptx: &str, name: &str) -> Option<Vec<u32>> {
    let text = entry_text(ptx, name)?;
    let open = text.find('(')?;
    // The parameter list ends at the first `)` (declarations hold none).
    let close = open + text[open..].find(')')?;
    let list = text[open + 1..close].trim();
    if list.is_empty() {
        return Some(Vec::new());
    }
    list.split(',').map(param_size).collect()
}

/// The bytes of one `.param` declaration: its scalar type's, or an array's element count times
/// its element's.
fn param_size(declaration: &str) -> Option<u32> {
    let mut words = declaration.split_whitespace();
    (words.next()? == ".param").then_some(())?;
    let mut element = None;
    let mut last = "";
    for word in words {
        let bytes = match word.trim_start_matches('.') {
            "b8" | "u8" | "s8" => Some(1),
            "b16" | "u16" | "s16" | "f16" | "bf16" => Some(2),
            "b32" | "u32" | "s32" | "f32" => Some(4),
            "b64" | "u64" | "s64" | "f64" => Some(8),
            _ => None,
        };
        if word.starts_with('.') && bytes.is_some() {
            element = bytes;
        }
        last = word;
    }
    let element: u32 = element?;
    match last.split_once('[') {
        Some((_, count)) => element.checked_mul(count.strip_suffix(']')?.parse().ok()?),
        None => Some(element),
    }
}

#[cfg(test)]
mod tests {
    use super::{entry_param_sizes, entry_text};

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

    #[test]
    fn parameter_sizes_are_read_from_the_declarations() {
        let ptx = ".visible .entry k(\n\t.param .u64 .ptr .align 1 k_param_0,\n\t.param .u64 k_param_1,\n\t\
                   .param .align 4 .b8 k_param_2[12],\n\t.param .u8 k_param_3,\n\t.param .f32 k_param_4\n)\n{\n\tret;\n}\n\
                   .visible .entry none()\n{\n\tret;\n}\n";
        assert_eq!(entry_param_sizes(ptx, "k"), Some(vec![8, 8, 12, 1, 4]));
        assert_eq!(entry_param_sizes(ptx, "none"), Some(vec![]));
        assert_eq!(entry_param_sizes(ptx, "missing"), None);
        let odd = ptx.replace(".param .u8 k_param_3", ".param .v2 k_param_3");
        assert_eq!(entry_param_sizes(&odd, "k"), None);
    }
}
