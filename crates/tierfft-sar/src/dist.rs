//! Range-Doppler focusing of a scene spread over several devices (GPUs over NCCL, or CPU
//! ranks), for scenes larger than one device holds or indexes.
//!
//! Each rank takes a block of lines and compresses them in range (the fused chain, as on one
//! device). One all-to-all then gives each rank every line of a block of range bins, widened
//! by a halo as wide as the largest range migration plus half the interpolator, so that the
//! azimuth FFT, RCMC (which reads along range) and azimuth compression all run on the rank's
//! own data. Each rank keeps its own range bins of the focused image. The image equals one
//! device's: every step sees the same input samples (the halo holds every neighbour RCMC
//! reads; at the scene's edges the block ends where the scene does).

use std::sync::{Arc, Mutex};
use std::time::Instant;

use num_complex::Complex32;
use tierfft::backend::Resampler;
use tierfft::backend::cuda::CudaDevice;
use tierfft::distributed::{
    Exchange, LocalExchange, Moves, NcclExchange, Rounds, Rows, Slabs, check_group, copy_rows,
    redistribute,
};
use tierfft::resample::ResampleSpec;
use tierfft::{Device, DeviceKind, Fft, FftSpec, PointOp};

use crate::SarError;
use crate::azimuth::azimuth_filter;
use crate::csa::Algorithm;
use crate::extent::Extent;
use crate::focus::{FocusOptions, MemoryNeeds, StepTimings};
use crate::params::Config;
use crate::range::range_filter;
use crate::rcmc::{RCMC_TAPS, rcmc_spec};

/// Focusing steps planned for the devices of one process, rank `i` on device `i`.
pub struct DistFocuser {
    /// The scene as processed (with margins, unless asked without).
    config: Config,
    /// The recorded scene within it.
    extent: Extent,
    slabs: Slabs,
    ranks: Vec<RankFocus>,
}

/// Wall-clock time of each step over all ranks (each from a common start until every rank
/// has finished it), seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct DistTimings {
    /// The steps as on one device; `transfer_s` is the upload of each rank's lines and the
    /// download of its part of the image.
    pub steps: StepTimings,
    /// The all-to-all from blocks of lines to blocks of range bins (with its packing).
    pub exchange_s: f64,
}

impl DistTimings {
    /// Every step and the exchange, seconds.
    pub fn total_s(&self) -> f64 {
        self.steps.total_s() + self.exchange_s
    }
}

/// The memory focusing `config`'s scene over `ranks` devices like `device` needs: on the
/// host, the echoes, the image as the ranks return it and the azimuth filter with its blocks;
/// on each device with its own memory (CUDA), its lines, staging, its block of range bins
/// twice (RCMC's output) with their azimuth filter, and its part of the image: about 6 / ranks
/// scenes, of the `extent` processed (with margins, the echoes are also padded on the host
/// once). `None` when the scene's size overflows the address space.
pub fn memory_needs(
    config: &Config,
    device: &Device,
    ranks: usize,
    extent: &Extent,
) -> Option<MemoryNeeds> {
    let scene = extent.processing_config(config).scene_bytes()?;
    let padded_copy = match extent.is_recorded_size() {
        true => 0,
        false => scene,
    };
    Some(MemoryNeeds {
        host: scene.checked_mul(4)?.checked_add(padded_copy)?,
        device: match device.kind() {
            DeviceKind::Cuda => scene.checked_mul(6)? / ranks.max(1) as u64,
            _ => 0,
        },
    })
}

/// One rank's plans.
struct RankFocus {
    device: Device,
    exchange: Mutex<Box<dyn Exchange>>,
    range: Fft,
    azimuth: Fft,
    azimuth_inverse: Fft,
    rcmc: Option<Resampler>,
    moves: Moves,
    /// The rank's own range bins, out of its widened block into its part of the image.
    own: Rows,
}

/// Range bins RCMC reads beyond an output bin, on either side: the largest migration of
/// any row at either end of the scene (positions are linear in the bin), plus half the
/// interpolator and one for rounding.
fn rcmc_halo(spec: &ResampleSpec) -> usize {
    let last = spec.n.saturating_sub(1) as f64;
    let reach = spec
        .rows
        .iter()
        .map(|p| p.offset.abs().max((p.offset + p.slope * last).abs()))
        .fold(0.0, f64::max);
    reach.ceil() as usize + RCMC_TAPS / 2 + 1
}

