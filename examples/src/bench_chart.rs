//! The benchmark chart: grouped bars, one group per kernel, one bar per implementation
//! (ferrocuda, CUDA C, CuPy, Numba), each the implementation's throughput relative to CUDA C's on
//! the same kernel (CUDA C = 1; higher is better), with the ratio written above the bar and `n/a`
//! where a figure is missing. Kernels without a CUDA C figure are left out.
//!
//! Drawn with plotters' SVG backend alone: the SVG holds `<text>` elements that the viewer lays
//! out, and plotters sizes the label areas with its built-in estimate, so writing the chart needs
//! no font files (the GPU machine has none).

use crate::bench_report::{IMPLEMENTATIONS, Measurement, figure, kernels_in, markdown, value};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::{Path, PathBuf};

/// Bar colours of [`IMPLEMENTATIONS`], in order (ferrocuda's rust orange first).
const COLOURS: [RGBColor; 4] = [
    RGBColor(0xce, 0x42, 0x2b),
    RGBColor(0x76, 0xb9, 0x00),
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0x8c, 0x56, 0x9b),
];

/// Width and height of the chart in pixels.
const SIZE: (u32, u32) = (960, 520);

/// The chart of `rows` as an SVG document, titled `title`; an error if no kernel has a CUDA C
/// figure to compare with.
pub fn svg(rows: &[Measurement], title: &str) -> Result<String, String> {
    let kernels: Vec<_> = kernels_in(rows)
        .into_iter()
        .filter(|k| value(rows, k.id, "cuda_c").is_some_and(|v| v > 0.0))
        .collect();
    if kernels.is_empty() {
        return Err("no kernel has a CUDA C figure to draw the others against".into());
    }
    // ratios[kernel][implementation]
    let ratios: Vec<Vec<Option<f64>>> = kernels
        .iter()
        .map(|k| {
            let base = value(rows, k.id, "cuda_c").unwrap_or(1.0);
            IMPLEMENTATIONS
                .iter()
                .map(|(id, _)| value(rows, k.id, id).map(|v| v / base))
                .collect()
        })
        .collect();
    let top = ratios
        .iter()
        .flatten()
        .flatten()
        .fold(1.0f64, |a, &b| a.max(b))
        * 1.35;
    let mut out = String::new();
    draw(&mut out, title, rows, &kernels, &ratios, top)
        .map_err(|e| format!("drawing the chart: {e}"))?;
    Ok(out)
}

/// The file names [`write_report`] writes.
pub const REPORT_FILES: [&str; 2] = ["bench-results.md", "bench-chart.svg"];

/// Writes `bench-results.md` (`heading`, then [`markdown`] of `rows`) and `bench-chart.svg`
/// ([`svg`] of `rows`) into `dir`: the paths written. Without a CUDA C figure the chart is left
/// out (and said so on stderr), the table is still written.
pub fn write_report(
    rows: &[Measurement],
    dir: &Path,
    heading: &str,
) -> Result<Vec<PathBuf>, String> {
    let mut written = Vec::new();
    let write = |name: &str, text: &str| -> Result<PathBuf, String> {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
        Ok(path)
    };
    written.push(write(
        REPORT_FILES[0],
        &format!("{heading}{}", markdown(rows)),
    )?);
    match svg(rows, "ferrocuda against CUDA C, CuPy and Numba") {
        Ok(chart) => written.push(write(REPORT_FILES[1], &chart)?),
        Err(e) => eprintln!("no chart: {e}"),
    }
    Ok(written)
}

