//! Pictures of a whole scene: the focused image (`image.png`), the raw echoes (`raw.png`) and
//! the multi-looked product (`looks.png`), with the overview's axes (range samples and slant
//! range, azimuth lines and metres) and a dB colour bar whose range is chosen from the
//! picture's own values ([`Scale::from_data`]): a point-target scene is mostly noise 50 dB and
//! more below its peak, which a fixed 50 dB range shows as black.
//!
//! One pixel a cell: a scene longer than a picture's side is reduced in blocks first (the
//! image to each block's strongest sample, so that no target vanishes between pixels; the
//! echoes and the looks to their mean power); a scene shorter than [`MIN_SIDE`] is stretched
//! so that the axes have room.

use tierfft::Complex32;

use super::image::{Raster, draw_raster, figure_size, reduced};
use super::scale::Scale;
use super::{Focused, Frame, Geometry, Rgb};
use crate::CliResult;

/// Longest side of `image.png`'s and `looks.png`'s picture, pixels: larger scenes are
/// reduced in blocks.
pub const IMAGE_SIDE: usize = 2048;

/// Longest side of `raw.png`'s picture, pixels: the echoes are averaged down to it.
pub const RAW_SIDE: usize = 1024;

/// Shortest side of a picture, pixels: a narrower scene is stretched to it.
pub const MIN_SIDE: usize = 512;

/// The multi-looked product: the image's power averaged over blocks of `looks` lines ×
/// samples.
#[derive(Clone, Copy, Debug)]
pub struct Looks<'a> {
    /// Mean power |z|² of each block, row-major, `rows × cols`.
    pub power: &'a [f32],
    /// Blocks along azimuth.
    pub rows: usize,
    /// Blocks along range.
    pub cols: usize,
    /// (azimuth, range) looks: image lines × samples averaged into each value.
    pub looks: (usize, usize),
}

/// An image whole (`what` it is names it: "focused image", "range-compressed image"), each
/// pixel the strongest sample of its block (one sample where the image fits
/// [`IMAGE_SIDE`]), in dB of the image's peak.
pub fn image_figure(image: &Focused, geometry: &Geometry, what: &str) -> CliResult<(Rgb, Frame)> {
    let raster = Raster {
        smooth: false,
        ..reduced(image, 0..image.lines, 0..image.samples, IMAGE_SIDE)
    };
    let per_pixel = match cell_of(&raster) {
        (1, 1) => "one pixel per sample".to_string(),
        (a, r) => format!(
            "each pixel the strongest of {} × {}",
            count(a, "line"),
            count(r, "sample")
        ),
    };
    let scale = Scale::from_data(&raster.db, "dB of the image's peak");
    draw_whole(
        &format!("{what}, {} lines × {} samples", image.lines, image.samples),
        &format!("|z|², {per_pixel}; azimuth downwards in pulse order"),
        &raster,
        &scale,
        geometry,
    )
}

/// The raw echoes (`lines × samples`, row-major), each pixel the mean power of its block
/// (at most [`RAW_SIDE`] a side), in dB of the strongest pixel. The range axis in metres is
/// the echo delay as a slant range.
pub fn raw_figure(
    data: &[Complex32],
    (lines, samples): (usize, usize),
    geometry: &Geometry,
) -> CliResult<(Rgb, Frame)> {
    if lines == 0 || lines.checked_mul(samples) != Some(data.len()) {
        return Err(format!(
            "echoes of {} values are not {lines} lines × {samples} samples",
            data.len()
        )
        .into());
    }
    let block = (lines.div_ceil(RAW_SIDE), samples.div_ceil(RAW_SIDE));
    let power = block_means(data, (lines, samples), block, |z| f64::from(z.norm_sqr()));
    let raster = power_raster(&power, (lines, samples), block, block);
    let scale = Scale::from_data(&raster.db, "dB of the strongest pixel");
    let per_pixel = match block {
        (1, 1) => "one pixel per sample".to_string(),
        (a, r) => format!(
            "each pixel the mean of {} × {}",
            count(a, "line"),
            count(r, "sample")
        ),
    };
    draw_whole(
        &format!("raw echoes, {lines} lines × {samples} samples"),
        &format!("|z|², {per_pixel}; range: echo delay in metres"),
        &raster,
        &scale,
        geometry,
    )
}

