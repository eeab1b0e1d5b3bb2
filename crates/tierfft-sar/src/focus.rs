//! Range-Doppler focusing: range compression, azimuth FFT, range cell migration correction
//! (RCMC) in the range-Doppler domain, azimuth compression.
//!
//! For a target at closest range R0, after the azimuth FFT its energy at Doppler f sits at
//! range R0/D(f) with D(f) = sqrt(1 − (λf / 2v)²) (zero squint), with phase −4πR0·D(f)/λ.
//! RCMC moves it back to R0 with a 16-tap Hann-windowed sinc interpolator along range;
//! azimuth compression multiplies by exp(+i4πR0·(D(f) − 1)/λ) (times the azimuth window) and
//! transforms back (the carrier phase −4πR0/λ stays in the image).
//!
//! Data stay `[lines][samples]` (azimuth × range) throughout. Fused ([`FocusOptions::fused`]),
//! the scene is uploaded once and every step runs on the device: range compression is one
//! FFT → filter → inverse FFT kernel per line; the azimuth FFTs read columns in place (no
//! transposes); RCMC resamples into a second buffer; the azimuth filter is fused into the
//! inverse azimuth FFT's load. Unfused, every step is separate and goes through the host:
//! FFT, filter multiply on the CPU, inverse FFT; the azimuth FFTs run over rows between two
//! transposes. RCMC is tierfft's resampler on the focusing device in both.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use num_complex::{Complex32, Complex64};
use rayon::prelude::*;
use tierfft::backend::Resampler;
use tierfft::distributed::{Rows, copy_rows};
use tierfft::{Device, DeviceBuffer, DeviceKind, Fft, FftSpec, PointOp};

use crate::SarError;
use crate::azimuth::{AzimuthDesign, azimuth_filter};
use crate::coupling;
use crate::csa::{self, Algorithm};
use crate::extent::Extent;
use crate::params::Config;
use crate::radiometry::Radiometry;
use crate::range::{Window, range_filter};
pub use crate::rcmc::RCMC_TAPS;
use crate::rcmc::rcmc_spec;

/// How to focus.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FocusOptions {
    /// Weighting of the range matched filter.
    pub range_window: Window,
    /// Weighting of the azimuth filter over the Doppler bandwidth.
    pub azimuth_window: Window,
    /// Range cell migration correction; off only to show what it corrects.
    pub rcmc: bool,
    /// Divide the azimuth filter by the spectrum of a reference target lit by the config's
    /// azimuth pattern (see [`crate::azimuth`], [`crate::pattern`]); off: phase only.
    pub azimuth_equalisation: bool,
    /// Fused GPU steps (see the module docs); `false` runs every step separately.
    pub fused: bool,
    /// Process with margins of zeros at efficient FFT lengths, the image cropped to the
    /// recorded scene ([`crate::extent`]); `false` processes at the recorded size, the
    /// convolutions wrapping around its edges.
    pub margins: bool,
    /// Secondary range compression with the bulk migration at mid-swath, in the 2-D
    /// frequency domain ([`crate::coupling`]): `None` when the scene needs it
    /// ([`crate::coupling::needed`]: a squinted beam's range walk, or a long aperture at a low
    /// carrier), `Some` to force it on or off. Not with distributed focusing. The chirp
    /// scaling algorithm always has it (`Some(false)` is refused).
    pub src: Option<bool>,
    /// Range-Doppler or chirp scaling ([`crate::csa`]).
    pub algorithm: Algorithm,
    /// How the image's gain varies with range ([`Radiometry`]).
    pub radiometry: Radiometry,
}

impl FocusOptions {
    /// Whether focusing `config`'s scene with these options runs SRC.
    pub fn src_for(&self, config: &Config) -> bool {
        match self.algorithm {
            Algorithm::Csa => true,
            Algorithm::Rda => self.src.unwrap_or_else(|| coupling::needed(config)),
        }
    }

