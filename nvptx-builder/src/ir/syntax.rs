//! Just enough of the textual LLVM IR syntax (as printed by `llvm-dis`) for the rewrites:
//! global names (plain and quoted), string literals, types, comma-separated lists at the top
//! level of brackets, and global variable definition lines split into their parts.
//!
//! Nothing here knows what a rewrite wants; [`crate::passes::ir_rewrite`] decides what moves.

/// Index just past the string literal starting at `b[start] == '"'` (LLVM escapes `"` as `\22`).
pub(crate) fn skip_string(b: &[u8], start: usize) -> usize {
    match b[start + 1..].iter().position(|&c| c == b'"') {
        Some(p) => start + 1 + p + 1,
        None => b.len(),
    }
}

/// The label of a block label line (`95:`, `.preheader27:  ; preds = ...`, `"a b":`), as
/// `label %...` references name it (quotes kept); `None` for any other line.
pub(crate) fn block_label(line: &str) -> Option<String> {
    let n = name_len(line);
    (n > 0 && line[n..].starts_with(':')).then(|| line[..n].to_string())
}

/// Whether `line` is a debug record (`#dbg_value(...)`), not an instruction.
pub(crate) fn is_debug_record(line: &str) -> bool {
    line.trim_start().starts_with("#dbg_")
}

/// Length of the global name at the start of `s` (after the `@`): `"quoted"` or identifier.
pub(crate) fn name_len(s: &str) -> usize {
    let b = s.as_bytes();
    if b.first() == Some(&b'"') {
        return skip_string(b, 0);
    }
    b.iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'$' | b'.' | b'_'))
        .count()
}

/// The symbol name of a textual global name (`"a\22b"` -> `a"b`).
pub(crate) fn symbol_name(text: &str) -> String {
    let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) else {
        return text.to_owned();
    };
    let b = inner.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            if b.get(i + 1) == Some(&b'\\') {
                out.push(b'\\');
                i += 2;
                continue;
            }
            if let Some(v) = inner
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The bytes of `s` outside string literals, each with its index and the bracket depth after
/// it (`([{<` open, `)]}>` close): the one scanner behind the splitting and matching below.
fn outside_strings(s: &str) -> impl Iterator<Item = (usize, u8, i32)> + '_ {
    let b = s.as_bytes();
    let (mut i, mut depth) = (0, 0i32);
    std::iter::from_fn(move || {
        while i < b.len() && b[i] == b'"' {
            i = skip_string(b, i);
        }
        let c = *b.get(i)?;
        match c {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b')' | b']' | b'}' | b'>' => depth -= 1,
            _ => {}
        }
        i += 1;
        Some((i - 1, c, depth))
    })
}

/// Splits at commas outside brackets, braces, parentheses, angle brackets and strings.
pub(crate) fn split_top_level(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    for (i, c, depth) in outside_strings(s) {
        if c == b',' && depth == 0 {
            parts.push(s[start..i].trim());
            start = i + 1;
        }
    }
    parts.push(s[start..].trim());
    parts
}

/// Length of the balanced bracketed text starting at `s[0]` (one of `[{<(`).
fn balanced_len(s: &str) -> Option<usize> {
    outside_strings(s)
        .find(|&(_, c, depth)| matches!(c, b')' | b']' | b'}' | b'>') && depth == 0)
        .map(|(i, _, _)| i + 1)
}

/// The offset of the parenthesis closing the one `s` starts with (outside string literals).
pub(crate) fn matching_paren(s: &str) -> Option<usize> {
    outside_strings(s)
        .find(|&(_, c, depth)| c == b')' && depth == 0)
        .map(|(i, _, _)| i)
}

