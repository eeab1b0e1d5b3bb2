//! Pictures of the focused image with axes: the overview of the targets and a crop around
//! each. Range runs left to right (sample index below, slant range in metres above), azimuth
//! top to bottom in pulse order (line index left, metres from the scene centre right), in dB
//! of the image's peak on a colour bar, so that crops of different targets compare.
//!
//! Between samples the picture is interpolated (FFT, that is band-limited sinc, interpolation
//! of the complex image), not pixel-repeated: a repeat zoom shows the mainlobe as blocks and
//! the 1.2× range oversampling as a beat.

use std::ops::Range;

use plotters::prelude::*;
use rayon::prelude::*;
use tierfft::Complex32;
use tierfft_sar::quality::metrics::upsample;

use super::scale::{Scale, draw_colour_bar};
use super::{Focused, Frame, Geometry, Rgb, TargetFigure, render, tick, window};
use crate::CliResult;

/// Half-size of a target's crop, lines and samples: with ±32, neighbours at the reference
/// scene's target spacing (50 lines, 60 samples) stay outside the crop, and several
/// sidelobes show.
pub const CROP_HALF: usize = 32;

/// Interpolation of a crop: points per line and per sample.
pub const CROP_UPSAMPLE: usize = 8;

/// Samples read beyond each side of a picture before interpolating and dropped after: FFT
/// interpolation treats the window as periodic, and its wrap-around stays in this margin.
const MARGIN: usize = 8;

/// Size of a crop figure, pixels.
pub const CROP_SIZE: (u32, u32) = (900, 780);

/// Size of the overview figure, pixels.
pub const OVERVIEW_SIZE: (u32, u32) = (1200, 1000);

/// Largest picture the overview interpolates, values per axis; larger regions are reduced by
/// taking each block's strongest value (a target never vanishes between pixels).
const OVERVIEW_CELLS: usize = 1024;

/// Colour of the marks: where a target was placed.
pub const MARK: RGBColor = RGBColor(255, 40, 40);

/// Height of the band above a picture that holds its title and subtitle, pixels.
const TEXT_BAND: u32 = 70;

/// Width of the colour bar and its labels at the right of a picture, pixels.
pub(crate) const BAR_AREA: u32 = 130;

/// Blank border of a picture's chart, pixels.
const CHART_MARGIN: u32 = 10;

/// Heights of the axis areas below and above a picture (bins, metres), pixels.
const X_AXES: (u32, u32) = (50, 60);

/// Widths of the axis areas left and right of a picture (lines, metres), pixels.
const Y_AXES: (u32, u32) = (80, 80);

/// The figure size whose picture ([`draw_raster`]'s plotting area) is `plot` = (width,
/// height) pixels.
pub fn figure_size(plot: (u32, u32)) -> (u32, u32) {
    (
        plot.0 + 2 * CHART_MARGIN + Y_AXES.0 + Y_AXES.1 + BAR_AREA,
        plot.1 + TEXT_BAND + 2 * CHART_MARGIN + X_AXES.0 + X_AXES.1,
    )
}

/// dB of part of the image: `rows × cols` values, row 0 at the top (the lowest line).
#[derive(Clone, Debug)]
pub struct Raster {
    /// Row-major values, dB of the image's peak.
    pub db: Vec<f32>,
    /// Rows (along azimuth).
    pub rows: usize,
    /// Columns (along range).
    pub cols: usize,
    /// Lines covered, edge to edge (line `l` is centred at `l`).
    pub lines: Range<f64>,
    /// Samples covered, edge to edge.
    pub samples: Range<f64>,
    /// Drawn bilinear between cell centres (values at points: interpolated pictures), or
    /// each value filling its cell (values of blocks: pictures reduced by blocks).
    pub smooth: bool,
}