    /// The azimuth filter these options ask for, its radiometry referred to `reference_m`,
    /// with no residual phase.
    pub(crate) fn azimuth_design(&self, reference_m: f64) -> AzimuthDesign<'static> {
        AzimuthDesign {
            window: self.azimuth_window,
            equalise: self.azimuth_equalisation,
            radiometry: self.radiometry,
            reference_m,
            residual: None,
        }
    }

    /// Checks that the options go together.
    pub fn validate(&self) -> Result<(), SarError> {
        let refuse = |what: &str| {
            Err(SarError::Config(format!(
                "the chirp scaling algorithm corrects migration and coupling in its phase \
                 multiplies: {what} applies to the Range-Doppler algorithm only"
            )))
        };
        match self.algorithm {
            Algorithm::Csa if !self.rcmc => refuse("switching RCMC off"),
            Algorithm::Csa if self.src == Some(false) => refuse("switching SRC off"),
            _ => Ok(()),
        }
    }
}

impl Default for FocusOptions {
    fn default() -> Self {
        FocusOptions {
            range_window: Window::None,
            azimuth_window: Window::None,
            rcmc: true,
            azimuth_equalisation: true,
            fused: true,
            margins: true,
            src: None,
            algorithm: Algorithm::Rda,
            radiometry: Radiometry::Normalised,
        }
    }
}

/// Wall-clock time of each focusing step, seconds. Fused, the steps run on device-resident
/// data (each timed to its completion) and the copies are [`StepTimings::transfer_s`];
/// unfused, each step includes its own copies.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct StepTimings {
    /// Copying the scene to the device and the image back (fused only).
    pub transfer_s: f64,
    /// Range FFT, matched filter, inverse FFT.
    pub range_compression_s: f64,
    /// Azimuth FFT (with the transposes when unfused; unfused chirp scaling, with its
    /// scaling multiply).
    pub azimuth_fft_s: f64,
    /// Secondary range compression and the bulk migration (range FFT, filter, inverse FFT);
    /// 0 when off. With the chirp scaling algorithm: its scaling, range compression, SRC and
    /// bulk RCMC (multiply, range FFT, filter, inverse FFT; the scaling multiply is in
    /// `azimuth_fft_s` when unfused), and `range_compression_s` and `rcmc_s` are 0.
    pub src_s: f64,
    /// Range cell migration correction.
    pub rcmc_s: f64,
    /// Azimuth filter and inverse azimuth FFT (with the transposes when unfused).
    pub azimuth_compression_s: f64,
}

impl StepTimings {
    /// Adds `other`'s times to these (a strip's blocks).
    pub fn add(&mut self, other: &StepTimings) {
        self.transfer_s += other.transfer_s;
        self.range_compression_s += other.range_compression_s;
        self.azimuth_fft_s += other.azimuth_fft_s;
        self.src_s += other.src_s;
        self.rcmc_s += other.rcmc_s;
        self.azimuth_compression_s += other.azimuth_compression_s;
    }

    /// The four steps and the copies together, seconds.
    pub fn total_s(&self) -> f64 {
        self.transfer_s
            + self.range_compression_s
            + self.azimuth_fft_s
            + self.src_s
            + self.rcmc_s
            + self.azimuth_compression_s
    }
}

/// Memory a focusing run needs at its peak, bytes (an estimate from the scene-sized buffers
/// alive at once; see [`memory_needs`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemoryNeeds {
    /// Host memory.
    pub host: u64,
    /// Memory of the device itself, where it has its own (CUDA); 0 where the device's
    /// buffers are host memory or cannot be counted.
    pub device: u64,
}

/// Scene-sized buffers alive at once on the host when the device's buffers are host memory
/// (the CPU, lavapipe, unified-memory GPUs): the echoes, the azimuth filter and its shared
/// copy, the device's scene and RCMC output, the transposed filter and one transform's
/// scratch. Measured: peak resident memory 6.9 × the scene on the CPU and 6.75 × on lavapipe
/// for the default 4096² scene (`/usr/bin/time -f %M tierfft sar`).
const HOST_SCENES_SHARED: u64 = 7;

