//! The four `meas` charts (size, encode, decode, total per message), as
//! PNG and SVG: one solid line per codec configuration of ours and, when
//! OTP was measured, a dashed line of the same colour for the OTP
//! configuration it is compared with ([`crate::codecs::otp_twin`]). The
//! value axis is logarithmic, so that OTP's lines and ours fit in one
//! chart and the distance between two lines reads as a ratio.
//!
//! Text needs a TrueType font: the first found of `$MEGACO_BENCH_FONT` and
//! a few usual system paths (DejaVu Sans, Liberation Sans, Arial). Without
//! one the charts are drawn without text.
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
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

/// One line of a chart.
struct Series {
    label: String,
    /// Index into the palette: ours and its OTP twin share it.
    colour: usize,
    dashed: bool,
    points: Vec<(usize, f64)>,
}

/// Writes `size`, `encode`, `decode` and `total` charts as `.png` and
/// `.svg` into `dir`, ours from `result` and OTP's from `otp` (empty when
/// OTP was not measured). Returns the paths written.
pub fn write(result: &MeasResult, otp: &[Row], dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let text = font_available();
    let mut messages: Vec<&str> = Vec::new();
    let mut ours: Vec<&str> = Vec::new();
    for r in &result.rows {
        if !messages.contains(&r.message.as_str()) {
            messages.push(&r.message);
        }
        if !ours.contains(&r.codec.as_str()) {
            ours.push(&r.codec);
        }
    }
    // OTP's configuration beside each of ours (one line even when two of
    // ours are compared with the same one).
    let mut twins: Vec<(usize, &'static str)> = Vec::new();
    for (i, name) in ours.iter().enumerate() {
        let twin = name
            .parse::<megaco::codec::Encoding>()
            .ok()
            .and_then(|e| crate::codecs::otp_twin(&e));
        if let Some(t) = twin {
            if !twins.iter().any(|(_, o)| *o == t) && otp.iter().any(|r| r.codec == t) {
                twins.push((i, t));
            }
        }
    }
    let mut written = Vec::new();
    for (name, title, unit, value) in METRICS {
        let points = |rows: &[Row], codec: &str| -> Vec<(usize, f64)> {
            rows.iter()
                .filter(|r| r.codec == codec)
                .filter_map(|r| {
                    let i = messages.iter().position(|m| *m == r.message)?;
                    Some((i, value(r)))
                })
                .collect()
        };
        let mut series: Vec<Series> = ours
            .iter()
            .enumerate()
            .map(|(i, &c)| Series {
                label: c.to_string(),
                colour: i,
                dashed: false,
                points: points(&result.rows, c),
            })
            .collect();
        series.extend(twins.iter().map(|&(i, t)| Series {
            label: format!("OTP {t}"),
            colour: i,
            dashed: true,
            points: points(otp, t),
        }));
        let title = if twins.is_empty() {
            format!("{title} ({unit}, log scale)")
        } else {
            format!("{title} ({unit}, log scale): ours solid, Erlang/OTP dashed")
        };
        let chart = Chart {
            title: &title,
            unit,
            messages: &messages,
            series: &series,
            text,
        };
        let png = dir.join(format!("{name}.png"));
        chart
            .draw(BitMapBackend::new(&png, SIZE).into_drawing_area())
            .map_err(|e| anyhow::anyhow!("{}: {e}", png.display()))?;
        written.push(png);
        let svg = dir.join(format!("{name}.svg"));
        chart
            .draw(SVGBackend::new(&svg, SIZE).into_drawing_area())
            .map_err(|e| anyhow::anyhow!("{}: {e}", svg.display()))?;
        written.push(svg);
    }
    Ok(written)
}

/// Pixels of a chart; the legend takes the right-hand [`LEGEND_WIDTH`].
const SIZE: (u32, u32) = (1800, 900);
const LEGEND_WIDTH: u32 = 380;

struct Chart<'a> {
    title: &'a str,
    unit: &'a str,
    messages: &'a [&'a str],
    series: &'a [Series],
    text: bool,
}

impl Chart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let (plot, legend) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
        let values = || {
            self.series
                .iter()
                .flat_map(|s| s.points.iter().map(|&(_, y)| y))
                .filter(|y| *y > 0.0 && y.is_finite())
        };
        let ymax = values().fold(0.0f64, f64::max);
        let ymin = values().fold(f64::INFINITY, f64::min);
        let (ymin, ymax) = if ymax > 0.0 {
            (ymin / 1.25, ymax * 1.25)
        } else {
            (0.1, 1.0)
        };
        let n = self.messages.len().max(1);
        let mut builder = ChartBuilder::on(&plot);
        builder.margin(20);
        if self.text {
            builder
                .caption(self.title, ("sans-serif", 26))
                .x_label_area_size(120)
                .y_label_area_size(80);
        }
        let mut chart = builder
            .build_cartesian_2d(0..(n - 1).max(1), (ymin..ymax).log_scale())
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
        for s in self.series {
            // Points at zero have no place on a log scale.
            let pts: Vec<(usize, f64)> = s.points.iter().copied().filter(|p| p.1 > 0.0).collect();
            if s.dashed {
                chart
                    .draw_series(DashedLineSeries::new(pts, 6, 4, style(s)))
                    .map_err(e)?;
            } else {
                chart
                    .draw_series(LineSeries::new(pts, style(s)))
                    .map_err(e)?;
            }
        }
        if self.text {
            self.legend(&legend).map_err(e)?;
        }
        root.present().map_err(e)?;
        Ok(())
    }

    /// One line per series beside the plot: a sample of its stroke and its
    /// name.
    fn legend<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let font = ("sans-serif", 14).into_font();
        for (i, s) in self.series.iter().enumerate() {
            let y = 70 + 24 * i as i32;
            let line = vec![(10, y), (50, y)];
            if s.dashed {
                area.draw(&DashedPathElement::new(line, 6, 4, style(s)))?;
            } else {
                area.draw(&PathElement::new(line, style(s)))?;
            }
            area.draw(&Text::new(s.label.as_str(), (60, y - 8), font.clone()))?;
        }
        Ok(())
    }
}

/// A series' stroke: its palette colour, two pixels wide.
fn style(s: &Series) -> ShapeStyle {
    Palette99::pick(s.colour).to_rgba().stroke_width(2)
}
