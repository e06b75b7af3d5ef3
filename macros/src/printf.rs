//! `gpu_print!` and `gpu_println!`: parses the format string at compile time into text pieces
//! and placeholders, checks them against the arguments, and expands into one call of
//! `ferrocuda::device::print::print` with the C format string built in a constant.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Error, Expr, ExprLit, Lit, LitStr, Result, Token};

/// The longest C conversion of one argument (`%.99f`); keep equal to
/// `ferrocuda_device::print::MAX_CONVERSION_LEN`.
const MAX_CONVERSION_LEN: usize = 5;

/// The largest precision `{:.N}` accepts.
const MAX_PRECISION: u32 = 99;

/// The macro input: a format string literal, then the arguments.
struct PrintInput {
    format: LitStr,
    args: Vec<Expr>,
}

impl Parse for PrintInput {
    fn parse(input: ParseStream) -> Result<Self> {
        if input.is_empty() {
            return Err(
                input.error("expected a format string literal, e.g. `gpu_println!(\"i = {}\", i)`")
            );
        }
        let format: LitStr = input.parse().map_err(|e| {
            Error::new(
                e.span(),
                "the first argument must be a format string literal, e.g. `\"i = {}\"`",
            )
        })?;
        let mut args = Vec::new();
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
            let rest = Punctuated::<Expr, Token![,]>::parse_terminated(input)?;
            args.extend(rest);
        }
        Ok(PrintInput { format, args })
    }
}

/// How one placeholder formats its argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Spec {
    /// `{}`.
    Display,
    /// `{:x}`.
    LowerHex,
    /// `{:X}`.
    UpperHex,
    /// `{:.N}`.
    Precision(u8),
}

/// A parsed format string: `pieces.len() == specs.len() + 1`, text and placeholders alternating.
#[derive(Debug, PartialEq, Eq)]
struct Format {
    pieces: Vec<String>,
    specs: Vec<Spec>,
}

/// Splits a format string into text pieces and placeholders; the error is a message for the
/// format string's span.
fn parse_format(text: &str) -> std::result::Result<Format, String> {
    let mut pieces = vec![String::new()];
    let mut specs = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                pieces.last_mut().expect("never empty").push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                pieces.last_mut().expect("never empty").push('}');
            }
            '}' => {
                return Err(
                    "unmatched `}` in the format string; write `}}` to print a brace".to_string(),
                );
            }
            '{' => {
                let mut inside = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some('{') => {
                            return Err(
                                "unexpected `{` inside a placeholder; write `{{` to print a brace"
                                    .to_string(),
                            );
                        }
                        Some(c) => inside.push(c),
                        None => {
                            return Err(format!(
                                "unclosed placeholder `{{{inside}` in the format string; write `{{{{` to print a brace"
                            ));
                        }
                    }
                }
                specs.push(parse_spec(&inside)?);
                pieces.push(String::new());
            }
            c => pieces.last_mut().expect("never empty").push(c),
        }
    }
    Ok(Format { pieces, specs })
}

/// Parses what stands between `{` and `}`.
fn parse_spec(inside: &str) -> std::result::Result<Spec, String> {
    let supported =
        "device printing supports `{}`, `{:x}`, `{:X}` and `{:.N}` (N decimals of a float)";
    let Some(spec) = inside.strip_prefix(':') else {
        return if inside.is_empty() {
            Ok(Spec::Display)
        } else {
            Err(format!(
                "`{{{inside}}}`: positional and named arguments are not supported on the GPU; write `{{}}` and pass the value as an argument after the format string"
            ))
        };
    };
    match spec {
        "" => Ok(Spec::Display),
        "x" => Ok(Spec::LowerHex),
        "X" => Ok(Spec::UpperHex),
        _ => {
            if let Some(digits) = spec.strip_prefix('.')
                && !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
            {
                return match digits.parse::<u32>() {
                    Ok(n) if n <= MAX_PRECISION => Ok(Spec::Precision(n as u8)),
                    _ => Err(format!(
                        "`{{{inside}}}`: the precision must be at most {MAX_PRECISION}"
                    )),
                };
            }
            Err(format!(
                "unsupported placeholder `{{{inside}}}`: {supported}"
            ))
        }
    }
}