/// The multi-looked product, each pixel the mean power of its block of looks (one look
/// where it fits [`IMAGE_SIDE`]), on the image's axes, in dB of the strongest pixel.
pub fn looks_figure(looks: &Looks, geometry: &Geometry) -> CliResult<(Rgb, Frame)> {
    let Looks {
        power,
        rows,
        cols,
        looks: (a, r),
    } = *looks;
    if rows == 0 || a == 0 || r == 0 || rows.checked_mul(cols) != Some(power.len()) {
        return Err(format!(
            "{} looks are not {rows} × {cols} blocks of {a} × {r}",
            power.len()
        )
        .into());
    }
    let block = (rows.div_ceil(IMAGE_SIDE), cols.div_ceil(IMAGE_SIDE));
    let mean = block_means(power, (rows, cols), block, |&p| f64::from(p));
    let cell = (a * block.0, r * block.1);
    let raster = power_raster(&mean, (rows, cols), block, cell);
    let scale = Scale::from_data(&raster.db, "dB of the strongest pixel");
    let per_pixel = match block {
        (1, 1) => String::new(),
        (ba, br) => format!(", each pixel the mean of {ba} × {br} of them"),
    };
    draw_whole(
        &format!("multi-looked image, {a} azimuth × {r} range looks: {rows} × {cols} values"),
        &format!(
            "|z|² averaged over {} × {}{per_pixel}",
            count(a, "line"),
            count(r, "sample")
        ),
        &raster,
        &scale,
        geometry,
    )
}