/// Scene-sized buffers on the host when the device has its own memory (CUDA): the echoes and
/// the azimuth filter with its shared copy. Measured on the H100 (`scripts/device-run.sh
/// sarcli`): peak resident memory 2.2 × the scene at 16384² (4560 MiB), 3.8 × at 4096²
/// (484 MiB, most of it the CUDA libraries).
const HOST_SCENES_DISCRETE: u64 = 3;

/// Scene-sized buffers on a device with its own memory: the scene, RCMC's output, the azimuth
/// filter.
const DEVICE_SCENES: u64 = 3;

/// The memory focusing `config`'s scene on `device` with `opts` needs, before anything is
/// allocated, at the `extent` it is processed at: SRC adds one scene-sized filter, on the
/// device and its host copy, and chirp scaling two; `None` when the scene's size overflows
/// the address space.
pub fn memory_needs(
    config: &Config,
    device: &Device,
    extent: &Extent,
    opts: &FocusOptions,
) -> Option<MemoryNeeds> {
    let recorded = config.scene_bytes()?;
    let scene = extent.processing_config(config).scene_bytes()?;
    let (host, on_device) = match device.kind() {
        DeviceKind::Cuda => (HOST_SCENES_DISCRETE, DEVICE_SCENES),
        _ => (HOST_SCENES_SHARED, 0),
    };
    let filters = match (opts.algorithm, opts.src_for(config)) {
        (Algorithm::Csa, _) => 2,
        (Algorithm::Rda, true) => 1,
        (Algorithm::Rda, false) => 0,
    };
    let (host, on_device) = match on_device {
        0 => (host + filters, 0),
        n => (host + filters, n + filters),
    };
    // The caller's echoes are recorded-size; the rest is processed-size.
    Some(MemoryNeeds {
        host: scene.checked_mul(host - 1)?.checked_add(recorded)?,
        device: scene.checked_mul(on_device)?,
    })
}

/// The focusing steps of one scene size, planned (and compiled) for one device. Building it
/// checks that the scene fits the device, before any work.
pub struct Focuser {
    /// The scene as recorded, and what it is processed at.
    extent: Extent,
    device: Device,
    steps: Steps,
    /// `None` when RCMC is switched off, and with chirp scaling.
    rcmc: Option<Resampler>,
    algorithm: Algorithm,
}

/// The tierfft plans behind each step.
// One per scene, never moved in a hot loop: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
enum Steps {
    Fused(Fused),
    Unfused(Unfused),
}

/// Fused steps on device-resident data.
struct Fused {
    /// Range compression as one chained plan: one kernel, or (lines longer than one pass)
    /// the forward passes then the inverse's, the filter fused into the first one's load.
    /// `None` with chirp scaling, which compresses in the 2-D frequency domain.
    range: Option<Fft>,
    azimuth: Fft,
    /// SRC: the range FFT of the range-Doppler scene, the filter (one per Doppler row) and
    /// the inverse, chained (see [`range_doppler_chain`]). With chirp scaling, the scaling
    /// multiply rides on the range FFT's load and the filter is also range compression and
    /// the bulk RCMC.
    src: Option<Vec<Fft>>,
    azimuth_inverse: Fft,
    /// The scene on the device and, with RCMC, the array it is resampled into: made when
    /// the steps are planned and kept, so that focusing copies and computes only.
    buffers: Mutex<SceneBuffers>,
}

/// A fused focuser's device arrays.
struct SceneBuffers {
    scene: DeviceBuffer,
    /// RCMC's output; with margins also where the recorded lines are staged on their way in
    /// and out.
    moved: Option<DeviceBuffer>,
}

/// Separate steps through the host.
struct Unfused {
    /// Range compression: the FFT, its inverse and the filter; `None` with chirp scaling.
    range: Option<(Fft, Fft, Vec<Complex32>)>,
    azimuth: Fft,
    /// Chirp scaling's multiply after the azimuth FFT.
    scaling: Option<Vec<Complex32>>,
    /// SRC: the range FFTs of the range-Doppler scene and the filter between them.
    src: Option<(Fft, Fft, Vec<Complex32>)>,
    azimuth_inverse: Fft,
    azimuth_filter: Vec<Complex32>,
}

