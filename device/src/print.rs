//! Device `printf`: the runtime side of `gpu_print!` and `gpu_println!`.
//!
//! ```ignore
//! gpu_println!("Before: idx = {} value = {:.3}", i, a[i]);
//! ```
//!
//! The macros (in `ferrocuda-macros`) split the format string at compile time; what remains here
//! is how each argument is printed, which is the same on both backends:
//!
//! | placeholder | argument types | output |
//! |---|---|---|
//! | `{}` | `i8`..`i64`, `isize` | decimal (C `%lld`) |
//! | `{}` | `u8`..`u64`, `usize` | decimal (C `%llu`) |
//! | `{}` | `f32`, `f64` | **6 decimals, like C's `%f`** (`1.500000`), not Rust's shortest form |
//! | `{:.N}` | `f32`, `f64` | N decimals (`%.Nf`), N up to 99 |
//! | `{:x}`, `{:X}` | integers | hexadecimal of the value's own width (`-1i32` is `ffffffff`) |
//! | `{}` | `bool` | `true` / `false` |
//! | `{}` | `&'static str`, string literals | the text |
//!
//! Infinities print as `inf`/`-inf` and NaN as `nan`/`-nan`, as C does. `{{` and `}}` print
//! braces; other placeholders are compile errors.
//!
//! On the GPU the C format string is built at compile time (a constant in global memory, `%`
//! escaped) and the line is printed by one `vprintf` call, whose 8-byte argument slots hold each
//! value as `i64`, `u64`, `f64` or a pointer to a NUL-terminated string. Output appears on the
//! host's stdout when the device synchronizes, as with CUDA C's `printf` (the driver's buffer
//! holds 1 MiB by default; older lines are overwritten when it fills). On the simulator the line
//! is formatted with `core::fmt` and handed to the simulator's output.

use crate::backend::print as imp;

/// One argument of a device print, as it crosses to `vprintf` (a 64-bit slot).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PrintArg {
    /// A signed integer.
    I64(i64),
    /// An unsigned integer (also the hexadecimal form of any integer).
    U64(u64),
    /// A float (an `f32` is widened exactly).
    F64(f64),
    /// A boolean.
    Bool(bool),
    /// A string.
    Str(&'static str),
}

/// How a placeholder formats its argument (`{}`, `{:x}`, `{:X}`, `{:.N}`).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spec {
    /// `{}`.
    Display,
    /// `{:x}`.
    LowerHex,
    /// `{:X}`.
    UpperHex,
    /// `{:.N}`.
    Precision(u8),
}

/// The C conversion an argument type needs.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// `%lld`.
    Signed,
    /// `%llu`.
    Unsigned,
    /// `%f`.
    Float,
    /// `%s`.
    Str,
}

/// Types `gpu_println!` prints with `{}`: integers up to 64 bits, `f32`, `f64`, `bool`,
/// `&'static str`, and references to them.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be printed by `gpu_println!`",
    label = "not printable on the GPU",
    note = "device printing supports integers up to 64 bits, `f32`, `f64`, `bool` and `&'static str`"
)]
pub trait Printable {
    /// The C conversion of this type.
    #[doc(hidden)]
    const KIND: ArgKind;
    /// The value as a print argument.
    fn to_print_arg(&self) -> PrintArg;
}

/// Integer types, which `{:x}` and `{:X}` print in hexadecimal.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be printed with `{{:x}}`",
    label = "`{{:x}}` and `{{:X}}` need an integer",
    note = "hexadecimal placeholders take integers up to 64 bits"
)]
pub trait PrintHex: Printable {
    /// The value's bits as an unsigned number of its own width.
    fn to_hex_arg(&self) -> PrintArg;
}

/// Float types, which `{:.N}` prints with N decimals.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be printed with a precision (`{{:.N}}`)",
    label = "`{{:.N}}` needs an `f32` or `f64`",
    note = "precision placeholders take floats; print integers with `{{}}`"
)]
pub trait PrintPrecision: Printable {}

macro_rules! printable_int {
    ($($t:ty => $variant:ident as $wide:ty, $kind:ident, hex as $unsigned:ty;)*) => {$(
        impl Printable for $t {
            const KIND: ArgKind = ArgKind::$kind;
            #[inline(always)]
            fn to_print_arg(&self) -> PrintArg {
                PrintArg::$variant(*self as $wide)
            }
        }
        impl PrintHex for $t {
            #[inline(always)]
            fn to_hex_arg(&self) -> PrintArg {
                PrintArg::U64(*self as $unsigned as u64)
            }
        }
    )*};
}

