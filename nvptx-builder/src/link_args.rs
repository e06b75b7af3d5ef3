//! Parsing the command line rustc gives an `llbc`-flavour linker for nvptx64.
//!
//! rustc runs (for a `cdylib`, abridged):
//! `LINKER --export-symbol k --export-symbol COEF main.rcgu.o libcompiler_builtins-*.rlib
//! -L dir --target nvptx64-nvidia-cuda --target-cpu sm_70 --target-feature=+ptx70 -o k.ptx -O3
//! --debug`, possibly through an `@response-file`.

use crate::error::{Error, Result};
use std::ffi::OsString;
use std::path::PathBuf;

/// What the link step needs to know from the command line.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct LinkArgs {
    /// Symbols to keep public (`--export-symbol`).
    pub(crate) exports: Vec<String>,
    /// Objects and archives, in order.
    pub(crate) inputs: Vec<PathBuf>,
    /// `--target-cpu`, e.g. `sm_70`.
    pub(crate) target_cpu: Option<String>,
    /// `--target-feature`, comma-joined, e.g. `+ptx70`.
    pub(crate) target_features: Option<String>,
    /// `-o`.
    pub(crate) output: Option<PathBuf>,
    /// `-O0` ... `-O3`, `-Os`, `-Oz` without the `-O`.
    pub(crate) opt_level: Option<String>,
    /// `--target`.
    pub(crate) target: Option<String>,
    /// The crate-wide fast math ([`crate::passes::fast_math::LINK_ARG`]), off when absent.
    pub(crate) fast_math: crate::FastMath,
    /// The optional passes that run ([`crate::pipeline::LINK_ARG`]), all when absent.
    pub(crate) passes: crate::pipeline::PassSelection,
    /// Arguments that were not understood and are ignored.
    pub(crate) ignored: Vec<String>,
}

/// Parses the linker's arguments (without the program name), expanding `@file`s.
pub(crate) fn parse(args: impl IntoIterator<Item = OsString>) -> Result<LinkArgs> {
    let mut expanded = Vec::new();
    for arg in args {
        let arg = arg.into_string().map_err(|a| {
            Error::new(format!(
                "linker argument is not valid UTF-8: {}",
                a.to_string_lossy()
            ))
        })?;
        match arg.strip_prefix('@') {
            Some(file) if !file.is_empty() => {
                let text = std::fs::read_to_string(file).map_err(|e| {
                    Error::new(format!("cannot read linker response file {file}: {e}"))
                })?;
                expanded.extend(parse_response_file(&text));
            }
            _ => expanded.push(arg),
        }
    }
    parse_expanded(expanded)
}

/// Splits a response file as rustc writes it for non-MSVC linkers: one argument per line,
/// with `\` escaping spaces and backslashes.
fn parse_response_file(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|line| {
            let mut out = String::with_capacity(line.len());
            let mut chars = line.chars();
            while let Some(c) = chars.next() {
                if c == '\\' {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                } else {
                    out.push(c);
                }
            }
            out
        })
        .collect()
}

