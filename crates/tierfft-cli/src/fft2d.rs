//! `tierfft fft2d image.png`: an image's 2-D spectrum (R2C on the device) as a figure, and
//! with `--lowpass R` / `--highpass R` the image filtered in the frequency domain and
//! transformed back (C2R), so that a person can see the transforms work.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use tierfft::{Complex32, NdSpec, PointOp};

use crate::CliResult;
use crate::plot::spectrum::{Spectrum, spectrum_figure};
use crate::plot::{DYNAMIC_RANGE_DB, write_png, write_rgb};
use tierfft_bench::shared::format_seconds;

/// Arguments of `tierfft fft2d`.
#[derive(Debug, Args)]
pub struct Fft2dArgs {
    /// Input image: PNG, grey or colour (read as luminance), 8 or 16 bits.
    image: PathBuf,
    /// Directory for spectrum.png (and lowpass.png / highpass.png); created if missing.
    #[arg(short, long, default_value = "fft2d-out", value_name = "DIR")]
    out: PathBuf,
    /// Keep the frequencies within R cycles per image of zero, and write the filtered image
    /// as lowpass.png.
    #[arg(long, value_name = "R")]
    lowpass: Option<f64>,
    /// Remove the frequencies within R cycles per image of zero, and write the filtered
    /// image as highpass.png (mid-grey is zero).
    #[arg(long, value_name = "R", conflicts_with = "lowpass")]
    highpass: Option<f64>,
    /// Device: auto, cpu, cuda, cuda:N, gpu, gpu:N, lavapipe, or part of an adapter's name.
    #[arg(short, long, default_value = "auto", value_name = "NAME")]
    device: String,
}

/// Reads a PNG as luminance in [0, 1]: (rows, columns, values).
fn read_grey(path: &Path) -> CliResult<(usize, usize, Vec<f32>)> {
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open '{shown}': {e}"))?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder
        .read_info()
        .map_err(|e| format!("'{shown}' is not a PNG tierfft can read: {e}"))?;
    let mut buf = vec![0; reader.output_buffer_size().ok_or("image too large")?];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("cannot decode '{shown}': {e}"))?;
    let (w, h) = (info.width as usize, info.height as usize);
    let channels = info.color_type.samples();
    let bytes = &buf[..info.buffer_size()];
    let grey = bytes
        .chunks(channels)
        .map(|p| {
            let v = |i: usize| f32::from(p[i]) / 255.0;
            match channels {
                1 | 2 => v(0),
                // Rec. 709 luminance of the (gamma-encoded) colour.
                _ => 0.2126 * v(0) + 0.7152 * v(1) + 0.0722 * v(2),
            }
        })
        .collect();
    Ok((h, w, grey))
}

/// Signed frequency of bin `k` of `n`, cycles per image.
fn freq(k: usize, n: usize) -> f64 {
    if k <= n / 2 {
        k as f64
    } else {
        k as f64 - n as f64
    }
}

/// `tierfft fft2d`.
pub fn run(args: &Fft2dArgs) -> CliResult<()> {
    for r in [args.lowpass, args.highpass].into_iter().flatten() {
        if !(r.is_finite() && r > 0.0) {
            return Err(format!("the filter radius must be a positive number (got {r})").into());
        }
    }
    let (h, w, grey) = read_grey(&args.image)?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create '{}': {e}", args.out.display()))?;
    let device = crate::commands::open_device(&args.device)?;
    let start = Instant::now();
    let spec = NdSpec::new(&[h, w]).real();
    let r2c = device.plan_nd(&spec)?;
    let half = w / 2 + 1;
    let mut spectrum = vec![Complex32::new(0.0, 0.0); h * half];
    r2c.process_real_to_complex(&grey, &mut spectrum)?;
    let forward = start.elapsed();

    // The full spectrum, centred, from the kept half by Hermitian symmetry.
    let power = |r: usize, c: usize| -> f32 {
        let z = if c < half {
            spectrum[r * half + c]
        } else {
            spectrum[((h - r) % h) * half + (w - c)].conj()
        };
        z.norm_sqr()
    };
    let (cy, cx) = (h / 2, w / 2);
    let mut db = vec![0.0f32; h * w];
    for (row, line) in db.chunks_mut(w).enumerate() {
        for (col, v) in line.iter_mut().enumerate() {
            *v = power((row + h - cy) % h, (col + w - cx) % w);
        }
    }
    // dB of the strongest bin other than zero frequency (the image's mean outshines all).
    let peak = db
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != cy * w + cx)
        .map(|(_, &p)| p)
        .fold(f32::MIN_POSITIVE, f32::max);
    db.iter_mut()
        .for_each(|p| *p = 10.0 * (p.max(1e-30) / peak).log10());
    let cutoff = args.lowpass.or(args.highpass);
    let figure = spectrum_figure(&Spectrum {
        db: &db,
        height: h,
        width: w,
        title: format!(
            "2-D spectrum of {} ({w} × {h}), R2C on {}",
            args.image
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            device.name()
        ),
        subtitle: format!(
            "|X|² in dB of the strongest non-zero frequency ({DYNAMIC_RANGE_DB:.0} dB shown), \
             zero frequency centred{}",
            match (args.lowpass, args.highpass) {
                (Some(r), _) => format!("; low-pass cut-off {r} cycles/image in red"),
                (_, Some(r)) => format!("; high-pass cut-off {r} cycles/image in red"),
                _ => String::new(),
            }
        ),
        cutoff,
    })?;
    let spectrum_png = args.out.join("spectrum.png");
    write_rgb(&spectrum_png, &figure)?;
    let mut written = vec![spectrum_png];

    if let Some(r) = cutoff {
        let low = args.lowpass.is_some();
        // The filter (1 kept, 0 cut) multiplies the bins inside the C2R's first pass.
        let mask: Vec<Complex32> = (0..h * half)
            .map(|i| {
                let inside = freq(i / half, h).hypot((i % half) as f64) <= r;
                Complex32::new(if inside == low { 1.0 } else { 0.0 }, 0.0)
            })
            .collect();
        let filtered = spec
            .clone()
            .inverse()
            .normalized()
            .on_load(PointOp::MultiplyEach(mask.into()));
        let c2r = device.plan_nd(&filtered)?;
        let mut image = vec![0.0f32; h * w];
        c2r.process_complex_to_real(&spectrum, &mut image)?;
        // A high-passed image has zero mean: mid-grey is zero.
        let offset = if low { 0.0 } else { 0.5 };
        let pixels: Vec<u8> = image
            .iter()
            .map(|&v| ((v + offset).clamp(0.0, 1.0) * 255.0).round() as u8)
            .collect();
        let name = if low { "lowpass.png" } else { "highpass.png" };
        let path = args.out.join(name);
        write_png(&path, w, h, png::ColorType::Grayscale, &pixels)?;
        written.push(path);
    }
    let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
    eprintln!(
        "tierfft fft2d: {w} × {h} on {}: R2C {} incl. planning and transfers{}; wrote {}",
        device.name(),
        format_seconds(forward.as_secs_f64()),
        if cutoff.is_some() {
            format!(", all {}", format_seconds(start.elapsed().as_secs_f64()))
        } else {
            String::new()
        },
        names.join(", ")
    );
    Ok(())
}