impl DistFocuser {
    /// Plans `config`'s scene over `devices`, rank `i` being `exchanges[i].rank()`.
    pub fn new(
        recorded: &Config,
        opts: FocusOptions,
        devices: Vec<Device>,
        exchanges: Vec<Box<dyn Exchange>>,
    ) -> Result<DistFocuser, SarError> {
        recorded.validate()?;
        let extent = Extent::of(recorded, opts.margins);
        let config = &extent.processing_config(recorded);
        if !opts.fused {
            return Err(SarError::Config(
                "distributed focusing runs the fused steps on each device".into(),
            ));
        }
        if devices.len() != exchanges.len() || devices.is_empty() {
            return Err(SarError::Config(format!(
                "{} devices and {} exchanges: one of each per rank",
                devices.len(),
                exchanges.len()
            )));
        }
        check_group(&exchanges)?;
        // Rank order: each rank's lines and range bins follow its place in the group.
        let mut pairs: Vec<_> = devices.into_iter().zip(exchanges).collect();
        pairs.sort_by_key(|(_, e)| e.rank());
        let (lines, samples) = (config.scene.lines, config.scene.samples);
        if opts.algorithm == Algorithm::Csa {
            return Err(SarError::Config(
                "distributed focusing runs the Range-Doppler algorithm only (--algorithm rda)"
                    .into(),
            ));
        }
        if opts.src == Some(true) {
            return Err(SarError::Config(
                "distributed focusing has no secondary range compression yet (its range \
                 transforms run before the exchange, on whole lines)"
                    .into(),
            ));
        }
        let rcmc = rcmc_spec(config, 0.0);
        let halo = if opts.rcmc { rcmc_halo(&rcmc) } else { 0 };
        let slabs = Slabs::with_halo(&[lines, samples], pairs.len(), halo).ok_or_else(|| {
            SarError::Config(format!(
                "{} ranks cannot each take lines and range bins of a {lines} × {samples} scene",
                pairs.len()
            ))
        })?;
        let range_filter: Arc<[Complex32]> =
            range_filter(&config.radar, samples, opts.range_window).into();
        let az_filter = azimuth_filter(config, &opts.azimuth_design(extent.mid_swath_m(config)));
        let mut ranks = Vec::with_capacity(pairs.len());
        for (device, exchange) in pairs {
            let r = exchange.rank();
            let (block, own) = (slabs.cols(r), slabs.own_cols(r));
            let width = block.len();
            let columns = FftSpec::new(lines).batch(width).columns();
            let filter: Vec<Complex32> = az_filter
                .chunks(samples)
                .flat_map(|row| row[block.clone()].iter().copied())
                .collect();
            let rcmc = match opts.rcmc {
                // The same positions as the whole scene's, counted from the block's start.
                true => Some(
                    device.plan_resample(&ResampleSpec::new(
                        width,
                        rcmc.rows
                            .iter()
                            .map(|p| p.from_sample(block.start))
                            .collect(),
                    ))?,
                ),
                false => None,
            };
            ranks.push(RankFocus {
                range: device.plan(
                    &FftSpec::new(samples)
                        .batch(slabs.rows(r).len())
                        .then_multiply_and_invert(range_filter.clone())
                        .normalized(),
                )?,
                azimuth: device.plan(&columns)?,
                azimuth_inverse: device.plan(
                    &columns
                        .inverse()
                        .normalized()
                        .on_load(PointOp::MultiplyEach(filter.into())),
                )?,
                rcmc,
                moves: slabs.to_transposed(r),
                own: Rows {
                    rows: lines,
                    row_len: own.len(),
                    src: own.start - block.start,
                    src_pitch: width,
                    dst: 0,
                    dst_pitch: own.len(),
                },
                device,
                exchange: Mutex::new(exchange),
            });
        }
        Ok(DistFocuser {
            config: config.clone(),
            extent,
            slabs,
            ranks,
        })
    }

    /// `ranks` CPU ranks exchanging through memory.
    pub fn on_cpu(
        config: &Config,
        opts: FocusOptions,
        ranks: usize,
    ) -> Result<DistFocuser, SarError> {
        let exchanges = LocalExchange::group(ranks)
            .into_iter()
            .map(|e| Box::new(e) as Box<dyn Exchange>)
            .collect();
        DistFocuser::new(config, opts, vec![Device::cpu(); ranks], exchanges)
    }

    /// One rank per GPU, exchanging through NCCL.
    pub fn on_cuda(
        config: &Config,
        opts: FocusOptions,
        gpus: &[Arc<CudaDevice>],
    ) -> Result<DistFocuser, SarError> {
        let exchanges = NcclExchange::group(gpus)?
            .into_iter()
            .map(|e| Box::new(e) as Box<dyn Exchange>)
            .collect();
        let devices = gpus.iter().map(|g| Device::from(g.clone())).collect();
        DistFocuser::new(config, opts, devices, exchanges)
    }

    /// The decomposition: lines per rank, and range bins (with the RCMC halo) per rank.
    pub fn slabs(&self) -> &Slabs {
        &self.slabs
    }

    /// Focuses raw echoes `[lines][samples]` into the complex image, in place.
    pub fn focus(&self, data: &mut [Complex32]) -> Result<DistTimings, SarError> {
        let e = &self.extent;
        if data.len() != e.lines * e.samples {
            return Err(SarError::Config(format!(
                "the data hold {} samples, the scene {} × {}",
                data.len(),
                e.lines,
                e.samples
            )));
        }
        if e.is_recorded_size() {
            return self.focus_at(data);
        }
        // Padded on the host, which scatters the lines to the ranks anyway.
        let mut padded = e.pad(data);
        let t = self.focus_at(&mut padded)?;
        e.crop(&padded, data);
        Ok(t)
    }

