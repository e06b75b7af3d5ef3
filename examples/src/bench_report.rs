//! The benchmark report: one measured figure per row of a CSV file, and the markdown table made
//! from it.
//!
//! `examples/bench_kernels.rs` measures ferrocuda and CUDA C in one process and reads the CuPy
//! and Numba figures from the files `bench/cupy_kernels.py` and `bench/numba_kernels.py` wrote;
//! all of them are [`Measurement`]s, in one format:
//!
//! ```text
//! kernel,implementation,value,ms,registers,note
//! matmul,cuda_c,8.11,16.95,32,
//! matmul,cupy,8.09,16.99,32,RawKernel of bench/reference_kernels.cu
//! histogram,numba,,,,n/a: numba failed to import: ...
//! ```
//!
//! `kernel` is one of [`KERNELS`]' ids; `implementation` one of [`IMPLEMENTATIONS`]' ids (or a
//! variant of ferrocuda's own, see [`UNCHECKED`] and [`LINE_TABLES`]); `value` is the figure in
//! the kernel's unit (GB/s or TFLOP/s, higher is better), empty where it could not be measured;
//! `ms` the median milliseconds of one launch; `registers` per thread as the driver or ptxas
//! reports them, empty where unknown; `note` free text to the end of the line (commas allowed).
//! Lines that are empty or start with `#` are skipped.

use std::fmt::Write as _;

/// A benchmarked kernel: its id in the CSV file and how the report describes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Kernel {
    /// The id in the CSV file.
    pub id: &'static str,
    /// What runs, at which size.
    pub description: &'static str,
    /// The unit of its figures (higher is better).
    pub unit: &'static str,
    /// ferrocuda's target against CUDA C, as a minimum ratio.
    pub target: f64,
}

/// The kernels of the report, in its order. Every implementation runs the same algorithm with
/// the same block and tile sizes, except where a CuPy note says it is CuPy's own operation.
pub const KERNELS: [Kernel; 5] = [
    Kernel {
        id: "vecadd",
        description: "vecadd, 2^26 f32",
        unit: "GB/s",
        target: 0.98,
    },
    Kernel {
        id: "matmul",
        description: "matmul 4096, 16x16 shared tiles",
        unit: "TFLOP/s",
        target: 0.95,
    },
    Kernel {
        id: "transpose",
        description: "transpose 8192, 32x33 tile",
        unit: "GB/s",
        target: 0.95,
    },
    Kernel {
        id: "histogram",
        description: "histogram 256 bins, 2^26 u32",
        unit: "GB/s",
        target: 0.95,
    },
    Kernel {
        id: "sum",
        description: "sum 2^26 f32, warp shuffles",
        unit: "GB/s",
        target: 0.9,
    },
];

/// The implementations compared for every kernel, in the report's order: (id, name).
pub const IMPLEMENTATIONS: [(&str, &str); 4] = [
    ("ferrocuda", "ferrocuda"),
    ("cuda_c", "CUDA C"),
    ("cupy", "CuPy"),
    ("numba", "Numba"),
];

/// The implementation id of ferrocuda's matmul with unchecked accesses in its hot loop (what the
/// bounds checks cost).
pub const UNCHECKED: &str = "ferrocuda_unchecked";

/// The implementation ids of ferrocuda's kernels launched through the raw driver call from the
/// PTX built with line tables (the default) and from the PTX built with `FERROCUDA_LINEINFO=0`.
pub const LINE_TABLES: [&str; 2] = ["ferrocuda_lineinfo", "ferrocuda_no_lineinfo"];

/// One measured figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// The kernel's id (see [`KERNELS`]).
    pub kernel: String,
    /// The implementation's id (see [`IMPLEMENTATIONS`]).
    pub implementation: String,
    /// The figure in the kernel's unit; `None` where it could not be measured.
    pub value: Option<f64>,
    /// Median milliseconds of one launch.
    pub ms: Option<f64>,
    /// Registers per thread.
    pub registers: Option<i64>,
    /// How it was measured, or why it is missing.
    pub note: String,
}

/// The header line of the CSV format.
pub const CSV_HEADER: &str = "kernel,implementation,value,ms,registers,note";

/// A line of a results file that is not a [`Measurement`].
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong.
    pub reason: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

impl std::error::Error for ParseError {}