impl Raster {
    /// dB at image position (line, sample): [`Raster::at`] where smooth, else the value of
    /// the cell that holds it.
    pub fn shown(&self, line: f64, sample: f64) -> f32 {
        if self.smooth {
            return self.at(line, sample);
        }
        let cell = |v: f64, range: &Range<f64>, n: usize| {
            let f = (v - range.start) / (range.end - range.start) * n as f64;
            (f.max(0.0) as usize).min(n - 1)
        };
        let r = cell(line, &self.lines, self.rows);
        self.db[r * self.cols + cell(sample, &self.samples, self.cols)]
    }

    /// dB at image position (line, sample), bilinear between the raster's cell centres.
    pub fn at(&self, line: f64, sample: f64) -> f32 {
        let r = (line - self.lines.start) / (self.lines.end - self.lines.start) * self.rows as f64
            - 0.5;
        let c = (sample - self.samples.start) / (self.samples.end - self.samples.start)
            * self.cols as f64
            - 0.5;
        let clamp = |v: f64, n: usize| v.clamp(0.0, (n - 1) as f64);
        let (r, c) = (clamp(r, self.rows), clamp(c, self.cols));
        let (r0, c0) = (r.floor() as usize, c.floor() as usize);
        let (r1, c1) = ((r0 + 1).min(self.rows - 1), (c0 + 1).min(self.cols - 1));
        let (fr, fc) = ((r - r0 as f64) as f32, (c - c0 as f64) as f32);
        let v = |r: usize, c: usize| self.db[r * self.cols + c];
        let top = v(r0, c0) * (1.0 - fc) + v(r0, c1) * fc;
        let bottom = v(r1, c0) * (1.0 - fc) + v(r1, c1) * fc;
        top * (1.0 - fr) + bottom * fr
    }
}

/// dB of the image's `lines × samples` interpolated `factor` = (per line, per sample) times.
pub fn interpolated(
    image: &Focused,
    lines: Range<usize>,
    samples: Range<usize>,
    factor: (usize, usize),
) -> Raster {
    let (fl, fs) = (factor.0.max(1), factor.1.max(1));
    let read_lines = lines.start.saturating_sub(MARGIN)..(lines.end + MARGIN).min(image.lines);
    let read_samples =
        samples.start.saturating_sub(MARGIN)..(samples.end + MARGIN).min(image.samples);
    // Along range first, then along azimuth.
    let rows: Vec<Vec<_>> = read_lines
        .clone()
        .map(|l| {
            let row = &image.data[l * image.samples..][read_samples.clone()];
            upsample(row, fs)
        })
        .collect();
    let width = read_samples.len() * fs;
    let columns: Vec<Vec<_>> = (0..width)
        .map(|j| upsample(&rows.iter().map(|r| r[j]).collect::<Vec<_>>(), fl))
        .collect();
    let keep_rows =
        (lines.start - read_lines.start) * fl..((lines.end - 1 - read_lines.start) * fl + 1);
    let keep_cols = (samples.start - read_samples.start) * fs
        ..((samples.end - 1 - read_samples.start) * fs + 1);
    let mut db = Vec::with_capacity(keep_rows.len() * keep_cols.len());
    for i in keep_rows.clone() {
        db.extend(
            keep_cols
                .clone()
                .map(|j| 20.0 * (columns[j][i].norm() / image.peak).max(1e-10).log10()),
        );
    }
    let half = (0.5 / fl as f64, 0.5 / fs as f64);
    Raster {
        db,
        rows: keep_rows.len(),
        cols: keep_cols.len(),
        lines: lines.start as f64 - half.0..(lines.end - 1) as f64 + half.0,
        samples: samples.start as f64 - half.1..(samples.end - 1) as f64 + half.1,
        smooth: true,
    }
}

