//! Figures for `tierfft sar`: an overview of the targets and a crop around each with axes in
//! metres and bins and a dB colour bar ([`image`]), the whole image, the raw echoes and the
//! multi-looked product with the same axes and a colour range chosen from their values
//! ([`whole`], [`scale`]), and each target's range and azimuth cuts as imaged, alone and
//! ideal, with the measured values ([`cuts`]).
//!
//! PNGs are written with the `png` crate directly; plots are drawn by `plotters` into an RGB
//! buffer that the same encoder writes, so neither needs the `image` crate. Plot text uses
//! DejaVu Sans embedded by the `dejavu` crate: the plots look the same on a machine without
//! any system font (CI's clean Ubuntu).

pub mod cuts;
pub mod image;
pub mod profile;
pub mod scale;
pub mod spectrum;
pub mod whole;

use std::io::BufWriter;
use std::ops::Range;
use std::path::Path;
use std::sync::OnceLock;

use plotters::backend::RGBPixel;
use plotters::prelude::*;
use plotters::style::register_font;
use tierfft::Complex32;
use tierfft_sar::quality::neighbours::AxisResponse;

use crate::CliResult;

/// Dynamic range of the crops, the overview and the spectrum, dB: 0 dB (the reference peak)
/// is the top of the colour map, this far below the bottom.
pub const DYNAMIC_RANGE_DB: f32 = 50.0;

/// Largest magnitude |z| in `data`, never zero so that dB scales stay finite.
pub fn peak_amplitude(data: &[Complex32]) -> f32 {
    use rayon::prelude::*;
    // Powers in f64 (no overflow), a block per task: a 16384² image is 2^28 values.
    let power = |z: &Complex32| f64::from(z.re).powi(2) + f64::from(z.im).powi(2);
    let peak = data
        .par_chunks(1 << 16)
        .map(|block| block.iter().map(power).fold(0.0, f64::max))
        .reduce(|| 0.0, f64::max);
    (peak.sqrt() as f32).max(f32::MIN_POSITIVE)
}

/// Writes 8-bit `pixels` (row-major, `color`'s channels per pixel) as a PNG.
pub(crate) fn write_png(
    path: &Path,
    width: usize,
    height: usize,
    color: png::ColorType,
    pixels: &[u8],
) -> CliResult<()> {
    let cannot = |e: &dyn std::fmt::Display| format!("cannot write '{}': {e}", path.display());
    let file = std::fs::File::create(path).map_err(|e| cannot(&e))?;
    let mut encoder = png::Encoder::new(BufWriter::new(file), width as u32, height as u32);
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    // fdeflate: a 2500 × 2100 picture in tens of milliseconds rather than a second, the
    // file a little larger.
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().map_err(|e| cannot(&e))?;
    writer.write_image_data(pixels).map_err(|e| cannot(&e))?;
    // Dropping the writer would finish the file but swallow an error (a full disk).
    writer.finish().map_err(|e| cannot(&e))?;
    Ok(())
}

/// Writes an RGB image as a PNG.
pub(crate) fn write_rgb(path: &Path, rgb: &Rgb) -> CliResult<()> {
    write_png(
        path,
        rgb.width,
        rgb.height,
        png::ColorType::Rgb,
        &rgb.pixels,
    )
}

/// Indices within `half` of `center`, cut at 0 and `len`: the window shrinks at an image edge
/// rather than moving, so the target stays where the crop says it is.
pub fn window(center: usize, half: usize, len: usize) -> Range<usize> {
    let start = center.saturating_sub(half).min(len);
    let end = center.saturating_add(half + 1).min(len);
    start..end
}

/// An RGB image: `width × height` pixels of 3 bytes, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Rgb {
    /// Pixels per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// `width · height · 3` bytes.
    pub pixels: Vec<u8>,
}

impl Rgb {
    /// The colour of pixel (x, y).
    #[cfg(test)]
    pub fn at(&self, x: usize, y: usize) -> [u8; 3] {
        let i = (y * self.width + x) * 3;
        [self.pixels[i], self.pixels[i + 1], self.pixels[i + 2]]
    }
}

/// Where a chart's plotting area landed in a figure, to map data to pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// Pixel columns of the plotting area.
    pub x_px: Range<i32>,
    /// Pixel rows of the plotting area.
    pub y_px: Range<i32>,
    /// Data shown left to right.
    pub x: Range<f64>,
    /// Data shown bottom to top (a picture's lines: `-last .. -first`, line 0 on top).
    pub y: Range<f64>,
}

impl Frame {
    /// The pixel at data point (x, y), as plotters maps it (linearly from the plotting
    /// area's first pixel to its end, y upwards).
    pub fn pixel(&self, (x, y): (f64, f64)) -> (f64, f64) {
        let fx = (x - self.x.start) / (self.x.end - self.x.start);
        let fy = (y - self.y.start) / (self.y.end - self.y.start);
        (
            self.x_px.start as f64 + fx * (self.x_px.end - self.x_px.start) as f64,
            self.y_px.end as f64 - fy * (self.y_px.end - self.y_px.start) as f64,
        )
    }
}