/// Draws the bars into `out`.
fn draw(
    out: &mut String,
    title: &str,
    rows: &[Measurement],
    kernels: &[crate::bench_report::Kernel],
    ratios: &[Vec<Option<f64>>],
    top: f64,
) -> Result<(), String> {
    let root = SVGBackend::with_string(out, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(text_error)?;
    let groups = kernels.len() as f64;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..groups, 0.0..top)
        .map_err(text_error)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE)
        .x_labels(0)
        .y_desc("throughput relative to CUDA C (higher is better)")
        .y_label_formatter(&|v| format!("{v:.1}"))
        .draw()
        .map_err(text_error)?;
    let width = 0.8 / IMPLEMENTATIONS.len() as f64;
    let label_font =
        TextStyle::from(("sans-serif", 11).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
    for (j, (_, name)) in IMPLEMENTATIONS.iter().enumerate() {
        let colour = COLOURS[j];
        let bars = ratios.iter().enumerate().filter_map(move |(i, r)| {
            let x0 = i as f64 + 0.1 + j as f64 * width;
            r[j].map(|h| Rectangle::new([(x0, 0.0), (x0 + width * 0.92, h)], colour.filled()))
        });
        chart
            .draw_series(bars)
            .map_err(text_error)?
            .label(*name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
        let labels = ratios.iter().enumerate().map(|(i, r)| {
            let x = i as f64 + 0.1 + (j as f64 + 0.46) * width;
            let (text, y) = match r[j] {
                Some(h) => (format!("{h:.2}"), h),
                None => ("n/a".to_string(), 0.0),
            };
            Text::new(text, (x, y + top * 0.01), label_font.clone())
        });
        chart.draw_series(labels).map_err(text_error)?;
    }
    // The CUDA C line.
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(0.0, 1.0), (groups, 1.0)],
            BLACK.mix(0.5).stroke_width(1),
        )))
        .map_err(text_error)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(text_error)?;
    // Kernel names under their groups, on the root area (the plotting area clips below the
    // axis): the description up to its first comma, and CUDA C's figure on a second line.
    let name_font =
        TextStyle::from(("sans-serif", 13).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    for (i, k) in kernels.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
        let name = k.description.split(", ").next().unwrap_or(k.id);
        let base = format!(
            "CUDA C: {} {}",
            figure(value(rows, k.id, "cuda_c"), k.unit),
            k.unit
        );
        for (line, text) in [name, &base].into_iter().enumerate() {
            root.draw(&Text::new(
                text,
                (x, y + 8 + 16 * line as i32),
                name_font.clone(),
            ))
            .map_err(text_error)?;
        }
    }
    root.present().map_err(text_error)?;
    Ok(())
}

/// A drawing error as text (plotters' errors borrow the backend).
fn text_error(error: impl std::fmt::Display) -> String {
    error.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench_report::parse_csv;

    /// The `<rect>` elements of an SVG with their heights, in document order.
    fn rect_heights(svg: &str) -> Vec<f64> {
        svg.split("<rect")
            .skip(1)
            .filter_map(|r| {
                let h = r.split("height=\"").nth(1)?.split('"').next()?;
                h.parse().ok()
            })
            .collect()
    }

    #[test]
    fn bars_are_relative_to_cuda_c_with_labels_and_missing_figures() {
        let rows = parse_csv(
            "matmul,ferrocuda,8.0,1,,\nmatmul,cuda_c,4.0,1,,\nmatmul,cupy,2.0,1,,\nsum,ferrocuda,100,1,,\n",
        )
        .unwrap();
        let svg = svg(&rows, "test chart").unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains("test chart"));
        // sum has no CUDA C figure: only matmul is drawn, with its unit.
        assert!(svg.contains("\nmatmul 4096\n") && svg.contains("\nCUDA C: 4.00 TFLOP/s\n"));
        assert!(!svg.contains("sum 2^26"));
        // Ratios 2.00, 1.00, 0.50 above the bars, n/a for Numba.
        for label in [
            "\n2.00\n",
            "\n1.00\n",
            "\n0.50\n",
            "\nn/a\n",
            "\nNumba\n",
            "\nferrocuda\n",
        ] {
            assert!(svg.contains(label), "{label} missing");
        }
        // Three bars whose heights are in the ratio 2 : 1 : 0.5 (after the background, and
        // before the legend's four swatches and its frame).
        let heights = rect_heights(&svg);
        let bars: Vec<f64> = heights
            .iter()
            .copied()
            .filter(|&h| h > 12.0 && h < SIZE.1 as f64 - 100.0)
            .collect();
        assert!(bars.len() >= 3, "{heights:?}");
        let (a, b, c) = (bars[0], bars[1], bars[2]);
        assert!(
            (a / b - 2.0).abs() < 0.02 && (c / b - 0.5).abs() < 0.02,
            "{bars:?}"
        );
    }

    #[test]
    fn without_cuda_c_figures_there_is_no_chart() {
        let rows = parse_csv("sum,ferrocuda,100,1,,\n").unwrap();
        assert!(
            svg(&rows, "t")
                .unwrap_err()
                .contains("no kernel has a CUDA C figure")
        );
    }
}
