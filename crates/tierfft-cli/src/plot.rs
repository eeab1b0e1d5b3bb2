//! Figures for `tierfft sar`: magnitude images in dB, a zoomed crop around each target, and
//! each target's range and azimuth cuts plotted in dB.
//!
//! Images are written with the `png` crate directly; plots are drawn by `plotters` into an RGB
//! buffer that the same encoder writes, so neither needs the `image` crate. Plot text uses
//! DejaVu Sans embedded by the `dejavu` crate: the plots look the same on a machine without
//! any system font (CI's clean Ubuntu).

use std::io::BufWriter;
use std::ops::Range;
use std::path::Path;
use std::sync::OnceLock;

use plotters::backend::RGBPixel;
use plotters::prelude::*;
use plotters::style::register_font;
use tierfft::Complex32;
use tierfft_sar::metrics::upsample;

use crate::CliResult;

/// Dynamic range of every dB image: 0 dB (the reference peak) is white, this far below black.
pub const DYNAMIC_RANGE_DB: f32 = 50.0;

/// Half-size of a target's crop, lines and samples: with ±32, neighbours at the seeds' target
/// spacing (50 lines, 60 samples) stay outside the crop, and several sidelobes show.
pub const CROP_HALF: usize = 32;

/// Nearest-neighbour zoom of a crop, so each image pixel is a visible 8 × 8 block.
pub const CROP_ZOOM: usize = 8;

/// Upsampling of a cut before plotting: 16 points per bin draw the mainlobe and the sidelobe
/// nulls smoothly.
pub const CUT_UPSAMPLE: usize = 16;

/// Lowest level on a cut plot's axis, dB below the cut's peak.
pub const CUT_FLOOR_DB: f64 = -60.0;

/// Size of the two-panel cut figure in pixels (width, height).
pub const CUTS_SIZE: (u32, u32) = (1200, 450);

/// Colour of the cross that marks where a target was placed on its crop.
const MARK: [u8; 3] = [255, 40, 40];

/// Largest magnitude |z| in `data`, never zero so that dB scales stay finite.
pub fn peak_amplitude(data: &[Complex32]) -> f32 {
    data.iter()
        .map(|z| z.norm())
        .fold(0.0f32, f32::max)
        .max(f32::MIN_POSITIVE)
}

/// Grey level of amplitude `a` relative to `peak`: 255 at 0 dB, 0 at −[`DYNAMIC_RANGE_DB`]
/// and below.
pub fn grey(a: f32, peak: f32) -> u8 {
    let db = 20.0 * (a / peak).max(1e-10).log10();
    (((db + DYNAMIC_RANGE_DB) / DYNAMIC_RANGE_DB).clamp(0.0, 1.0) * 255.0).round() as u8
}

/// Magnitude in dB as an 8-bit grey PNG: 0 dB (the maximum) white, −50 dB and below black.
pub fn write_db_png(path: &Path, data: &[Complex32], rows: usize, cols: usize) -> CliResult<()> {
    let peak = peak_amplitude(data);
    let pixels: Vec<u8> = data.iter().map(|z| grey(z.norm(), peak)).collect();
    write_png(path, cols, rows, png::ColorType::Grayscale, &pixels)
}

