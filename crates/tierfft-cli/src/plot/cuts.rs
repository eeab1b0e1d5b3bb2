//! A target's range and azimuth cuts, upsampled and plotted in dB with the measured values
//! written above each panel.

use plotters::prelude::*;
use tierfft::Complex32;
use tierfft_sar::metrics::upsample;

use super::{Focused, Frame, Geometry, Rgb, TargetFigure, render, tick};
use crate::CliResult;

/// Upsampling of a cut before plotting: 16 points per bin draw the mainlobe and the sidelobe
/// nulls smoothly.
pub const CUT_UPSAMPLE: usize = 16;

/// Lowest level on a cut plot's axis, dB below the cut's peak.
pub const CUT_FLOOR_DB: f64 = -60.0;

/// Size of the two-panel cut figure in pixels (width, height).
pub const CUTS_SIZE: (u32, u32) = (1400, 620);

/// Height of the text band above each panel's chart (title and measured values), pixels.
const TEXT_BAND: u32 = 110;

/// Colour of the cut's curve.
pub const CURVE: RGBColor = RGBColor(20, 60, 200);

/// A cut's power in dB relative to its own peak, against bins from that peak, upsampled
/// `factor` times (FFT interpolation). Only the part between the first and last input sample
/// is kept: past it the interpolation wraps around. Levels are floored at
/// [`CUT_FLOOR_DB`] (nulls would be −∞).
pub fn cut_profile(cut: &[Complex32], factor: usize) -> Vec<(f64, f64)> {
    if cut.is_empty() {
        return Vec::new();
    }
    let factor = factor.max(1);
    let up = upsample(cut, factor);
    let up = &up[..((cut.len() - 1) * factor + 1).min(up.len())];
    let power: Vec<f64> = up.iter().map(|z| f64::from(z.norm_sqr())).collect();
    let (at, max) =
        power.iter().copied().enumerate().fold(
            (0, 0.0f64),
            |best, (i, p)| if p > best.1 { (i, p) } else { best },
        );
    let max = max.max(f64::MIN_POSITIVE);
    power
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            let x = (i as f64 - at as f64) / factor as f64;
            let db = 10.0 * (p / max).max(f64::MIN_POSITIVE).log10();
            (x, db.max(CUT_FLOOR_DB))
        })
        .collect()
}

/// One panel of a cut figure.
#[derive(Clone, Debug)]
pub struct CutPanel {
    /// The panel's title.
    pub title: String,
    /// The curve, from [`cut_profile`]: (bins from the peak, dB).
    pub points: Vec<(f64, f64)>,
    /// Metres per bin along the cut, for the axis in metres.
    pub bin_m: f64,
    /// What the x axis counts: "samples" or "lines".
    pub unit: &'static str,
    /// Lines of text above the chart: the measured values.
    pub labels: Vec<String>,
}