/// Expands `gpu_print!` (`newline == false`) or `gpu_println!`.
pub fn expand(input: TokenStream, newline: bool) -> Result<TokenStream> {
    let PrintInput { format, args } = syn::parse2(input)?;
    let Format { mut pieces, specs } =
        parse_format(&format.value()).map_err(|message| Error::new(format.span(), message))?;
    if specs.len() != args.len() {
        let placeholders = match specs.len() {
            1 => "1 placeholder".to_string(),
            n => format!("{n} placeholders"),
        };
        let arguments = match args.len() {
            1 => "1 argument was".to_string(),
            n => format!("{n} arguments were"),
        };
        return Err(Error::new(
            format.span(),
            format!("the format string has {placeholders} but {arguments} given"),
        ));
    }

    // String literal arguments of `{}` become part of the text: no copy at run time.
    let mut kept_specs = Vec::new();
    let mut kept_args = Vec::new();
    let mut merged = vec![pieces.remove(0)];
    for ((spec, arg), piece) in specs.into_iter().zip(args).zip(pieces) {
        match (&spec, &arg) {
            (
                Spec::Display,
                Expr::Lit(ExprLit {
                    lit: Lit::Str(text),
                    ..
                }),
            ) => {
                let last = merged.last_mut().expect("never empty");
                last.push_str(&text.value());
                last.push_str(&piece);
            }
            _ => {
                kept_specs.push(spec);
                kept_args.push(arg);
                merged.push(piece);
            }
        }
    }
    if newline {
        merged.last_mut().expect("never empty").push('\n');
    }

    let capacity = merged
        .iter()
        .map(|p| p.len() + p.matches('%').count())
        .sum::<usize>()
        + kept_args.len() * MAX_CONVERSION_LEN
        + 1;
    let print = quote!(::ferrocuda::device::print);
    let type_params: Vec<_> = (0..kept_args.len())
        .map(|i| format_ident!("A{}", i))
        .collect();
    let value_params: Vec<_> = (0..kept_args.len())
        .map(|i| format_ident!("a{}", i))
        .collect();
    let bounds = kept_specs
        .iter()
        .zip(&type_params)
        .map(|(spec, ty)| match spec {
            Spec::Display => quote!(#ty: #print::Printable),
            Spec::LowerHex | Spec::UpperHex => quote!(#ty: #print::PrintHex),
            Spec::Precision(_) => quote!(#ty: #print::PrintPrecision),
        });
    let spec_tokens: Vec<_> = kept_specs
        .iter()
        .map(|spec| match spec {
            Spec::Display => quote!(#print::Spec::Display),
            Spec::LowerHex => quote!(#print::Spec::LowerHex),
            Spec::UpperHex => quote!(#print::Spec::UpperHex),
            Spec::Precision(n) => quote!(#print::Spec::Precision(#n)),
        })
        .collect();
    let conversions = kept_specs
        .iter()
        .zip(&value_params)
        .map(|(spec, value)| match spec {
            Spec::LowerHex | Spec::UpperHex => quote!(#print::PrintHex::to_hex_arg(#value)),
            _ => quote!(#print::Printable::to_print_arg(#value)),
        });
    let call_args = kept_args
        .iter()
        .map(|arg| quote_spanned!(arg.span()=> &(#arg)));
    Ok(quote! {
        {
            #[inline(always)]
            #[allow(clippy::too_many_arguments)]
            fn __ferrocuda_print<#(#bounds),*>(#(#value_params: &#type_params),*) {
                const PIECES: &[&str] = &[#(#merged),*];
                const SPECS: &[#print::Spec] = &[#(#spec_tokens),*];
                let format: &'static [u8; #capacity] = &const {
                    #print::c_format::<#capacity>(
                        PIECES,
                        SPECS,
                        &[#(<#type_params as #print::Printable>::KIND),*],
                    )
                };
                #print::print(format, PIECES, SPECS, &[#(#conversions),*]);
            }
            __ferrocuda_print(#(#call_args),*)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Format {
        parse_format(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
    }

    fn err(text: &str) -> String {
        parse_format(text).expect_err(text)
    }

    #[test]
    fn splits_text_and_placeholders() {
        let f = ok("idx = {} value = {:.3} hex {:x}{:X}!");
        assert_eq!(f.pieces, ["idx = ", " value = ", " hex ", "", "!"]);
        assert_eq!(
            f.specs,
            [
                Spec::Display,
                Spec::Precision(3),
                Spec::LowerHex,
                Spec::UpperHex
            ]
        );
        assert_eq!(ok("{:}").specs, [Spec::Display]);
        assert_eq!(
            ok("{:.0}{:.99}").specs,
            [Spec::Precision(0), Spec::Precision(99)]
        );
    }

    #[test]
    fn escapes_braces() {
        let f = ok("{{}} {{{}}} 100%");
        assert_eq!(f.pieces, ["{} {", "} 100%"]);
        assert_eq!(f.specs, [Spec::Display]);
        assert_eq!(ok("").pieces, [""]);
    }

    #[test]
    fn rejects_everything_else() {
        assert!(err("{").contains("unclosed placeholder"));
        assert!(err("a }").contains("unmatched `}`"));
        assert!(err("{0}").contains("positional and named arguments"));
        assert!(err("{x}").contains("positional and named arguments"));
        assert!(err("{:?}").contains("unsupported placeholder `{:?}`"));
        assert!(err("{:5}").contains("unsupported placeholder"));
        assert!(err("{:.}").contains("unsupported placeholder"));
        assert!(err("{:.100}").contains("at most 99"));
        assert!(err("{:e}").contains("`{}`, `{:x}`, `{:X}` and `{:.N}`"));
        assert!(err("{ {").contains("unexpected `{`"));
    }

    fn expand_err(tokens: TokenStream) -> String {
        expand(tokens, true).expect_err("must fail").to_string()
    }

    #[test]
    fn checks_the_argument_count() {
        assert_eq!(
            expand_err(quote!("a = {} b = {}", x)),
            "the format string has 2 placeholders but 1 argument was given"
        );
        assert_eq!(
            expand_err(quote!("nothing", x, y)),
            "the format string has 0 placeholders but 2 arguments were given"
        );
        assert!(expand_err(quote!(x, "a")).contains("format string literal"));
        assert!(expand_err(quote!()).contains("format string literal"));
    }

    #[test]
    fn expands_with_literals_folded_and_capacity_counted() {
        let out = expand(quote!("{} is {} at {}%", name, "here", 50u32,), true)
            .unwrap()
            .to_string();
        // "here" joined the text; two arguments remain, the newline was added.
        assert!(out.contains("\" is here at \""), "{out}");
        assert!(out.contains("\"%\\n\""), "{out}");
        assert!(
            out.contains("__ferrocuda_print (& (name) , & (50u32))"),
            "{out}"
        );
        // Text: "" + " is here at " (12) + "%\n" (2, plus 1 for the escaped %): 15, two
        // conversions of at most 5, one NUL.
        assert!(out.contains("[u8 ; 26usize]"), "{out}");
    }
}