/// Length of the LLVM type at the start of `s`.
pub(crate) fn type_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    match b.first()? {
        b'[' | b'{' | b'<' => balanced_len(s),
        b'%' => {
            let n = name_len(&s[1..]);
            (n > 0).then_some(1 + n)
        }
        _ => {
            let n = b
                .iter()
                .take_while(|&&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
                .count();
            if n == 0 {
                return None;
            }
            // `ptr addrspace(N)` is one type.
            let rest = &s[n..];
            let trimmed = rest.trim_start();
            if &s[..n] == "ptr" && trimmed.starts_with("addrspace(") {
                let skip = rest.len() - trimmed.len();
                let close = trimmed.find(')')?;
                return Some(n + skip + close + 1);
            }
            Some(n)
        }
    }
}

/// Tokens that may stand between `=` and `global`/`constant` in a global definition.
fn is_prefix_token(t: &str) -> bool {
    matches!(
        t,
        "private"
            | "internal"
            | "available_externally"
            | "linkonce"
            | "weak"
            | "common"
            | "appending"
            | "extern_weak"
            | "linkonce_odr"
            | "weak_odr"
            | "external"
            | "dso_local"
            | "dso_preemptable"
            | "default"
            | "hidden"
            | "protected"
            | "dllimport"
            | "dllexport"
            | "unnamed_addr"
            | "local_unnamed_addr"
            | "externally_initialized"
    ) || t.starts_with("thread_local")
        || t.starts_with("addrspace(")
}

/// One global variable definition or declaration line, split into its parts.
#[derive(Debug)]
pub(crate) struct GlobalLine<'a> {
    /// The name as written after `@` (possibly quoted).
    pub(crate) name: &'a str,
    /// Linkage, visibility, `addrspace(N)`, ... tokens.
    pub(crate) prefix: Vec<&'a str>,
    /// `global` or `constant`.
    pub(crate) keyword: &'a str,
    /// The value type.
    pub(crate) ty: &'a str,
    /// The initializer, absent for declarations.
    pub(crate) init: Option<&'a str>,
    /// `section "..."`, `align N`, `!dbg !N`, ... (trimmed, without the commas).
    pub(crate) attrs: Vec<&'a str>,
}

impl<'a> GlobalLine<'a> {
    /// Parses `line` if it is a global variable (not an alias, ifunc or something else).
    pub(crate) fn parse(line: &'a str) -> Option<GlobalLine<'a>> {
        let rest = line.strip_prefix('@')?;
        let n = name_len(rest);
        if n == 0 {
            return None;
        }
        let name = &rest[..n];
        let mut rest = rest[n..].trim_start().strip_prefix('=')?;
        let mut prefix = Vec::new();
        let keyword = loop {
            rest = rest.trim_start();
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let token = &rest[..end];
            rest = &rest[end..];
            match token {
                "global" | "constant" => break token,
                t if is_prefix_token(t) => prefix.push(t),
                _ => return None,
            }
        };
        let rest = rest.trim_start();
        let tn = type_len(rest)?;
        let ty = &rest[..tn];
        let after = rest[tn..].trim_start();
        let (init, attrs_text) = if after.is_empty() {
            (None, "")
        } else if let Some(a) = after.strip_prefix(',') {
            (None, a)
        } else {
            match top_level_comma(after) {
                Some(p) => (Some(after[..p].trim_end()), &after[p + 1..]),
                None => (Some(after.trim_end()), ""),
            }
        };
        let attrs = if attrs_text.trim().is_empty() {
            Vec::new()
        } else {
            split_top_level(attrs_text)
        };
        Some(GlobalLine {
            name,
            prefix,
            keyword,
            ty,
            init,
            attrs,
        })
    }

    /// The `section "..."` attribute's value.
    pub(crate) fn section(&self) -> Option<&'a str> {
        self.attrs.iter().find_map(|a| {
            a.strip_prefix("section \"")
                .and_then(|s| s.strip_suffix('"'))
        })
    }