impl Focuser {
    /// Plans every step of `config`'s scene on `device`.
    pub fn new(
        device: &Device,
        recorded: &Config,
        opts: FocusOptions,
    ) -> Result<Focuser, SarError> {
        recorded.validate()?;
        Focuser::at(device, recorded, opts, Extent::of(recorded, opts.margins))
    }

    /// Plans the steps of the validated `recorded` scene processed at `extent`.
    pub(crate) fn at(
        device: &Device,
        recorded: &Config,
        opts: FocusOptions,
        extent: Extent,
    ) -> Result<Focuser, SarError> {
        opts.validate()?;
        let processing = extent.processing_config(recorded);
        let config = &processing;
        let (lines, samples) = (config.scene.lines, config.scene.samples);
        let csa = opts.algorithm == Algorithm::Csa;
        let range_rows = FftSpec::new(samples).batch(lines);
        // SRC, chirp scaling and radiometry refer to the recorded swath's middle; RCMC then
        // moves what is left of the migration.
        let reference_m = extent.mid_swath_m(config);
        let residual = |r0: f64, fd: f64| csa::residual_phase(config, reference_m, r0, fd);
        let az_filter = azimuth_filter(
            config,
            &AzimuthDesign {
                residual: if csa { Some(&residual) } else { None },
                ..opts.azimuth_design(reference_m)
            },
        );
        // The range-frequency filter between the range FFT and its inverse: SRC (RDA), or
        // range compression with SRC and the bulk migration (CSA).
        let src = match opts.algorithm {
            Algorithm::Csa => Some(csa::range_filter_2d(config, reference_m, opts.range_window)),
            Algorithm::Rda => opts
                .src_for(config)
                .then(|| coupling::filter(config, reference_m, opts.rcmc)),
        };
        let scaling = csa.then(|| csa::scaling(config, reference_m));
        let range_filter = (!csa).then(|| range_filter(&config.radar, samples, opts.range_window));
        let bulk_m = if src.is_some() { reference_m } else { 0.0 };
        let steps = if opts.fused {
            let range = match range_filter {
                // Lines longer than one on-chip pass chain over passes of their own.
                Some(filter) => Some(
                    device.plan(
                        &range_rows
                            .clone()
                            .then_multiply_and_invert(filter)
                            .normalized(),
                    )?,
                ),
                None => None,
            };
            let columns = FftSpec::new(lines).batch(samples).columns();
            let buffers = SceneBuffers {
                scene: device.zeros(lines * samples)?,
                // RCMC's output, which also stages the recorded lines with margins.
                moved: match (opts.rcmc && !csa) || !extent.is_recorded_size() {
                    true => Some(device.zeros(lines * samples)?),
                    false => None,
                },
            };
            device.prepare_transfers()?;
            let src = match src {
                Some(h) => Some(range_doppler_chain(device, &range_rows, scaling, h)?),
                None => None,
            };
            Steps::Fused(Fused {
                range,
                azimuth: device.plan(&columns)?,
                src,
                azimuth_inverse: device.plan(
                    &columns
                        .inverse()
                        .normalized()
                        .on_load(PointOp::MultiplyEach(az_filter.into())),
                )?,
                buffers: Mutex::new(buffers),
            })
        } else {
            let rows = FftSpec::new(lines).batch(samples);
            let inverse = range_rows.clone().inverse().normalized();
            let src = match src {
                Some(h) => Some((device.plan(&range_rows)?, device.plan(&inverse)?, h)),
                None => None,
            };
            let range = match range_filter {
                Some(filter) => Some((device.plan(&range_rows)?, device.plan(&inverse)?, filter)),
                None => None,
            };
            Steps::Unfused(Unfused {
                range,
                azimuth: device.plan(&rows)?,
                scaling,
                src,
                azimuth_inverse: device.plan(&rows.inverse().normalized())?,
                azimuth_filter: az_filter,
            })
        };
        let rcmc = match opts.rcmc && !csa {
            true => Some(device.plan_resample(&rcmc_spec(config, bulk_m))?),
            false => None,
        };
        Ok(Focuser {
            algorithm: opts.algorithm,
            extent,
            device: device.clone(),
            steps,
            rcmc,
        })
    }