printable_int! {
    i8 => I64 as i64, Signed, hex as u8;
    i16 => I64 as i64, Signed, hex as u16;
    i32 => I64 as i64, Signed, hex as u32;
    i64 => I64 as i64, Signed, hex as u64;
    isize => I64 as i64, Signed, hex as usize;
    u8 => U64 as u64, Unsigned, hex as u8;
    u16 => U64 as u64, Unsigned, hex as u16;
    u32 => U64 as u64, Unsigned, hex as u32;
    u64 => U64 as u64, Unsigned, hex as u64;
    usize => U64 as u64, Unsigned, hex as usize;
}

impl Printable for f32 {
    const KIND: ArgKind = ArgKind::Float;
    #[inline(always)]
    fn to_print_arg(&self) -> PrintArg {
        PrintArg::F64(*self as f64)
    }
}
impl PrintPrecision for f32 {}

impl Printable for f64 {
    const KIND: ArgKind = ArgKind::Float;
    #[inline(always)]
    fn to_print_arg(&self) -> PrintArg {
        PrintArg::F64(*self)
    }
}
impl PrintPrecision for f64 {}

impl Printable for bool {
    const KIND: ArgKind = ArgKind::Str;
    #[inline(always)]
    fn to_print_arg(&self) -> PrintArg {
        PrintArg::Bool(*self)
    }
}

impl Printable for &'static str {
    const KIND: ArgKind = ArgKind::Str;
    #[inline(always)]
    fn to_print_arg(&self) -> PrintArg {
        PrintArg::Str(self)
    }
}

impl<T: Printable + ?Sized> Printable for &T {
    const KIND: ArgKind = T::KIND;
    #[inline(always)]
    fn to_print_arg(&self) -> PrintArg {
        (**self).to_print_arg()
    }
}
impl<T: PrintHex + ?Sized> PrintHex for &T {
    #[inline(always)]
    fn to_hex_arg(&self) -> PrintArg {
        (**self).to_hex_arg()
    }
}
impl<T: PrintPrecision + ?Sized> PrintPrecision for &T {}

impl<T: Printable + ?Sized> Printable for &mut T {
    const KIND: ArgKind = T::KIND;
    #[inline(always)]
    fn to_print_arg(&self) -> PrintArg {
        (**self).to_print_arg()
    }
}
impl<T: PrintHex + ?Sized> PrintHex for &mut T {
    #[inline(always)]
    fn to_hex_arg(&self) -> PrintArg {
        (**self).to_hex_arg()
    }
}
impl<T: PrintPrecision + ?Sized> PrintPrecision for &mut T {}

/// The longest C conversion one argument needs (`%.99f`, five bytes): the macros size the
/// format buffer with it. The one definition of the fact; `ferrocuda-macros` should use it.
pub const MAX_CONVERSION_LEN: usize = 5;

/// Writes `bytes` at `out[at..]`; returns the new end.
const fn put(out: &mut [u8], mut at: usize, bytes: &[u8]) -> usize {
    let mut i = 0;
    while i < bytes.len() {
        out[at] = bytes[i];
        at += 1;
        i += 1;
    }
    at
}

/// The NUL-terminated C format string of a print: `pieces[0]`, the conversion of argument 0,
/// `pieces[1]`, ..., with `%` escaped; evaluated at compile time. `CAP` (computed by the macro)
/// bounds its length; the rest is NUL padding.
#[doc(hidden)]
pub const fn c_format<const CAP: usize>(
    pieces: &[&str],
    specs: &[Spec],
    kinds: &[ArgKind],
) -> [u8; CAP] {
    let mut out = [0u8; CAP];
    let mut at = 0;
    let mut i = 0;
    while i < pieces.len() {
        let piece = pieces[i].as_bytes();
        let mut j = 0;
        while j < piece.len() {
            if piece[j] == b'%' {
                at = put(&mut out, at, b"%%");
            } else {
                out[at] = piece[j];
                at += 1;
            }
            j += 1;
        }
        if i < specs.len() {
            at = match (specs[i], kinds[i]) {
                (Spec::LowerHex, _) => put(&mut out, at, b"%llx"),
                (Spec::UpperHex, _) => put(&mut out, at, b"%llX"),
                (Spec::Precision(n), _) => {
                    at = put(&mut out, at, b"%.");
                    if n >= 10 {
                        out[at] = b'0' + n / 10;
                        at += 1;
                    }
                    out[at] = b'0' + n % 10;
                    put(&mut out, at + 1, b"f")
                }
                (Spec::Display, ArgKind::Signed) => put(&mut out, at, b"%lld"),
                (Spec::Display, ArgKind::Unsigned) => put(&mut out, at, b"%llu"),
                (Spec::Display, ArgKind::Float) => put(&mut out, at, b"%f"),
                (Spec::Display, ArgKind::Str) => put(&mut out, at, b"%s"),
            };
        }
        i += 1;
    }
    assert!(
        at < CAP,
        "ferrocuda: device format string longer than its buffer"
    );
    out
}