    /// The address space the global is in now.
    pub(crate) fn addrspace(&self) -> u32 {
        self.prefix
            .iter()
            .find_map(|t| {
                t.strip_prefix("addrspace(")?
                    .strip_suffix(')')?
                    .parse()
                    .ok()
            })
            .unwrap_or(0)
    }
}

/// Byte index of the first comma outside brackets and strings.
fn top_level_comma(s: &str) -> Option<usize> {
    outside_strings(s)
        .find(|&(_, c, depth)| c == b',' && depth == 0)
        .map(|(i, _, _)| i)
}

/// An `@llvm.used`-style list (`[N x ptr] [ptr @a, ptr @b]`) keeping the items for which `keep`
/// holds, with its count fixed; `None` when nothing is left (the global is then dropped).
pub(crate) fn used_list_keeping(g: &GlobalLine<'_>, keep: impl Fn(&str) -> bool) -> Option<String> {
    let init = g.init.unwrap_or("").trim();
    let inner = init
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .unwrap_or(init);
    let kept: Vec<&str> = split_top_level(inner)
        .into_iter()
        .filter(|item| !item.is_empty() && keep(item))
        .collect();
    if kept.is_empty() {
        return None;
    }
    // `[N x ptr]`: keep the element type, fix the count.
    let elem =
        g.ty.trim_start_matches('[')
            .trim_end_matches(']')
            .split_once(" x ")
            .map_or("ptr", |(_, t)| t.trim());
    let mut line = format!(
        "@{} = {} {} [{} x {elem}] [{}]",
        g.name,
        g.prefix.join(" "),
        g.keyword,
        kept.len(),
        kept.join(", ")
    );
    for attr in &g.attrs {
        line.push_str(", ");
        line.push_str(attr);
    }
    Some(line)
}

/// The module text with each function body replaced by what `rewrite(define line, body lines)`
/// returns for it (`None` keeps the body), or `None` when no body changed. The body lines
/// keep their line ends; the `define` line and the closing `}` are left as they are.
pub(crate) fn rewrite_bodies(
    ir: &str,
    mut rewrite: impl FnMut(&str, &[&str]) -> Option<String>,
) -> Option<String> {
    let lines: Vec<&str> = ir.split_inclusive('\n').collect();
    let mut out = String::with_capacity(ir.len() + ir.len() / 8);
    let mut changed = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with("define ") && line.trim_end().ends_with('{') {
            let end = (i + 1..lines.len())
                .find(|&j| lines[j].starts_with('}'))
                .unwrap_or(lines.len() - 1);
            let body = &lines[i + 1..end];
            out.push_str(line);
            match rewrite(line, body) {
                Some(new_body) => {
                    out.push_str(&new_body);
                    changed = true;
                }
                None => body.iter().for_each(|l| out.push_str(l)),
            }
            i = end;
            continue;
        }
        out.push_str(line);
        i += 1;
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_global_lines() {
        let g = GlobalLine::parse(
            "@x = dso_local local_unnamed_addr addrspace(1) global %\"a<b, c>\" { i32 1, [2 x i8] c\",\\22\" }, section \"s\", align 4, !dbg !7",
        )
        .unwrap();
        assert_eq!(g.name, "x");
        assert_eq!(
            g.prefix,
            vec!["dso_local", "local_unnamed_addr", "addrspace(1)"]
        );
        assert_eq!(g.ty, "%\"a<b, c>\"");
        assert_eq!(g.init, Some("{ i32 1, [2 x i8] c\",\\22\" }"));
        assert_eq!(g.attrs, vec!["section \"s\"", "align 4", "!dbg !7"]);
        assert_eq!(g.addrspace(), 1);
        assert!(GlobalLine::parse("@a = internal alias i32, ptr @b").is_none());
        assert!(
            GlobalLine::parse("@a = internal global i32 5")
                .unwrap()
                .attrs
                .is_empty()
        );
        assert_eq!(symbol_name("\"a\\22b\\5Cc\""), "a\"b\\c");
    }
}
