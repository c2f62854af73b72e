//! PNG charts, drawn with plotters' bitmap backend (pure Rust PNG encoder).
//!
//! Text uses plotters' `ab_glyph` renderer with a font loaded at run time
//! from [`FONT_PATH`] (Debian package `fonts-dejavu-core`). When the font is
//! missing the chart is still drawn, without any text, and a warning says
//! so: a chart must never make a benchmark fail.

use std::path::Path;
use std::sync::OnceLock;

use plotters::prelude::*;

use crate::workload::BResult;

/// The TTF file text is drawn with.
pub const FONT_PATH: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// Registers the font once; returns whether text can be drawn.
fn text_available() -> bool {
    static OK: OnceLock<bool> = OnceLock::new();
    *OK.get_or_init(|| match std::fs::read(FONT_PATH) {
        Ok(bytes) => {
            // plotters keeps fonts for the whole process; leaking one file
            // once is the price of its 'static API.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok()
        }
        Err(_) => false,
    })
}

/// One line of a panel.
pub struct Series {
    pub label: String,
    pub color: RGBColor,
    pub points: Vec<(f64, f64)>,
}

/// One panel: a titled x/y plot of some series.
pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_y: bool,
    /// Tick labels for categorical x positions 0, 1, ... (empty: numeric x).
    pub x_categories: Vec<String>,
    pub series: Vec<Series>,
}

/// Colour of an FTL's lines.
pub fn ftl_color(name: &str) -> RGBColor {
    match name {
        "scftl" => RGBColor(214, 39, 40),
        "async" => RGBColor(31, 119, 180),
        "sync" => RGBColor(44, 160, 44),
        "optr" => RGBColor(255, 127, 14),
        "optr-small" => RGBColor(148, 103, 189),
        _ => RGBColor(90, 90, 90),
    }
}

/// A paler shade of [`ftl_color`], for an FTL's second configuration
/// beside its default (e.g. the baselines with two write streams).
pub fn ftl_color_light(name: &str) -> RGBColor {
    let RGBColor(r, g, b) = ftl_color(name);
    let pale = |c: u8| c + (255 - c) / 2;
    RGBColor(pale(r), pale(g), pale(b))
}

/// Draws `panels` in a grid of `cols` columns into a PNG at `path`.
pub fn draw(path: &Path, title: &str, panels: &[Panel], cols: usize) -> BResult<()> {
    draw_grid(path, title, panels, cols, draw_panel)
}

/// The one PNG grid layout of every chart: a title (when a font exists)
/// over `cols` columns of 560 × 400 panels, each drawn by `one`.
fn draw_grid<P>(
    path: &Path,
    title: &str,
    panels: &[P],
    cols: usize,
    one: DrawPanel<P>,
) -> BResult<()> {
    let text = text_available();
    if !text {
        eprintln!("warning: {FONT_PATH} not found (install fonts-dejavu-core); drawing the chart without text");
    }
    let cols = cols.max(1);
    let rows = panels.len().div_ceil(cols).max(1);
    let (w, h) = (
        560 * cols as u32,
        400 * rows as u32 + if text { 40 } else { 0 },
    );
    let root = BitMapBackend::new(path, (w, h)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| format!("chart {}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let body = if text {
        root.titled(title, ("sans-serif", 22))
            .map_err(|e| err(&e))?
    } else {
        root.clone()
    };
    let areas = body.split_evenly((rows, cols));
    for (panel, area) in panels.iter().zip(areas.iter()) {
        one(area, panel, text).map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

/// Draws one panel of a grid (with or without text).
type DrawPanel<P> = fn(&Area<'_>, &P, bool) -> Result<(), Box<dyn std::error::Error>>;

fn draw_panel(area: &Area<'_>, p: &Panel, text: bool) -> Result<(), Box<dyn std::error::Error>> {
    let pts = p.series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts {
        if !x.is_finite() || !y.is_finite() || (p.log_y && y <= 0.0) {
            continue;
        }
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 1.0, 2.0);
    }
    if !p.x_categories.is_empty() {
        x0 = -0.5;
        x1 = p.x_categories.len() as f64 - 0.5;
    } else if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    if p.log_y {
        y0 = (y0 / 2.0).max(1e-9);
        y1 *= 2.0;
    } else {
        y0 = 0.0;
        y1 = if y1 > 0.0 { y1 * 1.1 } else { 1.0 };
    }
    let mut b = ChartBuilder::on(area);
    b.margin(12);
    if text {
        b.caption(&p.title, ("sans-serif", 17))
            .x_label_area_size(36)
            .y_label_area_size(64);
    }
    let cats = p.x_categories.clone();
    let fmt_x = move |x: &f64| -> String {
        if cats.is_empty() {
            format!("{x:.3}")
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string()
        } else {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < cats.len() {
                cats[i as usize].clone()
            } else {
                String::new()
            }
        }
    };
    let n_cat = p.x_categories.len();
    let fmt_y = |y: &f64| -> String {
        if y.abs() >= 100.0 || *y == y.round() {
            format!("{y:.0}")
        } else {
            format!("{y:.2}")
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string()
        }
    };
    macro_rules! body {
        ($chart:expr) => {{
            let mut chart = $chart;
            {
                let mut mesh = chart.configure_mesh();
                if text {
                    mesh.x_desc(p.x_label.as_str())
                        .y_desc(p.y_label.as_str())
                        .x_label_formatter(&fmt_x)
                        .y_label_formatter(&fmt_y)
                        .light_line_style(WHITE)
                        .label_style(("sans-serif", 13));
                    if n_cat > 0 {
                        mesh.x_labels(n_cat * 2 + 1);
                    }
                } else {
                    mesh.x_labels(0).y_labels(0);
                }
                mesh.draw()?;
            }
            for s in &p.series {
                let pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .copied()
                    .filter(|&(_, y)| y.is_finite() && (!p.log_y || y > 0.0))
                    .collect();
                let color = s.color;
                let line =
                    chart.draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))?;
                if text {
                    line.label(s.label.as_str()).legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
                    });
                }
                chart.draw_series(pts.iter().map(|&pt| Circle::new(pt, 3, color.filled())))?;
            }
            if text && !p.series.is_empty() {
                chart
                    .configure_series_labels()
                    .background_style(WHITE.mix(0.8))
                    .border_style(BLACK)
                    .label_font(("sans-serif", 12))
                    .draw()?;
            }
        }};
    }
    if p.log_y {
        body!(b.build_cartesian_2d(x0..x1, (y0..y1).log_scale())?);
    } else {
        body!(b.build_cartesian_2d(x0..x1, y0..y1)?);
    }
    Ok(())
}