/// Prints one formatted piece of device output: `pieces[0] args[0] pieces[1] ...`.
///
/// Called by `gpu_print!`/`gpu_println!`; `format` is the C form of the same line (used on the
/// GPU, by one `vprintf`), `pieces`, `specs` and `args` describe it for the simulator.
#[doc(hidden)]
#[inline(always)]
pub fn print<const CAP: usize, const N: usize>(
    format: &'static [u8; CAP],
    pieces: &[&str],
    specs: &[Spec],
    args: &[PrintArg; N],
) {
    imp::print(format, pieces, specs, args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::print::{format_line, write_c_float};
    use std::string::String;

    fn c_float(v: f64, precision: usize) -> String {
        let mut s = String::new();
        write_c_float(&mut s, v, precision).unwrap();
        s
    }

    #[test]
    fn floats_print_like_c() {
        assert_eq!(c_float(1.5, 6), "1.500000");
        assert_eq!(c_float(-0.0, 6), "-0.000000");
        assert_eq!(c_float(0.1f32 as f64, 6), "0.100000");
        assert_eq!(c_float(2.0 / 3.0, 3), "0.667");
        assert_eq!(c_float(1e20, 2), "100000000000000000000.00");
        assert_eq!(c_float(123.456, 0), "123");
        // Ties on exactly representable values round to even, as glibc's printf does.
        assert_eq!(c_float(0.5, 0), "0");
        assert_eq!(c_float(1.5, 0), "2");
        assert_eq!(c_float(2.5, 0), "2");
        assert_eq!(c_float(0.125, 2), "0.12");
        assert_eq!(c_float(f64::INFINITY, 6), "inf");
        assert_eq!(c_float(f64::NEG_INFINITY, 6), "-inf");
        assert_eq!(c_float(f64::NAN, 6), "nan");
        assert_eq!(c_float(-f64::NAN, 6), "-nan");
    }

    #[test]
    fn lines_format_each_argument_kind() {
        let line = format_line(
            &["a=", " b=", " c=", " d=", " e=", " f=", "\n"],
            &[
                Spec::Display,
                Spec::Display,
                Spec::Precision(2),
                Spec::LowerHex,
                Spec::Display,
                Spec::UpperHex,
            ],
            &[
                (-5i32).to_print_arg(),
                7usize.to_print_arg(),
                2.345f32.to_print_arg(),
                (-1i32).to_hex_arg(),
                true.to_print_arg(),
                255u8.to_hex_arg(),
            ],
        );
        assert_eq!(line, "a=-5 b=7 c=2.35 d=ffffffff e=true f=FF\n");
        let line = format_line(
            &["x = ", " ", ""],
            &[Spec::Display, Spec::Display],
            &[1.0f64.to_print_arg(), "text".to_print_arg()],
        );
        assert_eq!(line, "x = 1.000000 text");
    }

    #[test]
    fn c_format_escapes_and_converts() {
        const F: [u8; 64] = c_format::<64>(
            &["100% of ", " is ", " (", ") ", "\n"],
            &[
                Spec::Display,
                Spec::Precision(12),
                Spec::LowerHex,
                Spec::Display,
            ],
            &[
                ArgKind::Unsigned,
                ArgKind::Float,
                ArgKind::Signed,
                ArgKind::Str,
            ],
        );
        let end = F.iter().position(|&b| b == 0).unwrap();
        assert_eq!(
            core::str::from_utf8(&F[..end]).unwrap(),
            "100%% of %llu is %.12f (%llx) %s\n"
        );
        const G: [u8; 8] = c_format::<8>(&["{}"], &[], &[]);
        assert_eq!(&G[..3], b"{}\0");
    }

    #[test]
    fn kinds_follow_the_type() {
        assert_eq!(<i8 as Printable>::KIND, ArgKind::Signed);
        assert_eq!(<usize as Printable>::KIND, ArgKind::Unsigned);
        assert_eq!(<&f32 as Printable>::KIND, ArgKind::Float);
        assert_eq!(<bool as Printable>::KIND, ArgKind::Str);
        assert_eq!(<&'static str as Printable>::KIND, ArgKind::Str);
        assert_eq!((-2i64).to_hex_arg(), PrintArg::U64(u64::MAX - 1));
        assert_eq!((-2i16).to_hex_arg(), PrintArg::U64(0xfffe));
    }
}
