//! A target's range and azimuth cuts, upsampled and plotted in dB: as imaged, alone (every
//! other target's modelled response taken out) and ideal (the window's response over the
//! processed band), each in its own colour and dash, under a legend that gives each curve's
//! measured (or theoretical) IRW, PSLR and ISLR.

use plotters::prelude::*;
use tierfft::Complex32;

use super::profile::{CUT_FLOOR_DB, CUT_UPSAMPLE, cut_profile, ideal_profile};
use super::{CutCurves, Focused, Frame, Geometry, Rgb, TargetFigure, render, tick};
use crate::CliResult;

/// Size of the two-panel cut figure in pixels (width, height).
pub const CUTS_SIZE: (u32, u32) = (1400, 620);

/// Height of the text band above each panel's chart (title and legend), pixels.
const TEXT_BAND: u32 = 110;

/// Left end of a legend entry's line sample, its length and the text's start, pixels.
const LEGEND_X: (i32, i32, i32) = (16, 40, 64);

/// How a curve is drawn: 2 pixels wide, solid or dashed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stroke {
    /// Colour.
    pub colour: RGBColor,
    /// (dash, gap) lengths along the curve, pixels; `None`: solid.
    pub dash: Option<(f64, f64)>,
}

/// The cut as imaged: solid blue.
pub const IMAGED: Stroke = Stroke {
    colour: RGBColor(20, 60, 200),
    dash: None,
};

/// The cut alone: dashed orange, over the imaged curve (where they agree, blue shows between
/// the dashes).
pub const ALONE: Stroke = Stroke {
    colour: RGBColor(235, 110, 0),
    dash: Some((10.0, 6.0)),
};

/// The ideal response: dotted black.
pub const IDEAL: Stroke = Stroke {
    colour: RGBColor(0, 0, 0),
    dash: Some((3.0, 4.0)),
};

/// One curve of a panel and its legend entry.
#[derive(Clone, Debug)]
pub struct Curve {
    /// The legend's text: the curve's name and values.
    pub text: String,
    /// (bins from the peak, dB), as [`cut_profile`] gives; empty: only the text is written.
    pub points: Vec<(f64, f64)>,
    /// How it is drawn.
    pub stroke: Stroke,
}

/// One panel of a cut figure.
#[derive(Clone, Debug)]
pub struct CutPanel {
    /// The panel's title.
    pub title: String,
    /// Metres per bin along the cut, for the axis in metres.
    pub bin_m: f64,
    /// What the x axis counts: "samples" or "lines".
    pub unit: &'static str,
    /// The curves, drawn in this order (later ones on top) and listed in the legend.
    pub curves: Vec<Curve>,
}

/// The straight pieces of the polyline `points` that `dash` draws (dash and gap lengths
/// measured in pixels, `to_px` mapping a point to its pixel), in the points' coordinates;
/// solid: one piece a segment.
pub fn dashes(
    points: &[(f64, f64)],
    to_px: impl Fn((f64, f64)) -> (f64, f64),
    dash: Option<(f64, f64)>,
) -> Vec<[(f64, f64); 2]> {
    let Some((on, off)) = dash.filter(|&(on, off)| on > 0.0 && off >= 0.0) else {
        return points.windows(2).map(|w| [w[0], w[1]]).collect();
    };
    let period = on + off;
    let lerp =
        |a: (f64, f64), b: (f64, f64), t: f64| (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1));
    let mut pieces = Vec::new();
    // Where along the dash pattern the pen is, pixels in [0, period).
    let mut phase = 0.0f64;
    for w in points.windows(2) {
        let (a, b) = (to_px(w[0]), to_px(w[1]));
        let len = (b.0 - a.0).hypot(b.1 - a.1);
        if !(len > 0.0 && len.is_finite()) {
            continue;
        }
        let mut done = 0.0;
        while done < len {
            let (left, drawing) = match phase < on {
                true => (on - phase, true),
                false => (period - phase, false),
            };
            let step = left.min(len - done);
            if drawing {
                pieces.push([
                    lerp(w[0], w[1], done / len),
                    lerp(w[0], w[1], (done + step) / len),
                ]);
            }
            done += step;
            phase = (phase + step) % period;
        }
    }
    pieces
}

