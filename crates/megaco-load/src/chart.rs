//! Line charts of load and fan-out runs, as PNG and SVG: latency over
//! time, throughput over time, time per destination against N.
//!
//! Text needs a TrueType font: the first found of `$MEGACO_BENCH_FONT` and
//! the usual system paths (DejaVu Sans, Liberation Sans). Without one the
//! charts are drawn without text.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::fanout::{FanoutReport, SetupResult};
use crate::load::LoadReport;

const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
];

fn font_available() -> bool {
    static FONT: OnceLock<bool> = OnceLock::new();
    *FONT.get_or_init(|| {
        let from_env = std::env::var_os("MEGACO_BENCH_FONT").map(PathBuf::from);
        for p in from_env
            .into_iter()
            .chain(FONT_PATHS.iter().map(PathBuf::from))
        {
            if let Ok(bytes) = std::fs::read(&p) {
                // Registered once for the whole process.
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                    return true;
                }
            }
        }
        false
    })
}

/// A chart of lines over a numeric x axis.
#[derive(Debug, Clone)]
pub struct LineChart {
    /// Title.
    pub title: String,
    /// X axis.
    pub x_desc: String,
    /// Y axis.
    pub y_desc: String,
    /// Named lines; a name ending in `(OTP)` is dashed.
    pub series: Vec<(String, Vec<(f64, f64)>)>,
    /// Logarithmic y axis.
    pub log_y: bool,
}

impl LineChart {
    /// Writes `stem.png` and `stem.svg`; returns their paths.
    pub fn write(&self, stem: &Path) -> anyhow::Result<Vec<PathBuf>> {
        let png = stem.with_extension("png");
        self.draw(BitMapBackend::new(&png, (1400, 800)).into_drawing_area())
            .map_err(|e| anyhow::anyhow!("{}: {e}", png.display()))?;
        let svg = stem.with_extension("svg");
        self.draw(SVGBackend::new(&svg, (1400, 800)).into_drawing_area())
            .map_err(|e| anyhow::anyhow!("{}: {e}", svg.display()))?;
        Ok(vec![png, svg])
    }

    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        let text = font_available();
        root.fill(&WHITE).map_err(e)?;
        let pts = || self.series.iter().flat_map(|(_, p)| p.iter().copied());
        let xmax = pts().map(|p| p.0).fold(0.0f64, f64::max).max(1.0);
        let ymax = pts().map(|p| p.1).fold(0.0f64, f64::max).max(1e-3) * 1.1;
        let ymin = pts()
            .map(|p| p.1)
            .filter(|y| *y > 0.0)
            .fold(f64::MAX, f64::min)
            .min(ymax / 10.0)
            * 0.8;
        let mut builder = ChartBuilder::on(&root);
        builder.margin(20);
        if text {
            builder
                .caption(&self.title, ("sans-serif", 26))
                .x_label_area_size(60)
                .y_label_area_size(90);
        }
        macro_rules! finish {
            ($chart:expr) => {{
                let mut chart = $chart;
                let mut mesh = chart.configure_mesh();
                if text {
                    mesh.x_desc(self.x_desc.as_str())
                        .y_desc(self.y_desc.as_str());
                } else {
                    mesh.x_labels(0).y_labels(0);
                }
                mesh.draw().map_err(e)?;
                for (i, (name, p)) in self.series.iter().enumerate() {
                    let color = Palette99::pick(i).to_rgba();
                    let style = color.stroke_width(2);
                    let line: Vec<(f64, f64)> = p
                        .iter()
                        .copied()
                        .filter(|q| !self.log_y || q.1 > 0.0)
                        .collect();
                    let drawn = if name.ends_with("(OTP)") {
                        chart
                            .draw_series(DashedLineSeries::new(line.clone(), 10, 6, style))
                            .map_err(e)?
                    } else {
                        chart
                            .draw_series(LineSeries::new(line.clone(), style))
                            .map_err(e)?
                    };
                    if text {
                        drawn.label(name.as_str()).legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 20, y)], style)
                        });
                    }
                    chart
                        .draw_series(line.iter().map(|&q| Circle::new(q, 3, color.filled())))
                        .map_err(e)?;
                }
                if text {
                    chart
                        .configure_series_labels()
                        .background_style(WHITE.mix(0.85))
                        .border_style(BLACK)
                        .position(SeriesLabelPosition::UpperRight)
                        .draw()
                        .map_err(e)?;
                }
            }};
        }
        if self.log_y {
            finish!(builder
                .build_cartesian_2d(0f64..xmax * 1.02, (ymin..ymax).log_scale())
                .map_err(e)?);
        } else {
            finish!(builder
                .build_cartesian_2d(0f64..xmax * 1.02, 0f64..ymax)
                .map_err(e)?);
        }
        root.present().map_err(e)?;
        Ok(())
    }
}

