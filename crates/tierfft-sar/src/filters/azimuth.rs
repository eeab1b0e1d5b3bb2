//! Azimuth compression's filter in the range-Doppler domain.
//!
//! For a target at closest range R0 the azimuth spectrum is, by stationary phase,
//! `exp(−i4πR0·(D(f) − 1)/λ)` times the carrier phase, with D the `migration` factor. A
//! phase-only filter undoing that leaves the spectrum's amplitude, which for a target seen
//! through a uniformly lit beam carries Fresnel ripple (the azimuth chirp is cut off hard at
//! the beam edges: time-bandwidth product 236 at the reference scene's 20 km). The ripple modulates
//! the window and lifts weighted sidelobes (Taylor −33.3 dB instead of −35.2). So, as range.rs does
//! for the chirp, the filter also divides by a numerically computed reference: the spectrum of
//! a point target as the beam's pattern lights it ([`crate::scene::pattern`]: uniformly, as the
//! simulator does by default, or tapered), with the analytic phase taken out.

use std::f64::consts::PI;
use std::sync::Arc;

use num_complex::{Complex32, Complex64};
use rayon::prelude::*;
use rustfft::FftPlanner;

use crate::filters::radiometry::Radiometry;
use crate::filters::range::{Window, equaliser};
use crate::filters::rows::{par_rows, to32, unique, zeroed};
use crate::filters::window::Shape;
use crate::scene::doppler::{doppler_hz, migration};
use crate::scene::extent::{Extent, fft_length, kernel_margin};
use crate::scene::params::{Config, Radar};
use crate::scene::pattern::reference_spectrum;

/// Range bins that share one numerical reference. The residual's ripple follows the
/// time-bandwidth product, which grows in proportion to range: across 32 bins of the default
/// scene (40 m at 20 km) it changes by 0.2 %.
const REFERENCE_BLOCK: usize = 32;

/// Memory the tiles of one wave of range blocks may take, bytes (at least one tile per thread).
const WAVE_BYTES: usize = 256 << 20;

/// The analytic azimuth phase 4πR0·(D(f) − 1)/λ at Doppler `f_hz` and range `r0` (m), which
/// the filter applies (the spectrum carries its negative).
fn phase(radar: &Radar, f_hz: f64, r0: f64) -> f64 {
    4.0 * PI * r0 * (migration(radar, f_hz) - 1.0) / radar.wavelength_m()
}

/// Where a range's Doppler band lies: its centroid (which alias of a bin the beam saw), the
/// band's middle and its width, Hz.
#[derive(Clone, Copy)]
struct Band {
    centroid: f64,
    middle: f64,
    width: f64,
}

impl Band {
    fn at(config: &Config, r0: f64) -> Band {
        let (low, high) = config.doppler_band_hz(r0);
        Band {
            centroid: config.centroid_hz(r0),
            middle: (low + high) / 2.0,
            width: high - low,
        }
    }

    /// Doppler bin `b` of `lines` as the frequency the beam saw, Hz.
    fn doppler(&self, b: usize, lines: usize, prf_hz: f64) -> f64 {
        doppler_hz(b, lines, prf_hz, self.centroid)
    }

    fn contains(&self, f: f64) -> bool {
        (f - self.middle).abs() <= self.width / 2.0
    }
}

/// The ripple the analytic phase leaves, per Doppler bin: the spectrum of a unit point target
/// at range `r0` and azimuth 0 (line 0, wrapping), lit as the beam's pattern lights it
/// (squinted: [`crate::scene::pattern::reference_spectrum`]), with the analytic phase taken out.
/// For a tapered pattern it carries the taper too, which the equaliser then undoes.
fn residual(config: &Config, r0: f64, fft: &dyn rustfft::Fft<f64>) -> Vec<Complex64> {
    let r = &config.radar;
    let lines = config.scene.lines;
    let mut s = reference_spectrum(config, r0, fft);
    let band = Band::at(config, r0);
    for (b, z) in s.iter_mut().enumerate() {
        *z *= Complex64::from_polar(1.0, phase(r, band.doppler(b, lines, r.prf_hz), r0));
    }
    s
}

/// The share of a Doppler bin `f` Hz wide `bin` Hz that lies inside the band `|f| ≤ band/2`,
/// for the bins inside it: 1, but for the outermost, which reach past the edge by up to
/// half a bin. Weighted by it, the filter is never wider than `band` whatever the FFT
/// length, and narrower by less than a bin (with whole bins it was up to a bin off either
/// way: 5600 lines, the default scene with margins, gave a 0.1 % wider band and narrower
/// response, which put the reference scene's pair 0.025 lines off when measured alone).
fn edge_share(f: f64, band: f64, bin: f64) -> f64 {
    ((band / 2.0 - f.abs()) / bin + 0.5).clamp(0.0, 1.0)
}