/// dB of the image's `lines × samples` reduced to at most `max_cells` per axis, each cell
/// the strongest value of its block.
pub fn reduced(
    image: &Focused,
    lines: Range<usize>,
    samples: Range<usize>,
    max_cells: usize,
) -> Raster {
    let block = (
        lines.len().div_ceil(max_cells).max(1),
        samples.len().div_ceil(max_cells).max(1),
    );
    let (rows, cols) = (
        lines.len().div_ceil(block.0),
        samples.len().div_ceil(block.1),
    );
    // A row of cells per task: the whole of a 16384² image is 2^28 samples. Powers in f64
    // (no overflow), the square root once per cell.
    let power = |z: &Complex32| f64::from(z.re).powi(2) + f64::from(z.im).powi(2);
    let mut peak = vec![0.0f32; rows * cols];
    peak.par_chunks_mut(cols)
        .enumerate()
        .for_each(|(row, out)| {
            let first = lines.start + row * block.0;
            let mut strongest = vec![0.0f64; cols];
            for l in first..(first + block.0).min(lines.end) {
                let line = &image.data[l * image.samples..][samples.clone()];
                for (cell, values) in strongest.iter_mut().zip(line.chunks(block.1)) {
                    *cell = values.iter().map(power).fold(*cell, f64::max);
                }
            }
            for (o, p) in out.iter_mut().zip(strongest) {
                *o = p.sqrt() as f32;
            }
        });
    Raster {
        db: peak
            .iter()
            .map(|a| 20.0 * (a / image.peak).max(1e-10).log10())
            .collect(),
        rows,
        cols,
        lines: lines.start as f64 - 0.5..(lines.start + rows * block.0) as f64 - 0.5,
        samples: samples.start as f64 - 0.5..(samples.start + cols * block.1) as f64 - 0.5,
        smooth: true,
    }
}

/// Something drawn over a picture, at image position (line, sample).
#[derive(Clone, Debug)]
pub enum Mark {
    /// A cross with a gap in the middle (the peak under it stays visible).
    Cross((f64, f64)),
    /// A ring with a label beside it.
    Ring((f64, f64), String),
}

/// Draws `raster` with axes, `scale`'s colours and bar, `title` and `subtitle`, and `marks`;
/// returns the picture's frame too (x: samples, y: −lines).
pub fn draw_raster(
    (title, subtitle): (&str, &str),
    raster: &Raster,
    scale: &Scale,
    geometry: &Geometry,
    marks: &[Mark],
    size: (u32, u32),
) -> CliResult<(Rgb, Frame)> {
    let mut frame = None;
    let rgb = render(size, |root| {
        let (text, picture) = root.split_vertically(TEXT_BAND);
        text.draw(&Text::new(
            title.to_string(),
            (90, 10),
            ("sans-serif", 22).into_font(),
        ))?;
        text.draw(&Text::new(
            subtitle.to_string(),
            (90, 42),
            ("sans-serif", 16).into_font(),
        ))?;
        let (main, _) = picture.split_horizontally(size.0 - BAR_AREA);
        let (l, s) = (&raster.lines, &raster.samples);
        // y is −line: line numbers grow downwards, in pulse order.
        let mut chart = ChartBuilder::on(&main)
            .margin(CHART_MARGIN)
            .x_label_area_size(X_AXES.0)
            .top_x_label_area_size(X_AXES.1)
            .y_label_area_size(Y_AXES.0)
            .right_y_label_area_size(Y_AXES.1)
            .build_cartesian_2d(s.start..s.end, -l.end..-l.start)?
            .set_secondary_coord(
                geometry.range_m(s.start)..geometry.range_m(s.end),
                -geometry.azimuth_m(l.end)..-geometry.azimuth_m(l.start),
            );
        let negated = |v: &f64| tick(&-v);
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc("range sample")
            .y_desc("azimuth line")
            .x_label_formatter(&tick)
            .y_label_formatter(&negated)
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 17))
            .draw()?;
        chart
            .configure_secondary_axes()
            .x_desc("slant range (m)")
            .y_desc("azimuth (m from the scene centre)")
            .x_label_formatter(&tick)
            .y_label_formatter(&negated)
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 17))
            .draw()?;
        // The picture, pixel by pixel: each pixel's centre looked up in the raster, the rows'
        // colours on every core (image.png has millions of pixels), then drawn.
        let (xs, ys) = chart.plotting_area().get_pixel_range();
        let rows: Vec<Vec<RGBColor>> = ys
            .clone()
            .into_par_iter()
            .map(|py| {
                let line =
                    l.start + ((py - ys.start) as f64 + 0.5) / ys.len() as f64 * (l.end - l.start);
                xs.clone()
                    .map(|px| {
                        let sample = s.start
                            + ((px - xs.start) as f64 + 0.5) / xs.len() as f64 * (s.end - s.start);
                        scale.colour(raster.shown(line, sample))
                    })
                    .collect()
            })
            .collect();
        for (py, row) in ys.clone().zip(&rows) {
            for (px, colour) in xs.clone().zip(row) {
                root.draw_pixel((px, py), colour)?;
            }
        }
        for mark in marks {
            let pixel = |(line, sample): (f64, f64)| chart.backend_coord(&(sample, -line));
            match mark {
                Mark::Cross(at) => {
                    let (x, y) = pixel(*at);
                    let style = MARK.stroke_width(2);
                    for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                        let arm = [(x + dx * 12, y + dy * 12), (x + dx * 34, y + dy * 34)];
                        root.draw(&PathElement::new(arm, style))?;
                    }
                }
                Mark::Ring(at, label) => {
                    let (x, y) = pixel(*at);
                    root.draw(&Circle::new((x, y), 16, MARK.stroke_width(2)))?;
                    root.draw(&Text::new(
                        label.clone(),
                        (x + 18, y - 30),
                        ("sans-serif", 20).into_font().color(&MARK),
                    ))?;
                }
            }
        }
        draw_colour_bar(root, (size.0 - BAR_AREA) as i32 + 20, ys.clone(), scale)?;
        frame = Some(Frame {
            x_px: xs,
            y_px: ys,
            x: s.clone(),
            y: -l.end..-l.start,
        });
        Ok(())
    })?;
    let frame = frame.ok_or("the picture was not drawn")?;
    Ok((rgb, frame))
}