    /// The extent the scene is processed at.
    pub fn extent(&self) -> Extent {
        self.extent
    }

    /// [`DistFocuser::focus`] on a scene of the processed extent.
    fn focus_at(&self, data: &mut [Complex32]) -> Result<DistTimings, SarError> {
        let samples = self.config.scene.samples;
        let rounds = Rounds::new(self.ranks.len());
        let laps = Mutex::new(Vec::new());
        let input: &[Complex32] = data;
        let parts = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .ranks
                .iter()
                .enumerate()
                .map(|(r, rank)| {
                    let (rounds, laps) = (&rounds, &laps);
                    let rows = self.slabs.rows(r);
                    let lines_in = &input[rows.start * samples..rows.end * samples];
                    s.spawn(move || rank.focus(r == 0, lines_in, &self.slabs, r, rounds, laps))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(SarError::Config("a rank's thread panicked".into()))
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        })?;
        for (r, part) in parts.iter().enumerate() {
            let own = self.slabs.own_cols(r);
            for (row, values) in data.chunks_mut(samples).zip(part.chunks(own.len())) {
                row[own.clone()].copy_from_slice(values);
            }
        }
        let laps = laps
            .into_inner()
            .map_err(|_| SarError::Config("a rank panicked while timing".into()))?;
        let lap = |i: usize| laps.get(i).copied().unwrap_or(0.0);
        Ok(DistTimings {
            steps: StepTimings {
                transfer_s: lap(0) + lap(6),
                range_compression_s: lap(1),
                azimuth_fft_s: lap(3),
                src_s: 0.0,
                rcmc_s: lap(4),
                azimuth_compression_s: lap(5),
            },
            exchange_s: lap(2),
        })
    }
}

impl RankFocus {
    /// Rank `r`'s part of one focusing: its lines `lines_in` in, its range bins of the
    /// image out (`[lines][own bins]`). Every step ends with the device idle and every rank
    /// at the end of each of `rounds`; rank 0 (`timer`) appends each step's time to `laps`.
    fn focus(
        &self,
        timer: bool,
        lines_in: &[Complex32],
        slabs: &Slabs,
        r: usize,
        rounds: &Rounds,
        laps: &Mutex<Vec<f64>>,
    ) -> Result<Vec<Complex32>, SarError> {
        let dev = &self.device;
        let mut clock = Instant::now();
        // After each step: wait for the device (if the step was queued without error), then
        // for every rank, even after an error; a failure anywhere stops every rank at the
        // same step's end (the failing one returns its own error). Rank 0 times the step.
        let mut step = |queued: bool| -> Result<(), SarError> {
            let done = match queued {
                true => dev.synchronize(),
                false => Ok(()),
            };
            let everyone = rounds.end(queued && done.is_ok());
            if timer && let Ok(mut laps) = laps.lock() {
                laps.push(clock.elapsed().as_secs_f64());
            }
            clock = Instant::now();
            done?;
            Ok(everyone?)
        };
        let (lines, width) = (slabs.shape[0], slabs.cols(r).len());
        let buffers = (|| -> tierfft::Result<_> {
            Ok((
                dev.upload(lines_in)?,
                dev.zeros(lines * width)?,
                dev.zeros(slabs.staging_len(r).max(1))?,
                match &self.rcmc {
                    Some(_) => Some(dev.zeros(lines * width)?),
                    None => None,
                },
                dev.zeros(lines * self.own.row_len)?,
            ))
        })();
        let (mut scene, mut block, mut staging, mut moved, mut image) = settle(&mut step, buffers)?;
        settle(&mut step, self.range.process_buffer(&mut scene))?;
        let mut ex = self
            .exchange
            .lock()
            .map_err(|_| SarError::Config("a rank panicked during an exchange".into()))?;
        let exchanged = redistribute(
            &self.moves,
            &mut **ex,
            &mut scene,
            &mut block,
            &mut staging,
            None,
        );
        settle(&mut step, exchanged)?;
        drop((scene, staging));
        settle(&mut step, self.azimuth.process_buffer(&mut block))?;
        let focused = match (&self.rcmc, moved.as_mut()) {
            (Some(rcmc), Some(moved)) => {
                settle(&mut step, rcmc.process_buffer(&block, moved))?;
                moved
            }
            _ => {
                settle(&mut step, Ok(()))?;
                &mut block
            }
        };
        settle(&mut step, self.azimuth_inverse.process_buffer(focused))?;
        let part = copy_rows(focused, &mut image, &self.own).and_then(|()| image.download());
        settle(&mut step, part)
    }
}

/// Ends a step that returned `result` on this rank (see `RankFocus::focus`): its own error
/// first, else another rank's failure, else the value.
fn settle<T>(
    step: &mut impl FnMut(bool) -> Result<(), SarError>,
    result: tierfft::Result<T>,
) -> Result<T, SarError> {
    let everyone = step(result.is_ok());
    let value = result?;
    everyone?;
    Ok(value)
}