/// Draws into a white RGB buffer of `size` pixels with `draw` (plotters' bitmap backend).
pub(crate) fn render(
    size: (u32, u32),
    draw: impl FnOnce(
        &DrawingArea<BitMapBackend<'_, RGBPixel>, plotters::coord::Shift>,
    ) -> CliResult<()>,
) -> CliResult<Rgb> {
    font()?;
    let (width, height) = (size.0 as usize, size.1 as usize);
    let mut pixels = vec![0u8; width * height * 3];
    {
        let root = BitMapBackend::<RGBPixel>::with_buffer_and_format(&mut pixels, size)?
            .into_drawing_area();
        root.fill(&WHITE)?;
        draw(&root)?;
        root.present()?;
    }
    Ok(Rgb {
        width,
        height,
        pixels,
    })
}

/// Where the image's lines and samples lie, for axes in metres beside the axes in bins.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geometry {
    /// Slant-range spacing of samples, m.
    pub range_bin_m: f64,
    /// Along-track spacing of lines, m.
    pub azimuth_bin_m: f64,
    /// Slant range of sample 0, m.
    pub near_range_m: f64,
    /// The line at azimuth 0 m.
    pub centre_line: f64,
}

impl Geometry {
    /// Slant range of (fractional) sample `s`, m.
    pub fn range_m(&self, s: f64) -> f64 {
        self.near_range_m + s * self.range_bin_m
    }

    /// Azimuth of (fractional) line `l`, m.
    pub fn azimuth_m(&self, l: f64) -> f64 {
        (l - self.centre_line) * self.azimuth_bin_m
    }
}

/// A focused complex image, row-major `[lines][samples]`, with the amplitude that is 0 dB in
/// every figure of it (its maximum, so crops of different targets compare).
#[derive(Debug, Clone, Copy)]
pub struct Focused<'a> {
    /// `lines · samples` values; line `l`, sample `s` at `l · samples + s`.
    pub data: &'a [Complex32],
    /// Azimuth lines (rows).
    pub lines: usize,
    /// Range samples per line (columns).
    pub samples: usize,
    /// The 0 dB amplitude.
    pub peak: f32,
}

impl<'a> Focused<'a> {
    /// Wraps `data` with its maximum amplitude as 0 dB; errors if the shape does not match.
    pub fn new(data: &'a [Complex32], lines: usize, samples: usize) -> CliResult<Self> {
        if lines.checked_mul(samples) != Some(data.len()) || data.is_empty() {
            return Err(format!(
                "image of {} values is not {lines} lines × {samples} samples",
                data.len()
            )
            .into());
        }
        Ok(Self {
            data,
            lines,
            samples,
            peak: peak_amplitude(data),
        })
    }

    /// The value at (`line`, `sample`).
    pub fn at(&self, line: usize, sample: usize) -> Complex32 {
        self.data[line * self.samples + sample]
    }

    /// The range cut through (`line`, `sample`): samples `sample ± half` of that line.
    pub fn range_cut(&self, line: usize, sample: usize, half: usize) -> Vec<Complex32> {
        let row = &self.data[line * self.samples..(line + 1) * self.samples];
        row[window(sample, half, self.samples)].to_vec()
    }

    /// The azimuth cut through (`line`, `sample`): lines `line ± half` of that sample's column.
    pub fn azimuth_cut(&self, line: usize, sample: usize, half: usize) -> Vec<Complex32> {
        window(line, half, self.lines)
            .map(|l| self.at(l, sample))
            .collect()
    }
}

/// A tick label: at most three decimals, without trailing zeros ("-20", "0.5", not
/// "-20.0"), and no "-0".
pub fn tick(v: &f64) -> String {
    let text = format!("{v:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" { "0" } else { text }.to_string()
}

/// Registers the embedded DejaVu Sans as plotters' "sans-serif", once per process: without a
/// registered font, plotters' ab_glyph text cannot draw anything.
fn font() -> CliResult<()> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
                .map_err(|_| "the embedded DejaVu Sans font is not a valid font".to_string())
        })
        .clone()
        .map_err(Into::into)
}

/// One target's figures: what [`write_target_figures`] draws.
#[derive(Clone, Debug)]
pub struct TargetFigure {
    /// 1, 2, … in the config's order: the files are `target-<index>-crop.png` and
    /// `target-<index>-cuts.png`.
    pub index: usize,
    /// The figures' title.
    pub title: String,
    /// (line, sample) the crop and the cuts are centred on: the measured peak.
    pub peak: (usize, usize),
    /// (line, sample) where the target was placed, fractional: marked on the crop.
    pub expected: (f64, f64),
    /// Half-lengths of the cuts, (lines, samples).
    pub cut_half: (usize, usize),
    /// What the range cut shows beside the image's own cut.
    pub range: CutCurves,
    /// What the azimuth cut shows beside the image's own cut.
    pub azimuth: CutCurves,
}