    /// The name of the step between the range FFT and its inverse.
    fn src_step(&self) -> &'static str {
        match self.algorithm {
            Algorithm::Csa => "range compression and SRC (2-D)",
            Algorithm::Rda => "SRC",
        }
    }

    /// Whether the steps include secondary range compression.
    pub fn src(&self) -> bool {
        match &self.steps {
            Steps::Fused(f) => f.src.is_some(),
            Steps::Unfused(u) => u.src.is_some(),
        }
    }

    /// The extent the scene is processed at.
    pub fn extent(&self) -> Extent {
        self.extent
    }

    /// Focuses raw echoes `[lines][samples]` into a complex image of the same shape, in
    /// place; `on_step` hears each step's name before it starts.
    pub fn focus(
        &self,
        data: &mut [Complex32],
        mut on_step: impl FnMut(&str),
    ) -> Result<StepTimings, SarError> {
        let (lines, samples) = (self.extent.lines, self.extent.samples);
        if data.len() != lines * samples {
            return Err(SarError::Config(format!(
                "the data hold {} samples, the scene {lines} × {samples}",
                data.len()
            )));
        }
        let mut t = StepTimings::default();
        let mut clock = Instant::now();
        let mut lap = || {
            let s = clock.elapsed().as_secs_f64();
            clock = Instant::now();
            s
        };
        let Fused {
            range,
            azimuth,
            src,
            azimuth_inverse,
            buffers,
        } = match &self.steps {
            Steps::Fused(steps) => steps,
            Steps::Unfused(steps) => {
                self.focus_unfused(steps, data, on_step, &mut lap, &mut t)?;
                return Ok(t);
            }
        };
        let sync = || self.device.synchronize();
        let mut buffers = buffers.lock().map_err(|_| {
            SarError::Config("an earlier focusing run panicked while holding the scene".into())
        })?;
        let SceneBuffers { scene, moved } = &mut *buffers;
        on_step("upload");
        self.upload(data, scene, moved.as_mut())?;
        sync()?;
        t.transfer_s = lap();
        if let Some(range) = range {
            on_step("range compression");
            range.process_buffer(scene)?;
            sync()?;
            t.range_compression_s = lap();
        }
        on_step("azimuth FFT");
        azimuth.process_buffer(scene)?;
        sync()?;
        t.azimuth_fft_s = lap();
        if let Some(src) = src {
            on_step(self.src_step());
            for plan in src {
                plan.process_buffer(scene)?;
            }
            sync()?;
            t.src_s = lap();
        }
        if self.rcmc.is_some() {
            on_step("RCMC");
        }
        let focused = match (&self.rcmc, moved.as_mut()) {
            (Some(rcmc), Some(moved)) => {
                rcmc.process_buffer(scene, moved)?;
                moved
            }
            _ => scene,
        };
        sync()?;
        t.rcmc_s = lap();
        on_step("azimuth compression");
        azimuth_inverse.process_buffer(focused)?;
        sync()?;
        t.azimuth_compression_s = lap();
        on_step("download");
        // The image is where RCMC wrote it; the other array stages the recorded part.
        match (self.rcmc.is_some(), moved.as_mut()) {
            (true, Some(moved)) => self.download(moved, Some(scene), data)?,
            (_, moved) => self.download(scene, moved, data)?,
        }
        t.transfer_s += lap();
        Ok(t)
    }

    /// Copies the recorded echoes into the device's scene: as recorded into the start of
    /// `staging` (at full copy speed), then on the device into the scene's lines, whose
    /// margins are zeroed first.
    fn upload(
        &self,
        data: &[Complex32],
        scene: &mut DeviceBuffer,
        staging: Option<&mut DeviceBuffer>,
    ) -> Result<(), SarError> {
        let staging = match staging {
            Some(staging) if !self.extent.is_recorded_size() => staging,
            _ => return Ok(scene.write(data)?),
        };
        staging.view_mut(0..data.len())?.write(data)?;
        scene.fill_zeros()?;
        Ok(copy_rows(staging, scene, &self.lines(false))?)
    }

    /// Copies the recorded part of the focused `image` into `data`: on the device into the
    /// start of `staging`, then to the host.
    fn download(
        &self,
        image: &DeviceBuffer,
        staging: Option<&mut DeviceBuffer>,
        data: &mut [Complex32],
    ) -> Result<(), SarError> {
        let staging = match staging {
            Some(staging) if !self.extent.is_recorded_size() => staging,
            _ => return Ok(image.read_into(data)?),
        };
        copy_rows(image, staging, &self.lines(true))?;
        Ok(staging.view_mut(0..data.len())?.read_into(data)?)
    }

    /// The recorded lines between a contiguous array and the processed scene's layout: out
    /// of the scene (`from_scene`), or into it.
    fn lines(&self, from_scene: bool) -> Rows {
        let e = &self.extent;
        let (src_pitch, dst_pitch) = match from_scene {
            true => (e.padded_samples, e.samples),
            false => (e.samples, e.padded_samples),
        };
        Rows {
            rows: e.lines,
            row_len: e.samples,
            src: 0,
            src_pitch,
            dst: 0,
            dst_pitch,
        }
    }

    /// The unfused steps, each through the host.
    fn focus_unfused(
        &self,
        steps: &Unfused,
        data: &mut [Complex32],
        on_step: impl FnMut(&str),
        lap: &mut impl FnMut() -> f64,
        t: &mut StepTimings,
    ) -> Result<(), SarError> {
        let e = self.extent;
        if !e.is_recorded_size() {
            // The whole scene padded on the host (this path is the fused one's reference).
            let mut padded = e.pad(data);
            self.focus_unfused_at(steps, &mut padded, on_step, lap, t)?;
            e.crop(&padded, data);
            return Ok(());
        }
        self.focus_unfused_at(steps, data, on_step, lap, t)
    }

    /// The unfused steps on a scene of the processed extent.
    fn focus_unfused_at(
        &self,
        steps: &Unfused,
        data: &mut [Complex32],
        mut on_step: impl FnMut(&str),
        lap: &mut impl FnMut() -> f64,
        t: &mut StepTimings,
    ) -> Result<(), SarError> {
        let Unfused {
            range,
            azimuth,
            scaling,
            src,
            azimuth_inverse,
            azimuth_filter,
        } = steps;
        let (lines, samples) = (self.extent.padded_lines, self.extent.padded_samples);
        if let Some((forward, inverse, filter)) = range {
            on_step("range compression");
            forward.process(data)?;
            multiply_rows(data, filter);
            inverse.process(data)?;
            t.range_compression_s = lap();
        }
        on_step("azimuth FFT");
        over_columns(azimuth, data, lines, samples)?;
        if let Some(h) = scaling {
            multiply(data, h);
        }
        t.azimuth_fft_s = lap();
        if let Some((forward, inverse, h)) = src {
            on_step(self.src_step());
            forward.process(data)?;
            multiply(data, h);
            inverse.process(data)?;
            t.src_s = lap();
        }
        if let Some(rcmc) = &self.rcmc {
            on_step("RCMC");
            let input = data.to_vec();
            rcmc.process(&input, data)?;
        }
        t.rcmc_s = lap();
        on_step("azimuth compression");
        multiply(data, azimuth_filter);
        over_columns(azimuth_inverse, data, lines, samples)?;
        t.azimuth_compression_s = lap();
        Ok(())
    }
}