/// Draws `panels` side by side into an RGB image of `size` pixels: dB from [`CUT_FLOOR_DB`]
/// to 0 against bins from the peak (metres on the top axis), a dashed red −3 dB line (the
/// level that defines the IRW), each panel's curves, and above each chart its title and a
/// legend: a sample of each curve's stroke beside its text. Returns each panel's frame too.
///
/// Curves are drawn one straight piece at a time ([`dashes`]): a polyline wider than one
/// pixel is joined with mitres, which at the sharp turns of the sidelobe nulls shoot out as
/// thin spikes that are not in the data.
pub fn draw_cuts(panels: &[CutPanel], size: (u32, u32)) -> CliResult<(Rgb, Vec<Frame>)> {
    let mut frames = Vec::new();
    let rgb = render(size, |root| {
        let areas = root.split_evenly((1, panels.len().max(1)));
        for (area, panel) in areas.iter().zip(panels) {
            let (text, chart_area) = area.split_vertically(TEXT_BAND);
            text.draw(&Text::new(
                panel.title.clone(),
                (LEGEND_X.0, 8),
                ("sans-serif", 22).into_font(),
            ))?;
            for (i, curve) in panel.curves.iter().enumerate() {
                let y = 48 + 22 * i as i32;
                if !curve.points.is_empty() {
                    let sample = [
                        (LEGEND_X.0 as f64, 0.0),
                        ((LEGEND_X.0 + LEGEND_X.1) as f64, 0.0),
                    ];
                    for [a, b] in dashes(&sample, |p| p, curve.stroke.dash) {
                        let px = |p: (f64, f64)| (p.0.round() as i32, y);
                        text.draw(&PathElement::new(
                            [px(a), px(b)],
                            curve.stroke.colour.stroke_width(2),
                        ))?;
                    }
                }
                text.draw(&Text::new(
                    curve.text.clone(),
                    (LEGEND_X.2, y - 9),
                    ("sans-serif", 15).into_font(),
                ))?;
            }
            // Symmetric x axis wide enough for every curve: the peaks sit in the middle.
            let reach = panel
                .curves
                .iter()
                .flat_map(|c| &c.points)
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
            let (x_px, y_px) = chart.plotting_area().get_pixel_range();
            let frame = Frame {
                x_px,
                y_px,
                x: -reach..reach,
                y: CUT_FLOOR_DB..0.0,
            };
            for curve in &panel.curves {
                let style = curve.stroke.colour.stroke_width(2);
                let pieces = dashes(&curve.points, |p| frame.pixel(p), curve.stroke.dash);
                chart.draw_series(
                    pieces
                        .into_iter()
                        .map(|[a, b]| PathElement::new([a, b], style)),
                )?;
            }
            frames.push(frame);
        }
        Ok(())
    })?;
    Ok((rgb, frames))
}