/// How the azimuth filter is shaped beyond the Doppler phase.
#[derive(Clone, Copy)]
pub struct AzimuthDesign<'a> {
    /// Weighting over each range's Doppler band.
    pub window: Window,
    /// Divide by the reference target's spectrum (`false`: phase only; see the module docs).
    pub equalise: bool,
    /// The gain across range ([`Radiometry`]).
    pub radiometry: Radiometry,
    /// The range [`Radiometry::Spreading`] keeps at unit gain, m: the recorded swath's middle.
    pub reference_m: f64,
    /// A phase the filter adds at (range m, Doppler Hz), rad: the chirp scaling algorithm's
    /// residual ([`crate::filters::chirp_scaling`]).
    pub residual: Option<&'a (dyn Fn(f64, f64) -> f64 + Sync + 'a)>,
}

/// The azimuth filter, laid out like the range-Doppler data (`[Doppler bin][range bin]`):
/// `w(f) · exp(iφ(f, R0)) · conj(ρ(f)) / |ρ(f)|² · g` over each range's Doppler band (around
/// its centroid: [`crate::scene::doppler`]), 0 outside, with `φ` the analytic phase
/// 4πR0·(D(f) − 1)/λ of each range bin at the Doppler f the beam saw, `ρ` the `residual` of
/// the range block's centre and `g` its mean in-band power (so the peak stays that of the
/// phase-only filter). With `equalise` false, `ρ = 1`: the phase-only filter (the beam's
/// taper and the ripple stay in the response). Each range's filter is then scaled for
/// `design_opts`' [`Radiometry`] and its residual phase added. The carrier phase −4πR0/λ
/// stays in the image, constant over each target's response.
///
/// The same for every azimuth length: each range bin's filter is designed at a fixed length
/// (twice the kernel's span), turned into its kernel in time, kept over the aperture and an
/// eighth of it each side (tapered there: the band's hard edges ring far beyond the
/// aperture) and transformed at the scene's length. So a strip focused in blocks and
/// whole convolves with one kernel, and the scene's margins ([`crate::scene::extent`]) cover it.
pub fn azimuth_filter(config: &Config, design_opts: &AzimuthDesign) -> Arc<[Complex32]> {
    let AzimuthDesign {
        window,
        equalise,
        radiometry,
        reference_m,
        residual,
    } = *design_opts;
    let r = &config.radar;
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let (near, bin) = (config.near_range_m(), r.range_bin_m());
    let (ahead, behind) = Extent::aperture(config);
    let margin = kernel_margin(ahead + behind);
    // The kernel's lines n (output line y reads echo line y − n): −behind .. ahead, and
    // the margin beyond.
    let (first, last) = (-((behind + margin) as i64), (ahead + margin) as i64);
    let mut design = config.clone();
    design.scene.lines = design_lines(config);
    let long = design.scene.lines;
    let mut planner = FftPlanner::<f64>::new();
    let inverse = planner.plan_fft_inverse(long);
    // The kernel's transform at the scene's length in f32: its values are stored in f32.
    let forward = FftPlanner::<f32>::new().plan_fft_forward(lines);
    let residual_fft = planner.plan_fft_forward(long);
    // Raised-cosine taper over the margins.
    let taper = |n: i64| {
        let outside = (-(behind as i64) - n).max(n - ahead as i64).max(0) as f64;
        match margin {
            0 => f64::from(u8::from(outside == 0.0)),
            m => 0.5 * (1.0 + (PI * outside / (m as f64 + 1.0)).cos()),
        }
    };
    // The taper over the kernel's lines, once for every column.
    let tapers: Vec<f64> = (first..=last).map(taper).collect();
    let shape = window.shape();
    let blocks = samples.div_ceil(REFERENCE_BLOCK);
    // Blocks designed at a time: a few per thread of rayon's pool (so that none waits long
    // for the slowest), their tiles within WAVE_BYTES.
    let threads = rayon::current_num_threads();
    let tile_bytes = (REFERENCE_BLOCK * lines * size_of::<Complex32>()).max(1);
    let wave = (WAVE_BYTES / tile_bytes).clamp(threads, 4 * threads);
    let design = &design;
    // Each block's filter as a tile of `lines` rows of its columns, so that it goes into
    // the rows by whole runs of values.
    let tile = |block: usize, scratch: &mut Scratch| -> Vec<Complex32> {
        let Scratch {
            spectrum,
            kernel,
            inverse_work,
            forward_work,
        } = scratch;
        let columns = (block * REFERENCE_BLOCK)..((block + 1) * REFERENCE_BLOCK).min(samples);
        let width = columns.len();
        let centre = (block * REFERENCE_BLOCK) as f64 + REFERENCE_BLOCK as f64 / 2.0 - 0.5;
        // The block's reference target at the block's effective velocity, each column's
        // band and phase at its own (`Radar::speed_by_range_mps`).
        let mut local = design.clone();
        local.radar = design.radar.at_range(near + centre * bin);
        let eq = match equalise {
            true => block_equaliser(&local, near + centre * bin, residual_fft.as_ref()),
            false => vec![Complex64::new(1.0, 0.0); long],
        };
        let mut out = vec![Complex32::new(0.0, 0.0); width * lines];
        for (i, k) in columns.enumerate() {
            let r0 = near + k as f64 * bin;
            local.radar.speed_mps = design.radar.speed_at(r0);
            design_column(&local, &shape, r0, &eq, residual, spectrum);
            inverse.process_with_scratch(spectrum, inverse_work);
            let gain = radiometry.azimuth_gain(&local, equalise, r0, reference_m) / long as f64;
            // Kernel line n wraps to n mod long in the design and n mod lines in the scene.
            kernel.fill(Complex32::new(0.0, 0.0));
            let mut from = first.rem_euclid(long as i64) as usize;
            let mut to = first.rem_euclid(lines as i64) as usize;
            for t in &tapers {
                kernel[to] += to32(spectrum[from] * (t * gain));
                from = if from + 1 == long { 0 } else { from + 1 };
                to = if to + 1 == lines { 0 } else { to + 1 };
            }
            forward.process_with_scratch(kernel, forward_work);
            for (b, &z) in kernel.iter().enumerate() {
                out[b * width + i] = z;
            }
        }
        out
    };
    let scratch = || Scratch {
        spectrum: vec![Complex64::new(0.0, 0.0); long],
        kernel: vec![Complex32::new(0.0, 0.0); lines],
        inverse_work: vec![Complex64::new(0.0, 0.0); inverse.get_inplace_scratch_len()],
        forward_work: vec![Complex32::new(0.0, 0.0); forward.get_inplace_scratch_len()],
    };
    let mut h = zeroed(lines * samples);
    let rows = unique(&mut h);
    // In waves, so that only a wave's tiles are held at once.
    for start in (0..blocks).step_by(wave) {
        let done: Vec<Vec<Complex32>> = (start..(start + wave).min(blocks))
            .into_par_iter()
            .map_init(scratch, |scratch, block| tile(block, scratch))
            .collect();
        // Into the rows, in parallel over them.
        par_rows(rows, samples, |b, row| {
            for (block, out) in (start..).zip(&done) {
                let width = out.len() / lines;
                let at = block * REFERENCE_BLOCK;
                row[at..at + width].copy_from_slice(&out[b * width..(b + 1) * width]);
            }
        });
    }
    h
}