/// Lines and samples the overview shows: every placed target (line, sample) with room around
/// it (a quarter of their spread, at least 64 bins), or the whole image when none is placed.
pub fn overview_region(image: &Focused, placed: &[(f64, f64)]) -> (Range<usize>, Range<usize>) {
    if placed.is_empty() {
        return (0..image.lines, 0..image.samples);
    }
    let span = |pick: fn(&(f64, f64)) -> f64, len: usize| {
        let lo = placed.iter().map(pick).fold(f64::INFINITY, f64::min);
        let hi = placed.iter().map(pick).fold(f64::NEG_INFINITY, f64::max);
        let margin = ((hi - lo) / 4.0).max(64.0);
        let start = (lo - margin).floor().max(0.0) as usize;
        let end = ((hi + margin).ceil() as usize + 1).min(len);
        start.min(end.saturating_sub(1))..end
    };
    (span(|p| p.0, image.lines), span(|p| p.1, image.samples))
}

/// The overview: the region around the targets ([`overview_region`]), interpolated up to
/// about a pixel a value (or reduced by block peaks when larger), each target ringed and
/// numbered.
pub fn overview_figure(
    image: &Focused,
    geometry: &Geometry,
    placed: &[(f64, f64)],
) -> CliResult<(Rgb, Frame)> {
    let (lines, samples) = overview_region(image, placed);
    let raster = if lines.len().max(samples.len()) <= OVERVIEW_CELLS {
        // Up to 8 points per bin, and no more than the figure shows.
        let factor = |len: usize| (OVERVIEW_CELLS / len.max(1)).clamp(1, 8);
        let f = (factor(lines.len()), factor(samples.len()));
        interpolated(image, lines.clone(), samples.clone(), f)
    } else {
        reduced(image, lines.clone(), samples.clone(), OVERVIEW_CELLS)
    };
    let marks: Vec<Mark> = placed
        .iter()
        .enumerate()
        .map(|(i, &p)| Mark::Ring(p, (i + 1).to_string()))
        .collect();
    let whole = lines.len() == image.lines && samples.len() == image.samples;
    let title = if whole {
        format!(
            "focused image, {} lines × {} samples",
            image.lines, image.samples
        )
    } else {
        format!(
            "focused image around the targets: lines {}..{}, samples {}..{} of {} × {}",
            lines.start,
            lines.end - 1,
            samples.start,
            samples.end - 1,
            image.lines,
            image.samples
        )
    };
    draw_raster(
        (
            &title,
            "dB of the image's peak; azimuth downwards in pulse order, range to the right (far range right)",
        ),
        &raster,
        &Scale::fixed("dB of the image's peak"),
        geometry,
        &marks,
        OVERVIEW_SIZE,
    )
}

