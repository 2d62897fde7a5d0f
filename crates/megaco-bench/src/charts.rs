//! The four `meas` charts (size, encode, decode, total per message; one
//! line per codec configuration), as PNG and SVG.
//!
//! Text needs a TrueType font: the first found of `$MEGACO_BENCH_FONT` and
//! a few usual system paths (DejaVu Sans, Liberation Sans, Arial). Without
//! one the charts are drawn without text.
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::meas::{MeasResult, Row};

const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation/LiberationSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "/Library/Fonts/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// Registers a font for chart text once; whether one is available.
fn font_available() -> bool {
    static FONT: OnceLock<bool> = OnceLock::new();
    *FONT.get_or_init(|| {
        let from_env = std::env::var_os("MEGACO_BENCH_FONT").map(PathBuf::from);
        let candidates = from_env
            .into_iter()
            .chain(FONT_PATHS.iter().map(PathBuf::from));
        for p in candidates {
            if let Ok(bytes) = std::fs::read(&p) {
                // Registered once for the whole process, so leaking is the
                // intended lifetime.
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                    return true;
                }
            }
        }
        false
    })
}

type Metric = (&'static str, &'static str, &'static str, fn(&Row) -> f64);

const METRICS: [Metric; 4] = [
    ("size", "Encoded size per message", "bytes", |r| {
        r.size as f64
    }),
    ("encode", "Encode time per message", "µs", |r| r.encode_us),
    ("decode", "Decode time per message", "µs", |r| r.decode_us),
    ("total", "Encode + decode time per message", "µs", |r| {
        r.total_us()
    }),
];

/// Writes `size`, `encode`, `decode` and `total` charts as `.png` and
/// `.svg` into `dir`. Returns the paths written.
pub fn write(result: &MeasResult, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let text = font_available();
    let mut messages: Vec<&str> = Vec::new();
    let mut codecs: Vec<&str> = Vec::new();
    for r in &result.rows {
        if !messages.contains(&r.message.as_str()) {
            messages.push(&r.message);
        }
        if !codecs.contains(&r.codec.as_str()) {
            codecs.push(&r.codec);
        }
    }
    let mut written = Vec::new();
    for (name, title, unit, value) in METRICS {
        let series: Vec<(&str, Vec<(usize, f64)>)> = codecs
            .iter()
            .map(|&c| {
                let pts = result
                    .rows
                    .iter()
                    .filter(|r| r.codec == c)
                    .filter_map(|r| {
                        let i = messages.iter().position(|m| *m == r.message)?;
                        Some((i, value(r)))
                    })
                    .collect();
                (c, pts)
            })
            .collect();
        let chart = Chart {
            title,
            unit,
            messages: &messages,
            series: &series,
            text,
        };
        let png = dir.join(format!("{name}.png"));
        chart
            .draw(BitMapBackend::new(&png, (1600, 900)).into_drawing_area())
            .map_err(|e| anyhow::anyhow!("{}: {e}", png.display()))?;
        written.push(png);
        let svg = dir.join(format!("{name}.svg"));
        chart
            .draw(SVGBackend::new(&svg, (1600, 900)).into_drawing_area())
            .map_err(|e| anyhow::anyhow!("{}: {e}", svg.display()))?;
        written.push(svg);
    }
    Ok(written)
}

struct Chart<'a> {
    title: &'a str,
    unit: &'a str,
    messages: &'a [&'a str],
    series: &'a [(&'a str, Vec<(usize, f64)>)],
    text: bool,
}

impl Chart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let ymax = self
            .series
            .iter()
            .flat_map(|(_, p)| p.iter().map(|&(_, y)| y))
            .fold(0.0f64, f64::max);
        let ymax = if ymax > 0.0 { ymax * 1.05 } else { 1.0 };
        let n = self.messages.len().max(1);
        let mut builder = ChartBuilder::on(&root);
        builder.margin(20);
        if self.text {
            builder
                .caption(self.title, ("sans-serif", 28))
                .x_label_area_size(90)
                .y_label_area_size(80);
        }
        let mut chart = builder
            .build_cartesian_2d(0..(n - 1).max(1), 0f64..ymax)
            .map_err(e)?;
        let messages = self.messages;
        let label = |i: &usize| messages.get(*i).map(|s| s.to_string()).unwrap_or_default();
        if self.text {
            chart
                .configure_mesh()
                .x_desc("message")
                .y_desc(self.unit)
                .x_labels(n.min(40))
                .x_label_formatter(&label)
                .x_label_style(
                    ("sans-serif", 12)
                        .into_font()
                        .transform(FontTransform::Rotate90),
                )
                .draw()
                .map_err(e)?;
        } else {
            chart
                .configure_mesh()
                .x_labels(0)
                .y_labels(0)
                .draw()
                .map_err(e)?;
        }
        for (i, (name, pts)) in self.series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let drawn = chart
                .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                .map_err(e)?;
            if self.text {
                drawn.label(*name).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
            }
        }
        if self.text {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .position(SeriesLabelPosition::UpperRight)
                .draw()
                .map_err(e)?;
        }
        root.present().map_err(e)?;
        Ok(())
    }
}