/// Draws `panels` side by side into an RGB image of `size` pixels: dB from [`CUT_FLOOR_DB`]
/// to 0 against bins from the peak (metres on the top axis), a dashed −3 dB line (the level
/// that defines the IRW), the labels above. Returns each panel's frame too.
///
/// The curve is drawn one segment at a time: a polyline wider than one pixel is joined with
/// mitres, which at the sharp turns of the sidelobe nulls shoot out as thin spikes that are
/// not in the data.
pub fn draw_cuts(panels: &[CutPanel], size: (u32, u32)) -> CliResult<(Rgb, Vec<Frame>)> {
    let mut frames = Vec::new();
    let rgb = render(size, |root| {
        let areas = root.split_evenly((1, panels.len().max(1)));
        for (area, panel) in areas.iter().zip(panels) {
            let (text, chart_area) = area.split_vertically(TEXT_BAND);
            text.draw(&Text::new(
                panel.title.clone(),
                (70, 8),
                ("sans-serif", 22).into_font(),
            ))?;
            for (i, label) in panel.labels.iter().enumerate() {
                text.draw(&Text::new(
                    label.clone(),
                    (70, 40 + 22 * i as i32),
                    ("sans-serif", 16).into_font(),
                ))?;
            }
            // Symmetric x axis wide enough for the whole cut: the peak sits in the middle.
            let reach = panel
                .points
                .iter()
                .map(|p| p.0.abs())
                .fold(1.0f64, f64::max)
                .ceil();
            let mut chart = ChartBuilder::on(&chart_area)
                .margin(12)
                .x_label_area_size(45)
                .top_x_label_area_size(45)
                .y_label_area_size(55)
                .build_cartesian_2d(-reach..reach, CUT_FLOOR_DB..0.0)?
                .set_secondary_coord(-reach * panel.bin_m..reach * panel.bin_m, CUT_FLOOR_DB..0.0);
            chart
                .configure_mesh()
                .x_desc(format!("{} from the peak", panel.unit))
                .y_desc("dB")
                .x_label_formatter(&tick)
                .y_label_formatter(&tick)
                .label_style(("sans-serif", 15))
                .axis_desc_style(("sans-serif", 17))
                .draw()?;
            chart
                .configure_secondary_axes()
                .x_desc("m from the peak")
                .x_label_formatter(&tick)
                .label_style(("sans-serif", 15))
                .axis_desc_style(("sans-serif", 17))
                .draw()?;
            chart.draw_series(DashedLineSeries::new(
                [(-reach, -3.0), (reach, -3.0)],
                8,
                6,
                RED.stroke_width(1),
            ))?;
            chart.draw_series(
                panel
                    .points
                    .windows(2)
                    .map(|w| PathElement::new([w[0], w[1]], CURVE.stroke_width(2))),
            )?;
            let (x_px, y_px) = chart.plotting_area().get_pixel_range();
            frames.push(Frame {
                x_px,
                y_px,
                x: -reach..reach,
                y: CUT_FLOOR_DB..0.0,
            });
        }
        Ok(())
    })?;
    Ok((rgb, frames))
}