/// "1 line", "2 lines".
fn count(n: usize, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

/// Image (lines, samples) a raster cell spans.
fn cell_of(raster: &Raster) -> (usize, usize) {
    let span = |r: &std::ops::Range<f64>, n: usize| ((r.end - r.start) / n as f64).round();
    (
        span(&raster.lines, raster.rows) as usize,
        span(&raster.samples, raster.cols) as usize,
    )
}

/// Mean of `power(value)` over blocks of `block` rows × columns of the row-major `rows ×
/// cols` values; blocks cut short at the last rows and columns average what they hold.
fn block_means<T>(
    values: &[T],
    (rows, cols): (usize, usize),
    block: (usize, usize),
    power: impl Fn(&T) -> f64,
) -> Vec<f64> {
    let (height, width) = (rows.div_ceil(block.0), cols.div_ceil(block.1));
    let mut sum = vec![0.0f64; height * width];
    for (r, row) in values.chunks(cols.max(1)).take(rows).enumerate() {
        let out = &mut sum[(r / block.0) * width..][..width];
        for (c, v) in row.iter().enumerate() {
            out[c / block.1] += power(v);
        }
    }
    for (i, s) in sum.iter_mut().enumerate() {
        let (br, bc) = (i / width, i % width);
        let held = block.0.min(rows - br * block.0) * block.1.min(cols - bc * block.1);
        *s /= held as f64;
    }
    sum
}

/// dB of the strongest of `power` (blocks of `block` values of a `rows × cols` grid), each
/// cell spanning `cell` image (lines, samples).
fn power_raster(
    power: &[f64],
    (rows, cols): (usize, usize),
    block: (usize, usize),
    cell: (usize, usize),
) -> Raster {
    let max = power.iter().copied().fold(f64::MIN_POSITIVE, f64::max);
    let (height, width) = (rows.div_ceil(block.0), cols.div_ceil(block.1));
    Raster {
        db: power
            .iter()
            .map(|&p| (10.0 * (p / max).max(1e-30).log10()) as f32)
            .collect(),
        rows: height,
        cols: width,
        lines: -0.5..(height * cell.0) as f64 - 0.5,
        samples: -0.5..(width * cell.1) as f64 - 0.5,
        smooth: false,
    }
}

/// Draws a whole-scene `raster` one pixel a cell, each side at least [`MIN_SIDE`].
fn draw_whole(
    title: &str,
    subtitle: &str,
    raster: &Raster,
    scale: &Scale,
    geometry: &Geometry,
) -> CliResult<(Rgb, Frame)> {
    let side = |n: usize| n.max(MIN_SIDE) as u32;
    let size = figure_size((side(raster.cols), side(raster.rows)));
    draw_raster((title, subtitle), raster, scale, geometry, &[], size)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GEOMETRY: Geometry = Geometry {
        range_bin_m: 1.25,
        azimuth_bin_m: 0.7,
        near_range_m: 19000.0,
        centre_line: 300.0,
    };

    /// Complex Gaussian noise of power `power`, seeded (xorshift and Box–Muller).
    fn noise(n: usize, power: f32, seed: u64) -> Vec<Complex32> {
        let mut state = seed | 1;
        let mut uniform = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        };
        let sigma = (f64::from(power) / 2.0).sqrt();
        (0..n)
            .map(|_| {
                let (u, v) = (uniform(), uniform());
                let r = sigma * (-2.0 * u.ln()).sqrt();
                let a = 2.0 * std::f64::consts::PI * v;
                Complex32::new((r * a.cos()) as f32, (r * a.sin()) as f32)
            })
            .collect()
    }

    /// How many different colours the picture has, and the share of its pixels that are
    /// the bottom of the scale's colour map.
    fn texture(rgb: &Rgb, frame: &Frame, scale: &Scale) -> (usize, f64) {
        let floor = scale.colour(scale.floor_db);
        let pixels: Vec<[u8; 3]> = frame
            .y_px
            .clone()
            .flat_map(|y| frame.x_px.clone().map(move |x| (x, y)))
            .map(|(x, y)| rgb.at(x as usize, y as usize))
            .collect();
        let colours: std::collections::HashSet<[u8; 3]> = pixels.iter().copied().collect();
        let dark = pixels
            .iter()
            .filter(|p| **p == [floor.0, floor.1, floor.2])
            .count();
        (colours.len(), dark as f64 / pixels.len() as f64)
    }

    /// Luminance of an sRGB colour, 0..255.
    fn luma(p: [u8; 3]) -> f64 {
        0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2])
    }

    /// (width, height, RGB bytes) of a PNG file.
    fn decode(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
        let file = std::fs::File::open(path).expect("png file");
        let mut reader = png::Decoder::new(std::io::BufReader::new(file))
            .read_info()
            .expect("png header");
        let mut buf = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut buf).expect("png data");
        assert_eq!(info.color_type, png::ColorType::Rgb);
        buf.truncate(info.buffer_size());
        (info.width, info.height, buf)
    }

    /// A point target 60 dB above noise: the noise is texture (median pixel well above the
    /// bottom of the map), the target the top colour, one pixel per sample.
    #[test]
    fn the_image_shows_its_noise_and_its_target() {
        let (lines, samples) = (600, 700);
        let mut data = noise(lines * samples, 1e-6, 7);
        data[300 * samples + 350] = Complex32::new(1.0, 0.0);
        let img = Focused::new(&data, lines, samples).expect("shape");
        let (rgb, frame) = image_figure(&img, &GEOMETRY, "focused image").expect("drawn");
        assert_eq!((frame.x_px.len(), frame.y_px.len()), (samples, lines));
        let size = figure_size((samples as u32, lines as u32));
        assert_eq!((rgb.width, rgb.height), (size.0 as usize, size.1 as usize));
        let raster = reduced(&img, 0..lines, 0..samples, IMAGE_SIDE);
        let scale = Scale::from_data(&raster.db, "");
        // Noise 60 dB down, its 5th percentile 13 dB below its mean: the floor near −73.
        assert!((-74.0..=-72.0).contains(&scale.floor_db), "{scale:?}");
        let (colours, dark) = texture(&rgb, &frame, &scale);
        assert!(colours > 100, "{colours} colours");
        assert!(
            dark < 0.1,
            "{:.1} % of the pixels at the floor",
            dark * 100.0
        );
        let (px, py) = frame.pixel((350.0, -300.0));
        let top = scale.colour(0.0);
        assert_eq!(rgb.at(px as usize, py as usize), [top.0, top.1, top.2]);
        // The median pixel of the picture is not black: about a sixth up the map.
        let mut lumas: Vec<f64> = frame
            .y_px
            .clone()
            .flat_map(|y| frame.x_px.clone().map(move |x| (x, y)))
            .map(|(x, y)| luma(rgb.at(x as usize, y as usize)))
            .collect();
        let mid = lumas.len() / 2;
        let (_, &mut median, _) = lumas.select_nth_unstable_by(mid, f64::total_cmp);
        let bottom = luma(rgb_of(scale.colour(scale.floor_db)));
        assert!(
            median > bottom + 15.0,
            "median luminance {median:.0}, floor {bottom:.0}"
        );
        // The file: a valid PNG of the figure's size.
        let dir = std::env::temp_dir().join(format!("tierfft-whole-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("image.png");
        super::super::write_image(&path, &img, &GEOMETRY, "focused image").expect("written");
        let (w, h, bytes) = decode(&path);
        assert_eq!((w, h), size);
        assert_eq!(bytes, rgb.pixels);
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn rgb_of(c: plotters::style::RGBColor) -> [u8; 3] {
        [c.0, c.1, c.2]
    }

    /// A large image is reduced to [`IMAGE_SIDE`] by block peaks, and says so.
    #[test]
    fn a_large_image_is_reduced_by_block_peaks() {
        let (lines, samples) = (2100, 64);
        let mut data = noise(lines * samples, 1e-4, 3);
        data[2001 * samples + 20] = Complex32::new(1.0, 0.0);
        let img = Focused::new(&data, lines, samples).expect("shape");
        let raster = reduced(&img, 0..lines, 0..samples, IMAGE_SIDE);
        assert_eq!((raster.rows, raster.cols), (1050, 64));
        assert_eq!(cell_of(&raster), (2, 1));
        let (rgb, frame) = image_figure(&img, &GEOMETRY, "focused image").expect("drawn");
        // Stretched across to the least side, one pixel a block down.
        assert_eq!((frame.x_px.len(), frame.y_px.len()), (MIN_SIDE, 1050));
        let (px, py) = frame.pixel((20.0, -2001.0));
        let scale = Scale::from_data(&raster.db, "");
        assert_eq!(rgb.at(px as usize, py as usize), rgb_of(scale.colour(0.0)));
    }

    /// The echoes are averaged in blocks to at most [`RAW_SIDE`] a side: a bright stripe of
    /// lines is the top of the map, the noise textured below it.
    #[test]
    fn the_echoes_are_averaged_down_with_texture() {
        let (lines, samples) = (1100, 300);
        let mut data = noise(lines * samples, 1.0, 11);
        for z in &mut data[500 * samples..502 * samples] {
            *z *= 100.0;
        }
        let block = (lines.div_ceil(RAW_SIDE), samples.div_ceil(RAW_SIDE));
        assert_eq!(block, (2, 1));
        let power = block_means(&data, (lines, samples), block, |z| f64::from(z.norm_sqr()));
        assert_eq!(power.len(), 550 * 300);
        let (rgb, frame) = raw_figure(&data, (lines, samples), &GEOMETRY).expect("drawn");
        assert_eq!((frame.x_px.len(), frame.y_px.len()), (MIN_SIDE, 550));
        let raster = power_raster(&power, (lines, samples), block, block);
        let scale = Scale::from_data(&raster.db, "");
        // The stripe's block (row 250, column 150) within a few dB of the strongest; the
        // picture's pixel its colour.
        let stripe = raster.db[250 * 300 + 150];
        assert!(stripe > -10.0, "{stripe}");
        let (px, py) = frame.pixel((150.0, -500.5));
        assert_eq!(
            rgb.at(px as usize, py as usize),
            rgb_of(scale.colour(stripe))
        );
        let (colours, dark) = texture(&rgb, &frame, &scale);
        assert!(colours > 50 && dark < 0.2, "{colours} colours, {dark} dark");
        assert!(raw_figure(&data[1..], (lines, samples), &GEOMETRY).is_err());
    }

    #[test]
    fn blocks_cut_short_average_what_they_hold() {
        // 3 × 5 values in blocks of 2 × 2: the last row and column hold fewer.
        let values: Vec<f64> = (0..15).map(f64::from).collect();
        let means = block_means(&values, (3, 5), (2, 2), |&v| v);
        assert_eq!(means, [3.0, 5.0, 6.5, 10.5, 12.5, 14.0]);
    }

    /// The looks are placed on the image's lines and samples: 4 × 3 looks of 1024 × 1000.
    #[test]
    fn the_looks_lie_on_the_image_axes() {
        let (rows, cols) = (256, 334);
        let mut power: Vec<f32> = noise(rows * cols, 1e-4, 5)
            .iter()
            .map(|z| z.norm_sqr())
            .collect();
        power[100 * cols + 200] = 1.0;
        let looks = Looks {
            power: &power,
            rows,
            cols,
            looks: (4, 3),
        };
        let (rgb, frame) = looks_figure(&looks, &GEOMETRY).expect("drawn");
        assert_eq!(frame.y, -(1024.0 - 0.5)..0.5);
        assert_eq!(frame.x, -0.5..1001.5);
        assert_eq!((frame.x_px.len(), frame.y_px.len()), (MIN_SIDE, MIN_SIDE));
        // Look (100, 200) covers lines 400..404 and samples 600..603.
        let (px, py) = frame.pixel((601.0, -401.5));
        let db: Vec<f32> = power.iter().map(|p| 10.0 * p.log10()).collect();
        let scale = Scale::from_data(&db, "");
        assert_eq!(rgb.at(px as usize, py as usize), rgb_of(scale.colour(0.0)));
        let (colours, dark) = texture(&rgb, &frame, &scale);
        assert!(colours > 50 && dark < 0.2, "{colours} colours, {dark} dark");
        let short = Looks {
            power: &power[1..],
            ..looks
        };
        assert!(looks_figure(&short, &GEOMETRY).is_err());
    }
}