/// A target's cut figure: its range cut (left) and azimuth cut (right) through its peak,
/// as imaged, alone and ideal, upsampled [`CUT_UPSAMPLE`] times, with the target's values.
pub fn cut_figure(
    image: &Focused,
    geometry: &Geometry,
    target: &TargetFigure,
) -> CliResult<(Rgb, Vec<Frame>)> {
    let (line, sample) = target.peak;
    let panel = |axis: &str, imaged: Vec<Complex32>, curves: &CutCurves| {
        let (bin_m, unit) = match axis {
            "range" => (geometry.range_bin_m, "samples"),
            _ => (geometry.azimuth_bin_m, "lines"),
        };
        let alone = curves.alone.as_deref().unwrap_or_default();
        let imaged = cut_profile(&imaged, CUT_UPSAMPLE);
        // The ideal over the cut as imaged (shorter than asked at an image edge).
        let span = match (imaged.first(), imaged.last()) {
            (Some(first), Some(last)) => (first.0, last.0),
            _ => (0.0, 0.0),
        };
        CutPanel {
            title: format!("{}: {axis} cut", target.title),
            bin_m,
            unit,
            curves: vec![
                Curve {
                    text: curves.imaged_text.clone(),
                    points: imaged,
                    stroke: IMAGED,
                },
                Curve {
                    text: curves.alone_text.clone(),
                    points: cut_profile(alone, CUT_UPSAMPLE),
                    stroke: ALONE,
                },
                Curve {
                    text: curves.ideal_text.clone(),
                    points: ideal_profile(&curves.ideal, span, CUT_UPSAMPLE),
                    stroke: IDEAL,
                },
            ],
        }
    };
    let (half_lines, half_samples) = target.cut_half;
    let panels = [
        panel(
            "range",
            image.range_cut(line, sample, half_samples),
            &target.range,
        ),
        panel(
            "azimuth",
            image.azimuth_cut(line, sample, half_lines),
            &target.azimuth,
        ),
    ];
    draw_cuts(&panels, CUTS_SIZE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::profile::sinc_cut;
    use tierfft_sar::quality::neighbours::AxisResponse;

    /// `points` as pixels of `frame`, densely: every segment stepped at a quarter pixel.
    fn traced(points: &[(f64, f64)], frame: &Frame) -> Vec<(f64, f64)> {
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
        traced
    }

    /// The pixels of `frame`'s plotting area that are `stroke`'s colour.
    fn stroked(rgb: &Rgb, frame: &Frame, stroke: Stroke) -> Vec<(i32, i32)> {
        let c = [stroke.colour.0, stroke.colour.1, stroke.colour.2];
        frame
            .y_px
            .clone()
            .flat_map(|y| frame.x_px.clone().map(move |x| (x, y)))
            .filter(|&(x, y)| rgb.at(x as usize, y as usize) == c)
            .collect()
    }

    /// Asserts that every pixel of `stroke`'s colour lies on `traced` (no spikes: within the
    /// 2-pixel stroke and a pixel of rounding); returns how many there are.
    fn all_on_the_curve(rgb: &Rgb, frame: &Frame, stroke: Stroke, traced: &[(f64, f64)]) -> usize {
        let pixels = stroked(rgb, frame, stroke);
        for &(x, y) in &pixels {
            let d = traced
                .iter()
                .map(|p| (p.0 - x as f64).abs().max((p.1 - y as f64).abs()))
                .fold(f64::MAX, f64::min);
            assert!(
                d <= 3.0,
                "{stroke:?} pixel ({x}, {y}) is off its data by {d}"
            );
        }
        pixels.len()
    }

    /// Share of `at` (pixel positions) with a pixel of `stroke`'s colour within `reach`
    /// pixels.
    fn covered(rgb: &Rgb, at: &[(f64, f64)], stroke: Stroke, reach: i64) -> f64 {
        let c = [stroke.colour.0, stroke.colour.1, stroke.colour.2];
        let hit = |&(x, y): &(f64, f64)| {
            (-reach..=reach).any(|dy| {
                (-reach..=reach).any(|dx| {
                    let (px, py) = (
                        (x.round() as i64 + dx) as usize,
                        (y.round() as i64 + dy) as usize,
                    );
                    px < rgb.width && py < rgb.height && rgb.at(px, py) == c
                })
            })
        };
        at.iter().filter(|p| hit(p)).count() as f64 / at.len().max(1) as f64
    }

    /// Every pixel of the curve's colour lies on the curve, and the curve is drawn along its
    /// whole length.
    #[test]
    fn the_drawn_curve_is_the_data() {
        // A sinc's deep nulls are where mitred joins used to shoot out spikes.
        let points = cut_profile(&sinc_cut(49, 24.3), CUT_UPSAMPLE);
        let panel = |title: &str| CutPanel {
            title: title.into(),
            bin_m: 1.25,
            unit: "samples",
            curves: vec![Curve {
                text: "as imaged: IRW 0.886, PSLR -13.26 dB, ISLR -9.68 dB".into(),
                points: points.clone(),
                stroke: IMAGED,
            }],
        };
        let (rgb, frames) =
            draw_cuts(&[panel("range"), panel("azimuth")], CUTS_SIZE).expect("drawn");
        assert_eq!(
            (rgb.width, rgb.height),
            (CUTS_SIZE.0 as usize, CUTS_SIZE.1 as usize)
        );
        for frame in &frames {
            let traced = traced(&points, frame);
            let drawn = all_on_the_curve(&rgb, frame, IMAGED, &traced);
            assert!(drawn > 500, "{drawn} curve pixels");
            // The other way: every data point has a curve pixel within reach.
            let at: Vec<(f64, f64)> = points.iter().map(|&p| frame.pixel(p)).collect();
            assert_eq!(covered(&rgb, &at, IMAGED, 2), 1.0);
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

    /// Three curves, each in its own colour on its own data, the dashed ones with gaps, and
    /// a legend entry of each colour above the chart.
    #[test]
    fn imaged_alone_and_ideal_are_told_apart() {
        // As imaged: a neighbour's sidelobes 8 bins off; alone: the sinc; ideal: Hamming.
        let mut imaged = sinc_cut(65, 32.3);
        for (z, n) in imaged.iter_mut().zip(sinc_cut(65, 40.5)) {
            *z += n * 0.3;
        }
        let hamming = AxisResponse {
            window: tierfft_sar::filters::window::Window::Hamming,
            samples_per_unit: 1.2,
            carrier: 0.0,
        };
        let curves = [
            (cut_profile(&imaged, CUT_UPSAMPLE), IMAGED),
            (cut_profile(&sinc_cut(65, 32.3), CUT_UPSAMPLE), ALONE),
            (ideal_profile(&hamming, (-32.3, 32.7), CUT_UPSAMPLE), IDEAL),
        ];
        let panel = CutPanel {
            title: "range cut".into(),
            bin_m: 1.25,
            unit: "samples",
            curves: curves
                .iter()
                .map(|(points, stroke)| Curve {
                    text: format!("{stroke:?}"),
                    points: points.clone(),
                    stroke: *stroke,
                })
                .collect(),
        };
        let (rgb, frames) = draw_cuts(&[panel], CUTS_SIZE).expect("drawn");
        let frame = &frames[0];
        for (points, stroke) in &curves {
            let traced = traced(points, frame);
            let drawn = all_on_the_curve(&rgb, frame, *stroke, &traced);
            let share = covered(&rgb, &traced, *stroke, 1);
            match stroke.dash {
                // Under the others in places, but mostly seen.
                None => assert!(share > 0.7 && drawn > 500, "{share} {drawn}"),
                // Dashes and gaps.
                Some(_) => assert!(
                    share > 0.25 && share < 0.9 && drawn > 150,
                    "{stroke:?}: {share} {drawn}"
                ),
            }
            // Its legend sample, above the chart.
            let c = [stroke.colour.0, stroke.colour.1, stroke.colour.2];
            let legend = (40..frame.y_px.start as usize - 50)
                .flat_map(|y| (0..100).map(move |x| (x, y)))
                .filter(|&(x, y)| rgb.at(x, y) == c)
                .count();
            assert!(legend >= 12, "{stroke:?}: {legend} legend pixels");
        }
    }

    #[test]
    fn dashes_follow_the_pattern_along_the_line() {
        // 100 pixels in two segments, 10 on and 6 off: 6 periods and 4 pixels, 64 drawn.
        let line = [(0.0, 0.0), (30.0, 0.0), (100.0, 0.0)];
        let pieces = dashes(&line, |p| p, Some((10.0, 6.0)));
        let drawn: f64 = pieces.iter().map(|[a, b]| b.0 - a.0).sum();
        assert!((drawn - 64.0).abs() < 1e-9, "{drawn}");
        // The dash across the joint (pixels 16 .. 26 and 32 .. 42 lie in one segment each).
        assert_eq!(pieces[1], [(16.0, 0.0), (26.0, 0.0)]);
        assert_eq!(pieces.len(), 7);
        // Lengths are measured in pixels: halving the scale doubles the dashes' data length.
        let half = dashes(&line, |p| (p.0 / 2.0, p.1), Some((10.0, 6.0)));
        assert_eq!(half[0], [(0.0, 0.0), (20.0, 0.0)]);
        assert_eq!(
            dashes(&line, |p| p, None),
            [[line[0], line[1]], [line[1], line[2]]]
        );
    }

    /// A target's figure: a target alone is drawn where it was modelled, and only its text
    /// where it was not.
    #[test]
    fn a_target_figure_draws_alone_only_where_modelled() {
        let (lines, samples) = (80, 90);
        let data: Vec<Complex32> = (0..lines)
            .flat_map(|l| {
                let row = sinc_cut(samples, 45.2);
                let a = sinc_cut(lines, 40.1)[l].re;
                row.into_iter().map(move |z| z * a)
            })
            .collect();
        let image = Focused::new(&data, lines, samples).expect("shape");
        let geometry = Geometry {
            range_bin_m: 1.25,
            azimuth_bin_m: 0.7,
            near_range_m: 19000.0,
            centre_line: 40.0,
        };
        let curves = |alone: Option<Vec<Complex32>>| CutCurves {
            imaged_text: "as imaged".into(),
            alone,
            alone_text: "alone".into(),
            ideal: AxisResponse {
                window: tierfft_sar::filters::window::Window::None,
                samples_per_unit: 1.0,
                carrier: 0.0,
            },
            ideal_text: "ideal".into(),
        };
        let mut target = TargetFigure {
            index: 1,
            title: "target 1".into(),
            peak: (40, 45),
            expected: (40.1, 45.2),
            cut_half: (20, 20),
            range: curves(Some(image.range_cut(40, 45, 20))),
            azimuth: curves(Some(image.azimuth_cut(40, 45, 20))),
        };
        let (rgb, frames) = cut_figure(&image, &geometry, &target).expect("drawn");
        assert_eq!(frames.len(), 2);
        for frame in &frames {
            assert!(stroked(&rgb, frame, ALONE).len() > 150);
            assert!(stroked(&rgb, frame, IMAGED).len() > 150);
        }
        target.range.alone = None;
        let (rgb, frames) = cut_figure(&image, &geometry, &target).expect("drawn");
        assert!(stroked(&rgb, &frames[0], ALONE).is_empty());
        assert!(stroked(&rgb, &frames[1], ALONE).len() > 150);
    }
}