/// Writes 8-bit `pixels` (row-major, `color`'s channels per pixel) as a PNG.
fn write_png(
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
    let mut writer = encoder.write_header().map_err(|e| cannot(&e))?;
    writer.write_image_data(pixels).map_err(|e| cannot(&e))?;
    // Dropping the writer would finish the file but swallow an error (a full disk).
    writer.finish().map_err(|e| cannot(&e))?;
    Ok(())
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
    /// Sets pixel (x, y) if it lies inside the image (marks may reach past a crop's edge).
    fn set(&mut self, x: i64, y: i64, colour: [u8; 3]) {
        if (0..self.width as i64).contains(&x) && (0..self.height as i64).contains(&y) {
            let i = (y as usize * self.width + x as usize) * 3;
            self.pixels[i..i + 3].copy_from_slice(&colour);
        }
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

    /// The range cut through (`line`, `sample`): samples `sample ± half` of that line.
    pub fn range_cut(&self, line: usize, sample: usize, half: usize) -> Vec<Complex32> {
        let row = &self.data[line * self.samples..(line + 1) * self.samples];
        row[window(sample, half, self.samples)].to_vec()
    }

    /// The azimuth cut through (`line`, `sample`): lines `line ± half` of that sample's column.
    pub fn azimuth_cut(&self, line: usize, sample: usize, half: usize) -> Vec<Complex32> {
        window(line, half, self.lines)
            .map(|l| self.data[l * self.samples + sample])
            .collect()
    }

    /// Lines and samples within `half` of `center` (line, sample) in dB relative to
    /// [`Focused::peak`], grey, each pixel repeated `zoom × zoom`; with a cross at `mark`
    /// (line, sample, fractional) when given. Returns the window's first (line, sample) too.
    pub fn crop(
        &self,
        center: (usize, usize),
        half: usize,
        zoom: usize,
        mark: Option<(f64, f64)>,
    ) -> (Rgb, (usize, usize)) {
        let zoom = zoom.max(1);
        let (rows, cols) = (
            window(center.0, half, self.lines),
            window(center.1, half, self.samples),
        );
        let (width, height) = (cols.len() * zoom, rows.len() * zoom);
        let mut pixels = Vec::with_capacity(width * height * 3);
        for l in rows.clone() {
            let line: Vec<u8> = self.data[l * self.samples..][cols.clone()]
                .iter()
                .flat_map(|z| {
                    let g = grey(z.norm(), self.peak);
                    std::iter::repeat_n([g, g, g], zoom).flatten()
                })
                .collect();
            for _ in 0..zoom {
                pixels.extend_from_slice(&line);
            }
        }
        let mut rgb = Rgb {
            width,
            height,
            pixels,
        };
        if let Some((line, sample)) = mark {
            // Pixel centres: line l fills rows (l − first)·zoom .. +zoom.
            let z = zoom as f64;
            let y = ((line - rows.start as f64 + 0.5) * z).floor() as i64;
            let x = ((sample - cols.start as f64 + 0.5) * z).floor() as i64;
            // Arms from 1.5 to 4 image pixels out: the gap leaves the target's own peak
            // visible under the mark. Two screen pixels thick (either side of the centre
            // line) so the arms show at a glance.
            let (inner, outer) = ((1.5 * z) as i64, (4.0 * z) as i64);
            for d in inner..=outer {
                for t in [-1, 0] {
                    for (dx, dy) in [(d, t), (-d, t), (t, d), (t, -d)] {
                        rgb.set(x + dx, y + dy, MARK);
                    }
                }
            }
        }
        (rgb, (rows.start, cols.start))
    }
}

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

/// Draws cut profiles (title, points from [`cut_profile`]) side by side into an RGB buffer of
/// `size` pixels: dB from [`CUT_FLOOR_DB`] to 0 against bins, with a dashed −3 dB line (the
/// level that defines the IRW).
pub fn draw_cuts(panels: &[(String, Vec<(f64, f64)>)], size: (u32, u32)) -> CliResult<Rgb> {
    font()?;
    let (width, height) = (size.0 as usize, size.1 as usize);
    let mut pixels = vec![0u8; width * height * 3];
    {
        let root = BitMapBackend::<RGBPixel>::with_buffer_and_format(&mut pixels, size)?
            .into_drawing_area();
        root.fill(&WHITE)?;
        let areas = root.split_evenly((1, panels.len().max(1)));
        for (area, (title, points)) in areas.iter().zip(panels) {
            // Symmetric x axis wide enough for the whole cut: the peak sits in the middle.
            let reach = points
                .iter()
                .map(|p| p.0.abs())
                .fold(1.0f64, f64::max)
                .ceil();
            let mut chart = ChartBuilder::on(area)
                .caption(title, ("sans-serif", 22))
                .margin(12)
                .x_label_area_size(45)
                .y_label_area_size(55)
                .build_cartesian_2d(-reach..reach, CUT_FLOOR_DB..0.0)?;
            chart
                .configure_mesh()
                .x_desc("bins")
                .y_desc("dB")
                .x_label_formatter(&tick)
                .y_label_formatter(&tick)
                .label_style(("sans-serif", 15))
                .axis_desc_style(("sans-serif", 17))
                .draw()?;
            chart.draw_series(DashedLineSeries::new(
                [(-reach, -3.0), (reach, -3.0)],
                8,
                6,
                RED.stroke_width(1),
            ))?;
            chart.draw_series(LineSeries::new(
                points.iter().copied(),
                BLUE.stroke_width(2),
            ))?;
        }
        root.present()?;
    }
    Ok(Rgb {
        width,
        height,
        pixels,
    })
}

/// Writes target `index`'s figures into `out_dir`: `target-<index>-crop.png`, the image
/// within [`CROP_HALF`] of `peak` (line, sample) zoomed [`CROP_ZOOM`] times with a cross at
/// `expected` (line, sample); and `target-<index>-cuts.png`, its range and azimuth cuts
/// (±`cut_half` = (lines, samples) through `peak`) in dB.
pub fn write_target_figures(
    out_dir: &Path,
    index: usize,
    image: &Focused,
    peak: (usize, usize),
    expected: (f64, f64),
    cut_half: (usize, usize),
) -> CliResult<()> {
    if peak.0 >= image.lines || peak.1 >= image.samples {
        return Err(format!(
            "target {index}: peak ({}, {}) is outside the {} × {} image",
            peak.0, peak.1, image.lines, image.samples
        )
        .into());
    }
    let (crop, _) = image.crop(peak, CROP_HALF, CROP_ZOOM, Some(expected));
    write_png(
        &out_dir.join(format!("target-{index}-crop.png")),
        crop.width,
        crop.height,
        png::ColorType::Rgb,
        &crop.pixels,
    )?;
    let panels = [
        (
            format!("target {index} range cut"),
            cut_profile(&image.range_cut(peak.0, peak.1, cut_half.1), CUT_UPSAMPLE),
        ),
        (
            format!("target {index} azimuth cut"),
            cut_profile(&image.azimuth_cut(peak.0, peak.1, cut_half.0), CUT_UPSAMPLE),
        ),
    ];
    let cuts = draw_cuts(&panels, CUTS_SIZE)
        .map_err(|e| format!("target {index}: cannot draw the cut plot: {e}"))?;
    write_png(
        &out_dir.join(format!("target-{index}-cuts.png")),
        cuts.width,
        cuts.height,
        png::ColorType::Rgb,
        &cuts.pixels,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `lines × samples` image, zero but for `points` ((line, sample), amplitude).
    fn image(lines: usize, samples: usize, points: &[((usize, usize), f32)]) -> Vec<Complex32> {
        let mut data = vec![Complex32::new(0.0, 0.0); lines * samples];
        for &((l, s), a) in points {
            data[l * samples + s] = Complex32::new(0.0, a);
        }
        data
    }

    #[test]
    fn grey_spans_fifty_db() {
        assert_eq!(grey(1.0, 1.0), 255);
        assert_eq!(grey(2.0, 1.0), 255, "above the peak saturates");
        assert_eq!(grey(10f32.powf(-25.0 / 20.0), 1.0), 128);
        assert_eq!(grey(10f32.powf(-50.0 / 20.0), 1.0), 0);
        assert_eq!(grey(0.0, 1.0), 0);
    }

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
    fn crops_are_zoomed_and_scaled_to_the_whole_image() {
        // The image's peak (amplitude 10) is elsewhere: the crop's target (amplitude 1) is
        // −20 dB, grey 153, not white.
        let data = image(40, 50, &[((20, 30), 1.0), ((2, 2), 10.0)]);
        let img = Focused::new(&data, 40, 50).expect("shape");
        let (rgb, first) = img.crop((20, 30), 3, 4, None);
        assert_eq!(first, (17, 27));
        assert_eq!((rgb.width, rgb.height), (7 * 4, 7 * 4));
        assert_eq!(rgb.pixels.len(), 7 * 4 * 7 * 4 * 3);
        let px = |x: usize, y: usize| &rgb.pixels[(y * rgb.width + x) * 3..][..3];
        // Target at crop pixel (3, 3): every one of its 4 × 4 screen pixels.
        for y in 12..16 {
            for x in 12..16 {
                assert_eq!(px(x, y), [153, 153, 153], "({x}, {y})");
            }
        }
        assert_eq!(px(11, 12), [0, 0, 0]);
        assert_eq!(px(12, 16), [0, 0, 0]);
        // At a corner the window is clipped: rows 0..=3, samples 0..=3 around (0, 0).
        let (rgb, first) = img.crop((0, 0), 3, 2, None);
        assert_eq!(first, (0, 0));
        assert_eq!((rgb.width, rgb.height), (8, 8));
        assert_eq!(&rgb.pixels[(4 * 8 + 4) * 3..][..3], [255, 255, 255]);
    }

    #[test]
    fn the_mark_surrounds_the_expected_position_and_spares_it() {
        let data = image(40, 50, &[((20, 30), 1.0)]);
        let img = Focused::new(&data, 40, 50).expect("shape");
        let (rgb, _) = img.crop((20, 30), 5, 4, Some((20.0, 30.0)));
        let px = |x: usize, y: usize| &rgb.pixels[(y * rgb.width + x) * 3..][..3];
        // Target pixel 5 of the window: screen 20..24, centre 22.
        assert_eq!(px(22, 22), [255, 255, 255], "the peak is not covered");
        for (x, y) in [(30, 22), (14, 21), (22, 30), (21, 14)] {
            assert_eq!(px(x, y), MARK, "({x}, {y})");
        }
        assert_eq!(px(22 + 8, 22 + 8), [0, 0, 0], "no mark off the arms");
        // A mark past the edge is clipped, not a panic.
        let _ = img.crop((20, 30), 5, 4, Some((100.0, -100.0)));
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

    #[test]
    fn cut_plots_draw_text_and_curves() {
        let cut = cut_profile(&sinc_cut(49, 24.0), CUT_UPSAMPLE);
        let panels = [
            ("range".to_string(), cut.clone()),
            ("azimuth".to_string(), cut),
        ];
        let rgb = draw_cuts(&panels, (600, 300)).expect("drawn");
        assert_eq!(rgb.pixels.len(), 600 * 300 * 3);
        let count = |c: [u8; 3]| rgb.pixels.chunks(3).filter(|p| *p == c).count();
        // White background, black text and axes, the blue curves and the red −3 dB lines.
        assert!(count([255, 255, 255]) > 600 * 300 / 2);
        assert!(count([0, 0, 0]) > 500, "axes are drawn");
        // The captions: dark glyph pixels in the top rows, above every axis.
        let dark_on_top = rgb.pixels[..600 * 30 * 3]
            .chunks(3)
            .filter(|p| p.iter().all(|&c| c < 100))
            .count();
        assert!(dark_on_top > 50, "captions are drawn: {dark_on_top}");
        assert!(count([0, 0, 255]) > 200, "the curves are drawn");
        assert!(count([255, 0, 0]) > 100, "the −3 dB lines are drawn");
    }

    #[test]
    fn target_figures_are_written_as_pngs() {
        let d = std::env::temp_dir().join(format!("tierfft-plot-test-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("temp dir");
        let data = image(100, 120, &[((50, 60), 1.0)]);
        let img = Focused::new(&data, 100, 120).expect("shape");
        write_target_figures(&d, 3, &img, (50, 60), (50.0, 60.0), (24, 24)).expect("written");
        let size = |name: &str| {
            let decoder = png::Decoder::new(std::io::BufReader::new(
                std::fs::File::open(d.join(name)).expect("file"),
            ));
            let info = decoder.read_info().expect("png").info().clone();
            (info.width, info.height)
        };
        let side = ((2 * CROP_HALF + 1) * CROP_ZOOM) as u32;
        assert_eq!(size("target-3-crop.png"), (side, side));
        assert_eq!(size("target-3-cuts.png"), CUTS_SIZE);
        assert!(write_target_figures(&d, 4, &img, (100, 0), (0.0, 0.0), (24, 24)).is_err());
        let missing = d.join("no-such-folder");
        let e = write_target_figures(&missing, 1, &img, (50, 60), (50.0, 60.0), (24, 24));
        assert!(e.is_err_and(|e| e.to_string().contains("cannot write")));
        let _ = std::fs::remove_dir_all(&d);
    }
}