/// One group of bars (one colour) across the categories of a [`BarPanel`].
pub struct BarGroup {
    pub label: String,
    pub color: RGBColor,
    /// One value per category; None leaves a gap (not measured).
    pub values: Vec<Option<f64>>,
}

/// A grouped bar chart: categories on x, one bar per group in each.
pub struct BarPanel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_y: bool,
    pub categories: Vec<String>,
    pub groups: Vec<BarGroup>,
}

/// Draws grouped bar `panels` in a grid of `cols` columns into a PNG.
pub fn draw_bars(path: &Path, title: &str, panels: &[BarPanel], cols: usize) -> BResult<()> {
    draw_grid(path, title, panels, cols, draw_bar_panel)
}

fn draw_bar_panel(
    area: &Area<'_>,
    p: &BarPanel,
    text: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let vals = p
        .groups
        .iter()
        .flat_map(|g| g.values.iter().flatten().copied())
        .filter(|v| v.is_finite() && (!p.log_y || *v > 0.0));
    let (mut y0, mut y1) = (f64::MAX, f64::MIN);
    for v in vals {
        y0 = y0.min(v);
        y1 = y1.max(v);
    }
    if y0 > y1 {
        (y0, y1) = (1.0, 2.0);
    }
    // Headroom above the tallest bar keeps the legend (upper right) clear.
    if p.log_y {
        y0 = (y0 / 2.0).max(1e-9);
        y1 *= 4.0;
    } else {
        y0 = 0.0;
        y1 = if y1 > 0.0 { y1 * 1.4 } else { 1.0 };
    }
    let n = p.categories.len().max(1);
    let (x0, x1) = (-0.5, n as f64 - 0.5);
    let mut b = ChartBuilder::on(area);
    b.margin(12);
    if text {
        b.caption(&p.title, ("sans-serif", 17))
            .x_label_area_size(36)
            .y_label_area_size(64);
    }
    let cats = p.categories.clone();
    let fmt_x = move |x: &f64| -> String {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < cats.len() {
            cats[i as usize].clone()
        } else {
            String::new()
        }
    };
    let fmt_y = |y: &f64| -> String {
        if y.abs() >= 100.0 || *y == y.round() {
            format!("{y:.0}")
        } else {
            format!("{y:.2}")
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string()
        }
    };
    let ng = p.groups.len().max(1) as f64;
    let width = 0.8 / ng;
    macro_rules! body {
        ($chart:expr) => {{
            let mut chart = $chart;
            {
                let mut mesh = chart.configure_mesh();
                mesh.disable_x_mesh();
                if text {
                    mesh.x_desc(p.x_label.as_str())
                        .y_desc(p.y_label.as_str())
                        .x_label_formatter(&fmt_x)
                        .y_label_formatter(&fmt_y)
                        .light_line_style(WHITE)
                        .label_style(("sans-serif", 13))
                        .x_labels(n * 2 + 1);
                } else {
                    mesh.x_labels(0).y_labels(0);
                }
                mesh.draw()?;
            }
            for (gi, g) in p.groups.iter().enumerate() {
                let color = g.color;
                let bars: Vec<Rectangle<(f64, f64)>> = g
                    .values
                    .iter()
                    .enumerate()
                    .filter_map(|(ci, v)| {
                        let v = (*v)?;
                        if !v.is_finite() || (p.log_y && v <= 0.0) {
                            return None;
                        }
                        let left = ci as f64 - 0.4 + gi as f64 * width;
                        Some(Rectangle::new(
                            [(left, y0), (left + width * 0.9, v)],
                            color.filled(),
                        ))
                    })
                    .collect();
                let drawn = chart.draw_series(bars)?;
                if text {
                    drawn.label(g.label.as_str()).legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                    });
                }
            }
            if text && !p.groups.is_empty() {
                chart
                    .configure_series_labels()
                    .position(SeriesLabelPosition::UpperRight)
                    .background_style(WHITE.mix(0.8))
                    .border_style(BLACK)
                    .label_font(("sans-serif", 12))
                    .draw()?;
            }
        }};
    }
    if p.log_y {
        body!(b.build_cartesian_2d(x0..x1, (y0..y1).log_scale())?);
    } else {
        body!(b.build_cartesian_2d(x0..x1, y0..y1)?);
    }
    Ok(())
}