fn parse_expanded(args: Vec<String>) -> Result<LinkArgs> {
    let mut out = LinkArgs::default();
    let mut it = args.into_iter();
    let mut features: Vec<String> = Vec::new();
    while let Some(arg) = it.next() {
        // Options that take a value, either as `--opt value` or `--opt=value`.
        let with_value = |name: &str,
                          it: &mut std::vec::IntoIter<String>|
         -> Option<Result<String>> {
            if arg == name {
                Some(
                    it.next()
                        .ok_or_else(|| Error::new(format!("linker option {name} needs a value"))),
                )
            } else {
                arg.strip_prefix(name)
                    .and_then(|r| r.strip_prefix('='))
                    .map(|v| Ok(v.to_owned()))
            }
        };
        if let Some(v) = with_value("--export-symbol", &mut it) {
            out.exports.push(v?);
        } else if let Some(v) = with_value("--target-cpu", &mut it) {
            out.target_cpu = Some(v?);
        } else if let Some(v) = with_value("--target-feature", &mut it) {
            features.extend(v?.split(',').filter(|f| !f.is_empty()).map(str::to_owned));
        } else if let Some(v) = with_value(crate::passes::fast_math::LINK_ARG, &mut it) {
            let v = v?;
            out.fast_math = crate::FastMath::parse(&v).map_err(|e| {
                Error::new(format!(
                    "linker option {}={v}: {e}",
                    crate::passes::fast_math::LINK_ARG
                ))
            })?;
        } else if let Some(v) = with_value(crate::pipeline::LINK_ARG, &mut it) {
            out.passes = crate::pipeline::PassSelection::parse(&v?)?;
        } else if let Some(v) = with_value("--target", &mut it) {
            out.target = Some(v?);
        } else if arg == "-o" {
            let v = it
                .next()
                .ok_or_else(|| Error::new("linker option -o needs a value"))?;
            out.output = Some(PathBuf::from(v));
        } else if arg == "-L" || arg == "-l" {
            // Search paths and libraries: rustc passes archives by path, so these are unused.
            let _ = it.next();
        } else if let Some(level) = arg.strip_prefix("-O") {
            out.opt_level = Some(level.to_owned());
        } else if let Some(v) = arg.strip_prefix("-o") {
            out.output = Some(PathBuf::from(v));
        } else if arg.starts_with('-') {
            // `--debug`, `-L<dir>`, `--nvptx-builder-id=...`, future flags: not needed.
            out.ignored.push(arg);
        } else {
            out.inputs.push(PathBuf::from(arg));
        }
    }
    if !features.is_empty() {
        out.target_features = Some(features.join(","));
    }
    if out.output.is_none() {
        return Err(Error::new("no output file (-o) given to the linker"));
    }
    if out.inputs.is_empty() {
        return Err(Error::new("no input files given to the linker"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn parses_rustc_llbc_command_line() {
        let a = parse(os(&[
            "--export-symbol",
            "COEF",
            "--export-symbol",
            "k",
            "/t/deps/probe.probe.94ac-cgu.0.rcgu.o",
            "/t/deps/libcompiler_builtins-5d88.rlib",
            "-L",
            "/t/deps/rustc66dhKp/raw-dylibs",
            "--target",
            "nvptx64-nvidia-cuda",
            "--target-cpu",
            "sm_70",
            "--target-feature=+ptx70,+sm_70",
            "-L",
            "/sysroot/lib/rustlib/nvptx64-nvidia-cuda/lib/self-contained",
            "-o",
            "/t/deps/probe.ptx",
            "-O3",
            "--debug",
            "-Clink-arg-ignored",
        ]))
        .unwrap();
        assert_eq!(a.exports, vec!["COEF", "k"]);
        assert_eq!(
            a.inputs,
            vec![
                PathBuf::from("/t/deps/probe.probe.94ac-cgu.0.rcgu.o"),
                PathBuf::from("/t/deps/libcompiler_builtins-5d88.rlib")
            ]
        );
        assert_eq!(a.target_cpu.as_deref(), Some("sm_70"));
        assert_eq!(a.target_features.as_deref(), Some("+ptx70,+sm_70"));
        assert_eq!(a.target.as_deref(), Some("nvptx64-nvidia-cuda"));
        assert_eq!(a.output, Some(PathBuf::from("/t/deps/probe.ptx")));
        assert_eq!(a.opt_level.as_deref(), Some("3"));
        assert_eq!(a.ignored, vec!["--debug", "-Clink-arg-ignored"]);
    }

    #[test]
    fn equals_forms_and_errors() {
        let a = parse(os(&[
            "--export-symbol=a",
            "--target-cpu=sm_90",
            "--target-feature",
            "+ptx80",
            "-oout.ptx",
            "x.o",
        ]))
        .unwrap();
        assert_eq!(a.exports, vec!["a"]);
        assert_eq!(a.target_cpu.as_deref(), Some("sm_90"));
        assert_eq!(a.target_features.as_deref(), Some("+ptx80"));
        assert_eq!(a.output, Some(PathBuf::from("out.ptx")));
        assert!(parse(os(&["x.o"])).is_err());
        assert!(parse(os(&["-o", "a.ptx"])).is_err());
        assert!(parse(os(&["x.o", "-o"])).is_err());
        assert!(parse(os(&["x.o", "-o", "a", "--export-symbol"])).is_err());
    }

    #[test]
    fn fast_math_argument() {
        let a = parse(os(&["x.o", "-o", "a.ptx"])).unwrap();
        assert!(a.fast_math.is_off());
        let a = parse(os(&[
            "x.o",
            "-o",
            "a.ptx",
            "--nvptx-builder-fast-math=contract,approx-sqrt",
        ]))
        .unwrap();
        assert!(a.fast_math.contract && a.fast_math.approx_sqrt && !a.fast_math.approx_div);
        assert!(a.ignored.is_empty(), "{:?}", a.ignored);
        let e = parse(os(&["x.o", "-o", "a", "--nvptx-builder-fast-math=quick"])).unwrap_err();
        assert!(e.message().contains("\"quick\""), "{e:?}");
    }

    #[test]
    fn response_files() {
        let dir = std::env::temp_dir().join(format!("nvptx-builder-rsp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rsp = dir.join("args");
        std::fs::write(&rsp, "--export-symbol\nk\n/a\\ b/x.o\n-o\nout.ptx\n").unwrap();
        let a = parse(vec![OsString::from(format!("@{}", rsp.display()))]).unwrap();
        assert_eq!(a.exports, vec!["k"]);
        assert_eq!(a.inputs, vec![PathBuf::from("/a b/x.o")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