/// Reads the CSV format of the module doc (the header line is optional).
pub fn parse_csv(text: &str) -> Result<Vec<Measurement>, ParseError> {
    let mut rows = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with('#') || line == CSV_HEADER {
            continue;
        }
        let error = |reason: String| ParseError {
            line: index + 1,
            reason,
        };
        let fields: Vec<&str> = line.splitn(6, ',').collect();
        if fields.len() < 5 {
            return Err(error(format!(
                "{} fields, expected at least 5 ({CSV_HEADER})",
                fields.len()
            )));
        }
        let number = |name: &str, field: &str| -> Result<Option<f64>, ParseError> {
            let field = field.trim();
            if field.is_empty() {
                return Ok(None);
            }
            match field.parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => Ok(Some(v)),
                _ => Err(error(format!(
                    "{name} `{field}` is not a finite number >= 0"
                ))),
            }
        };
        let registers = match fields[4].trim() {
            "" => None,
            r => Some(
                r.parse::<i64>()
                    .map_err(|_| error(format!("registers `{r}` is not an integer")))?,
            ),
        };
        let (kernel, implementation) = (fields[0].trim(), fields[1].trim());
        if !KERNELS.iter().any(|k| k.id == kernel) {
            let known: Vec<&str> = KERNELS.iter().map(|k| k.id).collect();
            return Err(error(format!(
                "unknown kernel `{kernel}`, expected one of {}",
                known.join(", ")
            )));
        }
        if !known_implementations().any(|i| i == implementation) {
            let known: Vec<&str> = known_implementations().collect();
            return Err(error(format!(
                "unknown implementation `{implementation}`, expected one of {}",
                known.join(", ")
            )));
        }
        rows.push(Measurement {
            kernel: kernel.to_string(),
            implementation: implementation.to_string(),
            value: number("value", fields[2])?,
            ms: number("ms", fields[3])?,
            registers,
            note: fields.get(5).unwrap_or(&"").trim().to_string(),
        });
    }
    Ok(rows)
}

/// Writes `rows` in the CSV format of the module doc, header first (line breaks in notes
/// become spaces).
pub fn to_csv(rows: &[Measurement]) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    let opt = |v: Option<f64>, digits: usize| v.map_or(String::new(), |v| format!("{v:.digits$}"));
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{}",
            r.kernel,
            r.implementation,
            opt(r.value, 3),
            opt(r.ms, 5),
            r.registers.map_or(String::new(), |v| v.to_string()),
            r.note.replace(['\n', '\r'], " ")
        );
    }
    out
}

/// The row of `kernel` by `implementation` (the last one where there are several).
pub fn find<'a>(
    rows: &'a [Measurement],
    kernel: &str,
    implementation: &str,
) -> Option<&'a Measurement> {
    rows.iter()
        .rev()
        .find(|r| r.kernel == kernel && r.implementation == implementation)
}

/// The measured figure of `kernel` by `implementation`.
pub fn value(rows: &[Measurement], kernel: &str, implementation: &str) -> Option<f64> {
    find(rows, kernel, implementation).and_then(|r| r.value)
}

/// The kernels of [`KERNELS`] that have at least one row, in [`KERNELS`]' order.
pub fn kernels_in(rows: &[Measurement]) -> Vec<Kernel> {
    KERNELS
        .iter()
        .filter(|k| rows.iter().any(|r| r.kernel == k.id))
        .copied()
        .collect()
}

/// Every implementation id a row may have: [`IMPLEMENTATIONS`], [`UNCHECKED`], [`LINE_TABLES`].
fn known_implementations() -> impl Iterator<Item = &'static str> {
    IMPLEMENTATIONS
        .iter()
        .map(|(id, _)| *id)
        .chain([UNCHECKED])
        .chain(LINE_TABLES)
}

/// A figure with the precision the report shows: TFLOP/s with two decimals, GB/s whole; `n/a`
/// for none.
pub fn figure(value: Option<f64>, unit: &str) -> String {
    match value {
        None => "n/a".into(),
        Some(v) if unit == "TFLOP/s" => format!("{v:.2}"),
        Some(v) => format!("{v:.0}"),
    }
}

/// `a / b` as "1.003x", or "n/a".
fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.3}x", a / b),
        _ => "n/a".into(),
    }
}