/// SRC's (or chirp scaling's) plans over the range-Doppler rows `rows`: the range FFT (with
/// the `scaling` multiply on its load), the filter `h` (one per element) and the inverse as
/// one chain in one kernel; or the range FFT and then the inverse with `h` on its load, where
/// the device cannot bind the chain's scene-sized vectors together (lavapipe binds 128 MiB)
/// or the planner splits the chain. Split, it was slower than the two plans in
/// `tierfft sar` on the H100 at the processed lengths 4800 and 8960 (SRC 0.7 against 0.5 ms,
/// 2.3 against 1.5; chirp scaling's 1.1 against 0.6, 2.8 against 1.6), although the
/// power-of-two bench steps gained a little.
fn range_doppler_chain(
    device: &Device,
    rows: &FftSpec,
    scaling: Option<Vec<Complex32>>,
    h: Vec<Complex32>,
) -> Result<Vec<Fft>, SarError> {
    let forward = match scaling {
        Some(scaling) => rows.clone().on_load(PointOp::MultiplyEach(scaling.into())),
        None => rows.clone(),
    };
    let h: Arc<[Complex32]> = h.into();
    let chain = forward
        .clone()
        .then_multiply_and_invert(h.clone())
        .normalized();
    match device.plan(&chain) {
        Ok(plan) if !plan.plan().is_some_and(|p| p.split_chain) => Ok(vec![plan]),
        Ok(_) | Err(tierfft::Error::TooLarge { .. }) => Ok(vec![
            device.plan(&forward)?,
            device.plan(
                &rows
                    .clone()
                    .inverse()
                    .normalized()
                    .on_load(PointOp::MultiplyEach(h)),
            )?,
        ]),
        Err(e) => Err(e.into()),
    }
}