/// What each thread of [`azimuth_filter`] reuses from column to column: the spectrum at the
/// design length, one column at the scene's, and the two transforms' work space.
struct Scratch {
    spectrum: Vec<Complex64>,
    kernel: Vec<Complex32>,
    inverse_work: Vec<Complex64>,
    forward_work: Vec<Complex32>,
}

/// The length the azimuth filter is designed at: twice the kernel's span, whatever the
/// scene's lines.
fn design_lines(config: &Config) -> usize {
    let (ahead, behind) = Extent::aperture(config);
    let span = ahead + behind + 2 * kernel_margin(ahead + behind) + 1;
    fft_length((2 * span).max(64))
}

/// The equaliser conj(ρ)/|ρ|²·g of the range block centred at `r0` over `design`'s lines.
fn block_equaliser(design: &Config, r0: f64, fft: &dyn rustfft::Fft<f64>) -> Vec<Complex64> {
    let (lines, prf) = (design.scene.lines, design.radar.prf_hz);
    let band = Band::at(design, r0);
    let in_band: Vec<bool> = (0..lines)
        .map(|b| band.contains(band.doppler(b, lines, prf)))
        .collect();
    equaliser(&residual(design, r0, fft), &in_band)
}

/// The filter of range `r0` over `design`'s lines into `spectrum`, equalised by `eq`, with
/// the `residual` phase added.
fn design_column(
    design: &Config,
    shape: &Shape,
    r0: f64,
    eq: &[Complex64],
    residual: Option<&(dyn Fn(f64, f64) -> f64 + Sync)>,
    spectrum: &mut [Complex64],
) {
    let r = &design.radar;
    let lines = design.scene.lines;
    let band = Band::at(design, r0);
    let doppler_bin = r.prf_hz / lines as f64;
    for (b, z) in spectrum.iter_mut().enumerate() {
        let f = band.doppler(b, lines, r.prf_hz);
        let offset = f - band.middle;
        let w = shape.at_hz(offset, band.width) * edge_share(offset, band.width, doppler_bin);
        *z = match w == 0.0 {
            true => Complex64::new(0.0, 0.0),
            false => {
                let extra = residual.map_or(0.0, |phase| phase(r0, f));
                Complex64::from_polar(w, phase(r, f, r0) + extra) * eq[b]
            }
        };
    }
}