/// The registers of the implementations, "31 / 32 / - / 28".
fn registers(rows: &[Measurement], kernel: &str, implementations: &[&str]) -> String {
    implementations
        .iter()
        .map(|i| {
            find(rows, kernel, i)
                .and_then(|r| r.registers)
                .map_or("-".to_string(), |r| r.to_string())
        })
        .collect::<Vec<_>>()
        .join(" / ")
}

/// The report in markdown: the comparison of every kernel across [`IMPLEMENTATIONS`] (ratio and
/// target of ferrocuda against CUDA C), then the cost of bounds checks and of line tables where
/// the rows have them, then the notes of the rows (how CuPy and Numba ran, why a figure is
/// missing).
pub fn markdown(rows: &[Measurement]) -> String {
    let mut out = String::new();
    let kernels = kernels_in(rows);
    let names: Vec<&str> = IMPLEMENTATIONS.iter().map(|(_, name)| *name).collect();
    let _ = writeln!(
        out,
        "| kernel | unit | {} | ferrocuda / CUDA C | target | registers ({}) |",
        names.join(" | "),
        names.join(" / ")
    );
    let _ = writeln!(out, "|---|---|{}---|---|---|", "---|".repeat(names.len()));
    let ids: Vec<&str> = IMPLEMENTATIONS.iter().map(|(id, _)| *id).collect();
    for k in &kernels {
        let figures: Vec<String> = ids
            .iter()
            .map(|i| figure(value(rows, k.id, i), k.unit))
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | >= {}x | {} |",
            k.description,
            k.unit,
            figures.join(" | "),
            ratio(value(rows, k.id, "ferrocuda"), value(rows, k.id, "cuda_c")),
            k.target,
            registers(rows, k.id, &ids)
        );
    }
    let checks: Vec<&Kernel> = kernels
        .iter()
        .filter(|k| find(rows, k.id, UNCHECKED).is_some())
        .collect();
    if !checks.is_empty() {
        let _ = writeln!(
            out,
            "\nBounds checks: ferrocuda's kernel against the same kernel with `get_unchecked` in its hot loop.\n\n| kernel | unit | checked | unchecked | checked / unchecked | registers (checked / unchecked) |\n|---|---|---|---|---|---|"
        );
        for k in checks {
            let (a, b) = (value(rows, k.id, "ferrocuda"), value(rows, k.id, UNCHECKED));
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                k.description,
                k.unit,
                figure(a, k.unit),
                figure(b, k.unit),
                ratio(a, b),
                registers(rows, k.id, &["ferrocuda", UNCHECKED])
            );
        }
    }
    let lines: Vec<&Kernel> = kernels
        .iter()
        .filter(|k| LINE_TABLES.iter().any(|i| find(rows, k.id, i).is_some()))
        .collect();
    if !lines.is_empty() {
        let _ = writeln!(
            out,
            "\nLine tables: ferrocuda's PTX built by default (`.loc` line tables) against `FERROCUDA_LINEINFO=0`, both launched with `cuLaunchKernel`, alternating (expected: no difference).\n\n| kernel | unit | line tables | none | ratio | registers (line tables / none) |\n|---|---|---|---|---|---|"
        );
        for k in lines {
            let (a, b) = (
                value(rows, k.id, LINE_TABLES[0]),
                value(rows, k.id, LINE_TABLES[1]),
            );
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                k.description,
                k.unit,
                figure(a, k.unit),
                figure(b, k.unit),
                ratio(a, b),
                registers(rows, k.id, &LINE_TABLES)
            );
        }
    }
    let notes: Vec<String> = kernels
        .iter()
        .flat_map(|k| {
            rows.iter()
                .filter(move |r| r.kernel == k.id && !r.note.is_empty())
                .map(move |r| {
                    format!(
                        "- {}, {}: {}",
                        k.id,
                        implementation_name(&r.implementation),
                        r.note
                    )
                })
        })
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(out, "\nNotes:\n");
        for note in notes {
            let _ = writeln!(out, "{note}");
        }
    }
    out
}

