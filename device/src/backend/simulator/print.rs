//! Device printing on the simulator: the line formatted as C's `printf` would, handed to the
//! simulator's output.

use crate::print::{PrintArg, Spec};

/// Formats the line and hands it to the simulator (`format`, the C form, is the GPU's).
#[inline]
pub(crate) fn print<const CAP: usize, const N: usize>(
    format: &'static [u8; CAP],
    pieces: &[&str],
    specs: &[Spec],
    args: &[PrintArg; N],
) {
    let _ = format;
    let text = format_line(pieces, specs, args);
    crate::sim::hooks().print(&text);
}

/// The line as it appears on the output: the same text on the host as the GPU's `vprintf`.
pub(crate) fn format_line(
    pieces: &[&str],
    specs: &[Spec],
    args: &[PrintArg],
) -> std::string::String {
    let mut out = std::string::String::new();
    for (i, piece) in pieces.iter().enumerate() {
        out.push_str(piece);
        if let (Some(spec), Some(arg)) = (specs.get(i), args.get(i)) {
            // Writing to a `String` cannot fail.
            let _ = write_arg(&mut out, *spec, *arg);
        }
    }
    out
}

/// Formats one argument as C's `printf` would with the conversion `c_format` chose.
fn write_arg(out: &mut std::string::String, spec: Spec, arg: PrintArg) -> core::fmt::Result {
    use core::fmt::Write;
    match (spec, arg) {
        (Spec::LowerHex, PrintArg::U64(v)) => write!(out, "{v:x}"),
        (Spec::UpperHex, PrintArg::U64(v)) => write!(out, "{v:X}"),
        (Spec::Precision(n), PrintArg::F64(v)) => write_c_float(out, v, n as usize),
        (_, PrintArg::F64(v)) => write_c_float(out, v, 6),
        (_, PrintArg::I64(v)) => write!(out, "{v}"),
        (_, PrintArg::U64(v)) => write!(out, "{v}"),
        (_, PrintArg::Bool(v)) => write!(out, "{v}"),
        (_, PrintArg::Str(v)) => out.write_str(v),
    }
}

/// C's `%.Nf`: fixed notation with `precision` decimals, `inf`, `nan`, signed zero.
pub(crate) fn write_c_float(
    out: &mut impl core::fmt::Write,
    value: f64,
    precision: usize,
) -> core::fmt::Result {
    if value.is_nan() {
        out.write_str(if value.is_sign_negative() {
            "-nan"
        } else {
            "nan"
        })
    } else if value.is_infinite() {
        out.write_str(if value < 0.0 { "-inf" } else { "inf" })
    } else {
        write!(out, "{value:.precision$}")
    }
}