/// A target's crop: ±[`CROP_HALF`] lines and samples around its peak, interpolated
/// [`CROP_UPSAMPLE`] times, with a cross where it was placed.
pub fn crop_figure(
    image: &Focused,
    geometry: &Geometry,
    target: &TargetFigure,
) -> CliResult<(Rgb, Frame)> {
    let (line, sample) = target.peak;
    let lines = window(line, CROP_HALF, image.lines);
    let samples = window(sample, CROP_HALF, image.samples);
    let raster = interpolated(image, lines, samples, (CROP_UPSAMPLE, CROP_UPSAMPLE));
    draw_raster(
        (
            &target.title,
            "dB of the image's peak, interpolated 8×; red cross: where the target was placed",
        ),
        &raster,
        &Scale::fixed("dB of the image's peak"),
        geometry,
        &[Mark::Cross(target.expected)],
        CROP_SIZE,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tierfft::Complex32;

    /// A `lines × samples` image of 2-D sincs centred at `points` ((line, sample), amplitude).
    fn sincs(lines: usize, samples: usize, points: &[((f64, f64), f32)]) -> Vec<Complex32> {
        let sinc = |x: f64| {
            let x = std::f64::consts::PI * x;
            if x == 0.0 { 1.0 } else { x.sin() / x }
        };
        let mut data = vec![Complex32::new(0.0, 0.0); lines * samples];
        for &((l0, s0), a) in points {
            for l in 0..lines {
                for s in 0..samples {
                    let v = a as f64 * sinc(l as f64 - l0) * sinc(s as f64 - s0);
                    data[l * samples + s] += Complex32::new(v as f32, 0.0);
                }
            }
        }
        data
    }

    #[test]
    fn interpolation_keeps_the_samples_and_fills_between_them() {
        let data = sincs(64, 80, &[((30.0, 40.25), 1.0)]);
        let img = Focused::new(&data, 64, 80).expect("shape");
        let r = interpolated(&img, 20..41, 30..51, (4, 4));
        assert_eq!((r.rows, r.cols), (81, 81));
        assert!((r.lines.start - (20.0 - 0.125)).abs() < 1e-12);
        // On a sample the picture is that sample; between, the band-limited value.
        let db = |a: f32| 20.0 * (a / img.peak).log10();
        assert!((r.at(30.0, 40.0) - db(img.at(30, 40).norm())).abs() < 0.05);
        assert!(
            r.at(30.0, 40.25) > r.at(30.0, 40.0),
            "the true peak lies between samples"
        );
        let true_peak = -20.0 * img.peak.log10();
        assert!(
            (r.at(30.0, 40.25) - true_peak).abs() < 0.1,
            "and reaches it"
        );
        // Pixel repeat would show a flat top over the sample; interpolation does not.
        assert!((r.at(30.0, 40.0) - r.at(30.0, 39.9)).abs() > 0.01);
    }

    #[test]
    fn reduction_keeps_every_peak() {
        let data = sincs(64, 64, &[((10.0, 11.0), 1.0), ((50.0, 3.0), 0.1)]);
        let img = Focused::new(&data, 64, 64).expect("shape");
        let r = reduced(&img, 0..64, 0..64, 16);
        assert_eq!((r.rows, r.cols), (16, 16));
        let max = r.db.iter().copied().fold(f32::MIN, f32::max);
        assert!(max.abs() < 1e-5);
        // The weak target's block (row 50 / 4, column 3 / 4 = 0) holds its peak, −20 dB.
        assert!((r.db[12 * 16] + 20.0).abs() < 0.01);
    }

    #[test]
    fn the_overview_frames_the_targets() {
        let data = vec![Complex32::new(1.0, 0.0); 4096 * 2048];
        let img = Focused::new(&data, 4096, 2048).expect("shape");
        let (l, s) = overview_region(&img, &[(2048.0, 1000.0), (2148.0, 1200.0)]);
        assert_eq!((l, s), (1984..2213, 936..1265));
        assert_eq!(overview_region(&img, &[]), (0..4096, 0..2048));
        let (l, _) = overview_region(&img, &[(3.0, 1000.0)]);
        assert_eq!(l, 0..68);
    }

    #[test]
    fn a_crop_is_interpolated_with_its_mark_and_colour_bar() {
        let data = sincs(100, 120, &[((50.0, 60.0), 1.0)]);
        let img = Focused::new(&data, 100, 120).expect("shape");
        let geometry = Geometry {
            range_bin_m: 1.25,
            azimuth_bin_m: 0.1,
            near_range_m: 19000.0,
            centre_line: 50.0,
        };
        let curves = || super::super::CutCurves {
            imaged_text: String::new(),
            alone: None,
            alone_text: String::new(),
            ideal: tierfft_sar::quality::neighbours::AxisResponse {
                window: tierfft_sar::filters::window::Window::None,
                samples_per_unit: 1.0,
                carrier: 0.0,
            },
            ideal_text: String::new(),
        };
        let target = TargetFigure {
            index: 1,
            title: "target 1".into(),
            peak: (50, 60),
            expected: (50.0, 60.0),
            cut_half: (20, 20),
            range: curves(),
            azimuth: curves(),
        };
        let (rgb, frame) = crop_figure(&img, &geometry, &target).expect("drawn");
        assert_eq!(
            (rgb.width, rgb.height),
            (CROP_SIZE.0 as usize, CROP_SIZE.1 as usize)
        );
        let is = |x: f64, y: f64, c: RGBColor| rgb.at(x as usize, y as usize) == [c.0, c.1, c.2];
        // The peak's pixel is at the top of the scale (within a fraction of a dB: the pixel's
        // centre is not quite on the sample), in the picture, not only in the bar.
        let (px, py) = frame.pixel((60.0, -50.0));
        let scale = Scale::fixed("dB");
        let top = scale.colour(0.0);
        let at = rgb.at(px as usize, py as usize);
        let near = at
            .iter()
            .zip([top.0, top.1, top.2])
            .all(|(a, b)| a.abs_diff(b) <= 8);
        assert!(near, "{at:?} against {top:?}");
        // The cross's arms, a gap around the peak.
        assert!(is(px + 20.0, py, MARK) && is(px, py - 20.0, MARK));
        // Interpolated, not repeated: half a line off the peak (clear of the cross), ±10
        // samples, neighbouring pixels differ (a repeat zoom shows runs of about 9 equal).
        let (left, y) = frame.pixel((50.0, -50.5));
        let (right, _) = frame.pixel((70.0, -50.5));
        let row: Vec<[u8; 3]> = (left as usize..right as usize)
            .map(|x| rgb.at(x, y as usize))
            .collect();
        let same = row.windows(2).filter(|w| w[0] == w[1]).count();
        assert!(
            same * 4 < row.len(),
            "{same} of {} neighbouring pixels equal",
            row.len()
        );
        // The colour bar spans the scale.
        let bar: Vec<[u8; 3]> = (frame.y_px.clone())
            .map(|y| rgb.at(rgb.width - BAR_AREA as usize + 30, y as usize))
            .collect();
        let ends = |c: RGBColor| [c.0, c.1, c.2];
        assert_eq!(bar[0], ends(scale.colour(0.0)));
        assert_eq!(bar[bar.len() - 1], ends(scale.colour(scale.floor_db)));
    }
}
