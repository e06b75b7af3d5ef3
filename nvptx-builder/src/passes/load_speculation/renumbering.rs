//! The renaming of a changed function's numbered values (`%12` becomes `%fc.12`), which lets
//! moved definitions be out of numbered order.

use crate::ir::syntax::split_top_level;

/// Prefix of the names this pass gives to numbered values and to its own values.
pub(super) const PREFIX: &str = "fc.";

/// The function header and body with every numbered value `%N` renamed `%fc.N` (and an explicit
/// label on an unnamed entry block), so that moved definitions need not be in numbered order.
pub(super) fn renumbered(header: &str, body: &[String]) -> (String, String) {
    let unnamed_params = header
        .find('(')
        .map(|open| {
            let close = open + crate::ir::syntax::matching_paren(&header[open..]).unwrap_or(0);
            split_top_level(&header[open + 1..close])
                .iter()
                .filter(|p| {
                    p.split_whitespace().last().is_some_and(|v| {
                        v.strip_prefix('%')
                            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                    })
                })
                .count()
        })
        .unwrap_or(0);
    let mut text = String::new();
    let entry_unnamed = body
        .iter()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.starts_with(' '));
    if entry_unnamed {
        text.push_str(&format!("{PREFIX}{unnamed_params}:\n"));
    }
    for line in body {
        text.push_str(&renamed_line(line));
        text.push('\n');
    }
    (renamed_line(header), text)
}

/// `line` with `%N` renamed `%fc.N` outside string literals, and a numbered label line `N:`
/// renamed `fc.N:`.
pub(super) fn renamed_line(line: &str) -> String {
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len() + 16);
    let digits_at = |i: usize| b.get(i).is_some_and(|c| c.is_ascii_digit());
    let mut i = 0;
    if digits_at(0) {
        let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
        if b.get(n) == Some(&b':') {
            out.push_str(PREFIX);
        }
    }
    while i < b.len() {
        match b[i] {
            b'"' => {
                let end = crate::ir::syntax::skip_string(b, i);
                out.push_str(&line[i..end]);
                i = end;
            }
            b'%' if digits_at(i + 1) => {
                out.push('%');
                out.push_str(PREFIX);
                i += 1;
            }
            _ => {
                let start = i;
                i += 1;
                while i < b.len() && !matches!(b[i], b'"' | b'%') {
                    i += 1;
                }
                out.push_str(&line[start..i]);
            }
        }
    }
    out
}