/// Focuses raw echoes `[lines][samples]` in place with the default options and `window` in
/// range (plans, then runs; see [`Focuser`] to reuse the plans).
pub fn focus(
    device: &Device,
    config: &Config,
    data: &mut [Complex32],
    window: Window,
) -> Result<StepTimings, SarError> {
    let opts = FocusOptions {
        range_window: window,
        ..FocusOptions::default()
    };
    Focuser::new(device, config, opts)?.focus(data, |_| {})
}

/// Multiplies `data` by `h` element by element.
fn multiply(data: &mut [Complex32], h: &[Complex32]) {
    data.iter_mut().zip(h).for_each(|(z, h)| *z *= h);
}

/// Multiplies every row of `data` by `filter` (one row's worth).
fn multiply_rows(data: &mut [Complex32], filter: &[Complex32]) {
    for row in data.chunks_mut(filter.len()) {
        row.iter_mut().zip(filter).for_each(|(z, h)| *z *= h);
    }
}

/// Runs a rows plan of `lines`-point transforms over the columns of `data`
/// (`[lines][samples]`), through two transposes.
fn over_columns(
    fft: &Fft,
    data: &mut [Complex32],
    lines: usize,
    samples: usize,
) -> Result<(), SarError> {
    let mut by_range = transpose(data, lines, samples);
    fft.process(&mut by_range)?;
    data.copy_from_slice(&transpose(&by_range, samples, lines));
    Ok(())
}

/// Runs `row(index, row)` over the rows of `data` (`samples` long), in parallel on rayon's
/// pool.
pub(crate) fn par_rows(
    data: &mut [Complex32],
    samples: usize,
    row: impl Fn(usize, &mut [Complex32]) + Sync,
) {
    data.par_chunks_mut(samples)
        .enumerate()
        .for_each(|(i, r)| row(i, r));
}

pub(crate) fn to32(z: Complex64) -> Complex32 {
    Complex32::new(z.re as f32, z.im as f32)
}

/// `src` (`rows` × `cols`, row-major) transposed, in cache-sized tiles.
pub fn transpose(src: &[Complex32], rows: usize, cols: usize) -> Vec<Complex32> {
    const TILE: usize = 32;
    let mut dst = vec![Complex32::new(0.0, 0.0); src.len()];
    for r0 in (0..rows).step_by(TILE) {
        for c0 in (0..cols).step_by(TILE) {
            for r in r0..(r0 + TILE).min(rows) {
                for c in c0..(c0 + TILE).min(cols) {
                    dst[c * rows + r] = src[r * cols + c];
                }
            }
        }
    }
    dst
}