/// One of a target's cuts: the text beside each curve, the cut through the target alone and
/// the ideal response.
#[derive(Clone, Debug)]
pub struct CutCurves {
    /// Beside the curve as imaged: its measured values.
    pub imaged_text: String,
    /// The cut through the target alone (every other target's modelled response taken
    /// out), through its peak alone, `cut_half` each side; `None` where it was not modelled.
    pub alone: Option<Vec<Complex32>>,
    /// Beside the curve alone: its measured values, or why there are none.
    pub alone_text: String,
    /// The ideal response along the cut: the window's over the processed band.
    pub ideal: AxisResponse,
    /// Beside the ideal curve: theory's values.
    pub ideal_text: String,
}

/// Writes a target's crop ([`image::crop_figure`]) and cuts ([`cuts::cut_figure`]) into
/// `out_dir`.
pub fn write_target_figures(
    out_dir: &Path,
    image: &Focused,
    geometry: &Geometry,
    target: &TargetFigure,
) -> CliResult<()> {
    let index = target.index;
    if target.peak.0 >= image.lines || target.peak.1 >= image.samples {
        return Err(format!(
            "target {index}: peak ({}, {}) is outside the {} × {} image",
            target.peak.0, target.peak.1, image.lines, image.samples
        )
        .into());
    }
    let (crop, _) = image::crop_figure(image, geometry, target)
        .map_err(|e| format!("target {index}: cannot draw the crop: {e}"))?;
    write_rgb(&out_dir.join(format!("target-{index}-crop.png")), &crop)?;
    let (cuts, _) = cuts::cut_figure(image, geometry, target)
        .map_err(|e| format!("target {index}: cannot draw the cut plot: {e}"))?;
    write_rgb(&out_dir.join(format!("target-{index}-cuts.png")), &cuts)
}

/// Writes `image.png` ([`whole::image_figure`]) to `path`.
pub fn write_image(path: &Path, image: &Focused, geometry: &Geometry, what: &str) -> CliResult<()> {
    let (rgb, _) = whole::image_figure(image, geometry, what)
        .map_err(|e| format!("cannot draw the {what}: {e}"))?;
    write_rgb(path, &rgb)
}

/// Writes `raw.png` ([`whole::raw_figure`]) of the `lines × samples` echoes `data` to `path`.
pub fn write_raw(
    path: &Path,
    data: &[Complex32],
    (lines, samples): (usize, usize),
    geometry: &Geometry,
) -> CliResult<()> {
    let (rgb, _) = whole::raw_figure(data, (lines, samples), geometry)
        .map_err(|e| format!("cannot draw the echoes: {e}"))?;
    write_rgb(path, &rgb)
}

/// Writes `looks.png` ([`whole::looks_figure`]) to `path`.
pub fn write_looks(path: &Path, looks: &whole::Looks, geometry: &Geometry) -> CliResult<()> {
    let (rgb, _) = whole::looks_figure(looks, geometry)
        .map_err(|e| format!("cannot draw the multi-looked image: {e}"))?;
    write_rgb(path, &rgb)
}

/// Writes the overview ([`image::overview_figure`]) to `path`.
pub fn write_overview(
    path: &Path,
    image: &Focused,
    geometry: &Geometry,
    placed: &[(f64, f64)],
) -> CliResult<()> {
    let (rgb, _) = image::overview_figure(image, geometry, placed)
        .map_err(|e| format!("cannot draw the overview: {e}"))?;
    write_rgb(path, &rgb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_shrink_at_the_edges() {
        assert_eq!(window(10, 3, 100), 7..14);
        assert_eq!(window(1, 3, 100), 0..5);
        assert_eq!(window(98, 3, 100), 95..100);
        assert_eq!(window(0, 0, 1), 0..1);
    }

    #[test]
    fn cuts_run_along_the_line_and_the_column() {
        let data: Vec<Complex32> = (0..20).map(|i| Complex32::new(i as f32, 0.0)).collect();
        let img = Focused::new(&data, 4, 5).expect("shape");
        let re = |v: Vec<Complex32>| v.iter().map(|z| z.re).collect::<Vec<_>>();
        assert_eq!(re(img.range_cut(2, 2, 1)), [11.0, 12.0, 13.0]);
        assert_eq!(re(img.range_cut(2, 0, 1)), [10.0, 11.0]);
        assert_eq!(re(img.azimuth_cut(1, 3, 1)), [3.0, 8.0, 13.0]);
        assert_eq!(re(img.azimuth_cut(3, 3, 2)), [8.0, 13.0, 18.0]);
        assert!(Focused::new(&data, 4, 4).is_err());
    }

    #[test]
    fn ticks_drop_trailing_zeros() {
        let t = |v: f64| tick(&v);
        assert_eq!(
            [
                t(-20.0),
                t(0.0),
                t(-0.0),
                t(0.5),
                t(2.25),
                t(0.1 + 0.2),
                t(-1e-9)
            ],
            ["-20", "0", "0", "0.5", "2.25", "0.3", "0"]
        );
    }
}