/// Latency percentiles over time and answers per second: `dir/latency`
/// and `dir/throughput` (PNG and SVG).
pub fn load(report: &LoadReport, dir: &Path, title: &str) -> anyhow::Result<Vec<PathBuf>> {
    let pick = |f: fn(&crate::load::Sample) -> f64| -> Vec<(f64, f64)> {
        report
            .series
            .iter()
            .filter(|s| s.answered > 0)
            .map(|s| (s.t, f(s)))
            .collect()
    };
    let latency = LineChart {
        title: format!("{title}: latency per second"),
        x_desc: "seconds".into(),
        y_desc: "latency (ms)".into(),
        series: vec![
            ("p50".into(), pick(|s| s.latency.p50_us as f64 / 1e3)),
            ("p90".into(), pick(|s| s.latency.p90_us as f64 / 1e3)),
            ("p99".into(), pick(|s| s.latency.p99_us as f64 / 1e3)),
            ("p99.9".into(), pick(|s| s.latency.p999_us as f64 / 1e3)),
            ("max".into(), pick(|s| s.latency.max_us as f64 / 1e3)),
        ],
        log_y: true,
    };
    let mut out = latency.write(&dir.join("latency"))?;
    let rate = LineChart {
        title: format!("{title}: transactions per second"),
        x_desc: "seconds".into(),
        y_desc: "per second".into(),
        series: vec![
            (
                "sent".into(),
                report.series.iter().map(|s| (s.t, s.sent as f64)).collect(),
            ),
            (
                "answered".into(),
                report
                    .series
                    .iter()
                    .map(|s| (s.t, s.answered as f64))
                    .collect(),
            ),
        ],
        log_y: false,
    };
    out.extend(rate.write(&dir.join("throughput"))?);
    Ok(out)
}

/// Time per destination against N, one line per setup (and OTP's):
/// `dir/fanout`; the wildcard table's `dir/wildcard`.
pub fn fanout(report: &FanoutReport, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let line = |s: &SetupResult, suffix: &str| {
        (
            format!("{}{suffix}", s.name),
            s.rows
                .iter()
                .map(|r| (r.destinations as f64, r.per_destination_us))
                .collect(),
        )
    };
    let mut series: Vec<(String, Vec<(f64, f64)>)> =
        report.setups.iter().map(|s| line(s, "")).collect();
    series.extend(report.otp.iter().map(|s| line(s, " (OTP)")));
    let chart = LineChart {
        title: format!("Fan-out: time per destination ({})", report.wire),
        x_desc: "destinations (N)".into(),
        y_desc: "µs per destination".into(),
        series,
        log_y: true,
    };
    let mut out = chart.write(&dir.join("fanout"))?;
    if let Some(w) = &report.wildcard {
        let chart = LineChart {
            title: "Wildcard inside one gateway: time per termination".into(),
            x_desc: "terminations (N)".into(),
            y_desc: "µs per termination".into(),
            series: vec![line(w, "")],
            log_y: false,
        };
        out.extend(chart.write(&dir.join("wildcard"))?);
    }
    Ok(out)
}