/// The name the report gives the implementation `id` (the id itself where it is not one of
/// [`IMPLEMENTATIONS`]).
pub fn implementation_name(id: &str) -> &str {
    IMPLEMENTATIONS
        .iter()
        .find(|(i, _)| *i == id)
        .map_or(id, |(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "kernel,implementation,value,ms,registers,note
# a comment
matmul,ferrocuda,8.13,16.9,31,
matmul,cuda_c,8.11,16.95,32,
matmul,cupy,8.09,17.0,32,RawKernel of bench/reference_kernels.cu, compiled by NVRTC
matmul,numba,,,,n/a: numba failed to import
matmul,ferrocuda_unchecked,8.14,16.88,30,
sum,ferrocuda,2820,0.095,28,
sum,cuda_c,2700,0.099,,
";

    #[test]
    fn csv_reads_values_empty_fields_and_notes_with_commas() {
        let rows = parse_csv(SAMPLE).unwrap();
        assert_eq!(rows.len(), 7);
        assert_eq!(rows[0].value, Some(8.13));
        assert_eq!(rows[0].registers, Some(31));
        assert_eq!(
            rows[2].note,
            "RawKernel of bench/reference_kernels.cu, compiled by NVRTC"
        );
        assert_eq!(rows[3].value, None);
        assert_eq!(rows[3].ms, None);
        assert_eq!(rows[6].registers, None);
        // What it writes, it reads back unchanged.
        assert_eq!(parse_csv(&to_csv(&rows)).unwrap(), rows);
    }

    #[test]
    fn csv_errors_name_the_line_and_the_field() {
        let e = parse_csv("matmul,cupy,fast,1,2,\n").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.reason.contains("value `fast`"), "{e}");
        let e = parse_csv("sum,cupy,1,1,1,\nmatmul,cupy\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.reason.contains("2 fields"), "{e}");
        let e = parse_csv("matmul,cupy,1,1,many,\n").unwrap_err();
        assert!(e.reason.contains("registers `many`"), "{e}");
        assert!(parse_csv("matmul,cupy,-1,1,1,\n").is_err());
        let e = parse_csv("scan,cupy,1,1,1,\n").unwrap_err();
        assert!(
            e.reason
                .contains("unknown kernel `scan`, expected one of vecadd, matmul"),
            "{e}"
        );
        let e = parse_csv("sum,triton,1,1,1,\n").unwrap_err();
        assert!(e.reason.contains("unknown implementation `triton`"), "{e}");
    }

    #[test]
    fn markdown_shows_every_implementation_ratios_and_missing_figures() {
        let md = markdown(&parse_csv(SAMPLE).unwrap());
        // ferrocuda, CUDA C, CuPy, Numba (missing), 8.13 / 8.11 = 1.00247
        assert!(
            md.contains(
                "| matmul 4096, 16x16 shared tiles | TFLOP/s | 8.13 | 8.11 | 8.09 | n/a | 1.002x | >= 0.95x | 31 / 32 / 32 / - |"
            ),
            "{md}"
        );
        // 2820 / 2700 = 1.0444; no CuPy or Numba rows at all.
        assert!(
            md.contains("| sum 2^26 f32, warp shuffles | GB/s | 2820 | 2700 | n/a | n/a | 1.044x | >= 0.9x | 28 / - / - / - |"),
            "{md}"
        );
        // 8.13 / 8.14 = 0.99877
        assert!(md.contains("| 8.13 | 8.14 | 0.999x | 31 / 30 |"), "{md}");
        assert!(!md.contains("Line tables"), "{md}");
        assert!(
            md.contains("- matmul, Numba: n/a: numba failed to import"),
            "{md}"
        );
        // Kernels follow KERNELS' order, not the file's.
        let rows = parse_csv("sum,ferrocuda,1,1,,\nvecadd,ferrocuda,2,1,,\n").unwrap();
        let md = markdown(&rows);
        assert!(md.find("vecadd, 2^26").unwrap() < md.find("sum 2^26").unwrap());
    }

    #[test]
    fn markdown_shows_line_table_cost() {
        let rows = parse_csv(
            "transpose,ferrocuda_lineinfo,2600,0.2,26,\ntranspose,ferrocuda_no_lineinfo,2650,0.2,24,\n",
        )
        .unwrap();
        let md = markdown(&rows);
        // 2600 / 2650 = 0.98113
        assert!(
            md.contains("| transpose 8192, 32x33 tile | GB/s | 2600 | 2650 | 0.981x | 26 / 24 |"),
            "{md}"
        );
    }
}