/// A target's cut figure: its range cut (left) and azimuth cut (right) through its peak,
/// upsampled [`CUT_UPSAMPLE`] times, with the target's labels.
pub fn cut_figure(
    image: &Focused,
    geometry: &Geometry,
    target: &TargetFigure,
) -> CliResult<(Rgb, Vec<Frame>)> {
    let (line, sample) = target.peak;
    let panels = [
        CutPanel {
            title: format!("{}: range cut", target.title),
            points: cut_profile(
                &image.range_cut(line, sample, target.cut_half.1),
                CUT_UPSAMPLE,
            ),
            bin_m: geometry.range_bin_m,
            unit: "samples",
            labels: target.labels.0.clone(),
        },
        CutPanel {
            title: format!("{}: azimuth cut", target.title),
            points: cut_profile(
                &image.azimuth_cut(line, sample, target.cut_half.0),
                CUT_UPSAMPLE,
            ),
            bin_m: geometry.azimuth_bin_m,
            unit: "lines",
            labels: target.labels.1.clone(),
        },
    ];
    draw_cuts(&panels, CUTS_SIZE)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples of sinc(t − t0) at t = 0..n: the response of an unweighted band-limited
    /// system, whose 3 dB width is 0.886 bins.
    fn sinc_cut(n: usize, t0: f64) -> Vec<Complex32> {
        (0..n)
            .map(|t| {
                let x = std::f64::consts::PI * (t as f64 - t0);
                let v = if x == 0.0 { 1.0 } else { x.sin() / x };
                Complex32::new(v as f32, 0.0)
            })
            .collect()
    }

    #[test]
    fn a_cut_profile_peaks_at_zero_db_and_zero_bins() {
        let profile = cut_profile(&sinc_cut(33, 16.25), CUT_UPSAMPLE);
        assert_eq!(profile.len(), 32 * CUT_UPSAMPLE + 1);
        let peak =
            profile.iter().copied().fold(
                (0.0, f64::NEG_INFINITY),
                |b, p| if p.1 > b.1 { p } else { b },
            );
        assert_eq!(peak, (0.0, 0.0));
        // The peak lies on the 1/16-bin grid nearest 16.25: x runs −16.25 .. 15.75.
        assert!((profile[0].0 + 16.25).abs() < 1e-12, "{:?}", profile[0]);
        // Half power within a grid step of ±0.443 bins.
        let above: Vec<f64> = profile
            .iter()
            .filter(|p| p.1 >= -3.01)
            .map(|p| p.0)
            .collect();
        let width = above.last().expect("peak") - above[0];
        assert!((width - 0.886).abs() <= 2.0 / 16.0, "{width}");
        assert!(profile.iter().all(|p| p.1 >= CUT_FLOOR_DB && p.1 <= 0.0));
        assert!(cut_profile(&[], 16).is_empty());
        assert_eq!(cut_profile(&[Complex32::new(1.0, 0.0)], 16), [(0.0, 0.0)]);
    }

    /// Every pixel of the curve's colour lies on the curve (no spikes, within the 2-pixel
    /// stroke and a pixel of rounding), and the curve is drawn along its whole length.
    #[test]
    fn the_drawn_curve_is_the_data() {
        // A sinc's deep nulls are where mitred joins used to shoot out spikes.
        let points = cut_profile(&sinc_cut(49, 24.3), CUT_UPSAMPLE);
        let panel = |title: &str| CutPanel {
            title: title.into(),
            points: points.clone(),
            bin_m: 1.25,
            unit: "samples",
            labels: vec!["as imaged: IRW 0.886, PSLR -13.26 dB, ISLR -9.68 dB".into()],
        };
        let (rgb, frames) =
            draw_cuts(&[panel("range"), panel("azimuth")], CUTS_SIZE).expect("drawn");
        assert_eq!(
            (rgb.width, rgb.height),
            (CUTS_SIZE.0 as usize, CUTS_SIZE.1 as usize)
        );
        let curve = [CURVE.0, CURVE.1, CURVE.2];
        for frame in &frames {
            // The curve in pixels, densely: every segment stepped at a quarter pixel.
            let mut traced = Vec::new();
            for w in points.windows(2) {
                let (a, b) = (frame.pixel(w[0]), frame.pixel(w[1]));
                let steps = ((b.0 - a.0).abs().max((b.1 - a.1).abs()) * 4.0)
                    .ceil()
                    .max(1.0);
                for i in 0..=steps as usize {
                    let t = i as f64 / steps;
                    traced.push((a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1)));
                }
            }
            let near_curve = |x: f64, y: f64, tol: f64| {
                traced
                    .iter()
                    .any(|p| (p.0 - x).abs() <= tol && (p.1 - y).abs() <= tol)
            };
            let mut drawn = 0;
            for y in frame.y_px.clone() {
                for x in frame.x_px.clone() {
                    if rgb.at(x as usize, y as usize) == curve {
                        drawn += 1;
                        // Distance to the curve, for the message.
                        let d = traced
                            .iter()
                            .map(|p| (p.0 - x as f64).abs().max((p.1 - y as f64).abs()))
                            .fold(f64::MAX, f64::min);
                        assert!(
                            near_curve(x as f64, y as f64, 3.0),
                            "curve pixel ({x}, {y}) is off the data by {d}"
                        );
                    }
                }
            }
            // The other way: every data point has a curve pixel within reach.
            for &p in &points {
                let (x, y) = frame.pixel(p);
                let hit = (-2..=2).any(|dy| {
                    (-2..=2).any(|dx| {
                        let (px, py) = (
                            (x.round() as i64 + dx) as usize,
                            (y.round() as i64 + dy) as usize,
                        );
                        px < rgb.width && py < rgb.height && rgb.at(px, py) == curve
                    })
                });
                assert!(
                    hit,
                    "no curve drawn at data point {p:?} (pixel {x:.1}, {y:.1})"
                );
            }
            assert!(drawn > 500, "{drawn} curve pixels");
        }
        // The text band: dark glyph pixels above the charts.
        let top = frames[0].y_px.start as usize - 60;
        let dark = (0..top)
            .flat_map(|y| (0..rgb.width).map(move |x| (x, y)))
            .filter(|&(x, y)| rgb.at(x, y).iter().all(|&c| c < 100))
            .count();
        assert!(dark > 500, "titles and values are written: {dark}");
        assert!(
            rgb.pixels.chunks(3).any(|p| p == [255, 0, 0]),
            "the −3 dB line is drawn"
        );
    }
}
