//! The distributed executor: a plan's steps over several devices (GPUs over NCCL, or CPU
//! ranks), for scenes larger than one device holds or indexes.
//!
//! The scene is held in one of two layouts: blocks of azimuth lines (each rank whole range
//! lines, as the echoes arrive), or blocks of range bins (each rank every line of its block
//! of range bins, widened by a halo as wide as the largest range migration plus half the
//! interpolator when a step resamples along range). Each step says what it needs whole
//! ([`Needs`]): range transforms need lines, azimuth transforms and RCMC need range bins, a
//! multiply either. Walking the plan, the executor keeps the current layout and puts an
//! all-to-all exchange before every step that needs the other one: the Range-Doppler
//! algorithm exchanges lines for bins after range compression (and, with SRC, back to lines
//! and to bins again around it); chirp scaling exchanges for bins, runs the azimuth FFT,
//! exchanges back to lines for its 2-D range filter (the scaling multiply on its load) and
//! to bins again for azimuth compression. Each rank keeps its own range bins of the focused
//! image. The image equals one device's: every step sees the same input samples (the halo
//! holds every neighbour RCMC reads; at the scene's edges the block ends where the scene
//! does).

use rayon::prelude::*;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use num_complex::Complex32;
use tierfft::backend::Resampler;
use tierfft::backend::cuda::CudaDevice;
use tierfft::distributed::{
    Exchange, Link, LocalExchange, Moves, Rounds, Rows, Slabs, check_group, copy_rows, redistribute,
};
use tierfft::resample::ResampleSpec;
use tierfft::{Device, DeviceKind, Fft, FftSpec};

use crate::error::SarError;
use crate::focus::builders;
use crate::focus::focuser::{MemoryNeeds, extra_filters};
use crate::focus::options::{FocusOptions, StepTimings};
use crate::focus::plan::SarPlan;
use crate::focus::resident::{
    azimuth_compression, range_compression, range_doppler_plan, unfused_multiply,
};
use crate::focus::step::{Needs, Step};
use crate::scene::extent::Extent;
use crate::scene::params::Config;

/// Focusing steps planned for the devices of one process, rank `i` on device `i`.
pub struct DistFocuser {
    plan: SarPlan,
    slabs: Slabs,
    ranks: Vec<RankFocus>,
}

/// Wall-clock time of each step over all ranks (each from a common start until every rank
/// has finished it), seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct DistTimings {
    /// The steps as on one device; `transfer_s` is the upload of each rank's lines, the
    /// download of its part of the image, and the placing of the parts into the image.
    pub steps: StepTimings,
    /// The all-to-alls between blocks of lines and blocks of range bins (with their
    /// packing).
    pub exchange_s: f64,
}

impl DistTimings {
    /// Every step and the exchange, seconds.
    pub fn total_s(&self) -> f64 {
        self.steps.total_s() + self.exchange_s
    }
}

/// The memory focusing `config`'s scene over `ranks` devices like `device` with `opts`
/// needs: on the host, the echoes, the image as the ranks return it and the azimuth filter
/// with its blocks, and each other scene-sized filter (SRC's, chirp scaling's two) with its
/// blocks; on each device with its own memory (CUDA), its lines, staging, its block of range
/// bins twice (RCMC's output) with their azimuth filter, its part of the image and its part
/// of each other filter: about (6 + filters) / ranks scenes, of the `extent` processed (with
/// margins, the echoes are also padded on the host once). `None` when the scene's size
/// overflows the address space.
pub fn memory_needs(
    config: &Config,
    device: &Device,
    ranks: usize,
    extent: &Extent,
    opts: &FocusOptions,
) -> Option<MemoryNeeds> {
    let scene = extent.processing_config(config).scene_bytes()?;
    let padded_copy = match extent.is_recorded_size() {
        true => 0,
        false => scene,
    };
    let filters = extra_filters(config, opts);
    Some(MemoryNeeds {
        host: scene
            .checked_mul(4 + 2 * filters)?
            .checked_add(padded_copy)?,
        device: match device.kind() {
            DeviceKind::Cuda => scene.checked_mul(6 + filters)? / ranks.max(1) as u64,
            _ => 0,
        },
    })
}

/// How the scene is laid out over the ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// Blocks of azimuth lines, whole range lines on each rank.
    Lines,
    /// Blocks of range bins (widened by the halo), whole azimuth columns on each rank.
    Bins,
}

/// What a rank does, in order: the plan's steps with the exchanges between them.
// One per step, made once and never moved in a hot loop: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
enum Action {
    /// The all-to-all from blocks of lines to blocks of range bins.
    ToBins,
    /// The all-to-all from blocks of range bins (their own bins, without the halo) to
    /// blocks of lines.
    ToLines,
    /// Plan step `step`, run as `stage`.
    Run { step: usize, stage: Stage },
}

/// One step's plans on one rank.
enum Stage {
    /// One plan in place over the rank's lines: range compression, or a range-Doppler
    /// filter (a multiply before it on its load).
    OnLines(Fft),
    /// One plan in place over the rank's block of range bins: the azimuth FFT or azimuth
    /// compression.
    OnBins(Fft),
    /// RCMC of the rank's block of range bins, into a second array.
    Resample(Resampler),
}

/// One rank's plans.
struct RankFocus {
    device: Device,
    exchange: Mutex<Box<dyn Exchange>>,
    actions: Vec<Action>,
    /// Lines to range bins (with the halo).
    to_bins: Moves,
    /// The rank's own range bins back to lines.
    to_lines: Moves,
    /// The rank's own range bins, out of its widened block into a compact array (its part
    /// of the image, or what goes back to lines).
    own: Rows,
    /// Elements of staging either exchange needs.
    staging: usize,
    /// Whether a step resamples into a second array.
    resamples: bool,
}

/// The layout each step runs in: the one it needs, or (pointwise) the current one.
fn layouts(plan: &SarPlan) -> Vec<Layout> {
    let mut layout = Layout::Lines;
    plan.steps
        .iter()
        .map(|step| {
            layout = match step.needs() {
                Needs::Lines => Layout::Lines,
                Needs::Columns | Needs::BinsWithHalo(_) => Layout::Bins,
                Needs::Pointwise => layout,
            };
            layout
        })
        .collect()
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
        if !opts.fused {
            return Err(SarError::Config(
                "distributed focusing runs the fused steps on each device: set `fused: true` \
                 (drop --unfused)"
                    .into(),
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
        let plan = builders::plan(recorded, &opts, Extent::of(recorded, opts.margins))?;
        // Rank order: each rank's lines and range bins follow its place in the group.
        let mut pairs: Vec<_> = devices.into_iter().zip(exchanges).collect();
        pairs.sort_by_key(|(_, e)| e.rank());
        let (lines, samples) = plan.shape();
        let cut = |halo: usize| {
            Slabs::with_halo(&[lines, samples], pairs.len(), halo).ok_or_else(|| {
                SarError::Config(format!(
                    "{} ranks cannot each take lines and range bins of a {lines} × {samples} \
                     scene: use at most {} ranks",
                    pairs.len(),
                    lines.min(samples)
                ))
            })
        };
        let slabs = cut(plan.halo())?;
        // The way back to lines carries each rank's own bins, without the halo.
        let flat = cut(0)?;
        let layouts = layouts(&plan);
        if layouts.last() != Some(&Layout::Bins) {
            return Err(SarError::Config(format!(
                "the {} plan's last step needs whole range lines; distributed focusing keeps \
                 each rank's range bins of the image, so its last step must need azimuth \
                 columns",
                plan.algorithm
            )));
        }
        let mut ranks = Vec::with_capacity(pairs.len());
        for (device, exchange) in pairs {
            let r = exchange.rank();
            let (block, own, rows) = (slabs.cols(r), slabs.own_cols(r), slabs.rows(r));
            let width = block.len();
            // The rank's lines of a scene-sized array, and its block of range bins.
            let lines_of = |v: &[Complex32]| -> Arc<[Complex32]> {
                v[rows.start * samples..rows.end * samples].into()
            };
            let bins_of = |v: &[Complex32]| -> Arc<[Complex32]> {
                v.chunks(samples)
                    .flat_map(|row| row[block.clone()].iter().copied())
                    .collect()
            };
            let range_rows = FftSpec::new(samples).batch(rows.len());
            let columns = FftSpec::new(lines).batch(width).columns();
            let mut actions = Vec::new();
            let mut layout = Layout::Lines;
            // A multiply waiting for the load of the range-Doppler filter after it.
            let mut on_load = None;
            for (i, (step, &want)) in plan.steps.iter().zip(&layouts).enumerate() {
                if on_load.is_some() && !matches!(step, Step::RangeDopplerFilter { .. }) {
                    return Err(unfused_multiply(&plan));
                }
                if want != layout {
                    actions.push(match want {
                        Layout::Bins => Action::ToBins,
                        Layout::Lines => Action::ToLines,
                    });
                    layout = want;
                }
                let stage = match step {
                    Step::RangeCompression { filter } => Stage::OnLines(
                        device.plan(&range_compression(&range_rows, filter.clone()))?,
                    ),
                    Step::AzimuthFft => Stage::OnBins(device.plan(&columns)?),
                    Step::Multiply { values, .. } => {
                        on_load = Some(lines_of(values));
                        continue;
                    }
                    Step::RangeDopplerFilter { filter, .. } => Stage::OnLines(range_doppler_plan(
                        &device,
                        &range_rows,
                        on_load.take(),
                        lines_of(filter),
                    )?),
                    // The same positions as the whole scene's, counted from the block's start.
                    Step::Rcmc { spec } => Stage::Resample(
                        device.plan_resample(&ResampleSpec::new(
                            width,
                            spec.rows
                                .iter()
                                .map(|p| p.from_sample(block.start))
                                .collect(),
                        ))?,
                    ),
                    Step::AzimuthCompression { filter } => {
                        Stage::OnBins(device.plan(&azimuth_compression(&columns, bins_of(filter)))?)
                    }
                };
                actions.push(Action::Run { step: i, stage });
            }
            if on_load.is_some() {
                return Err(unfused_multiply(&plan));
            }
            let to_lines = flat.to_natural(r).ok_or_else(|| {
                SarError::Config("the decomposition without a halo has no way back".into())
            })?;
            ranks.push(RankFocus {
                to_bins: slabs.to_transposed(r),
                to_lines,
                own: Rows {
                    rows: lines,
                    row_len: own.len(),
                    src: own.start - block.start,
                    src_pitch: width,
                    dst: 0,
                    dst_pitch: own.len(),
                },
                staging: slabs.staging_len(r).max(flat.staging_len(r)).max(1),
                resamples: plan.steps.iter().any(|s| matches!(s, Step::Rcmc { .. })),
                actions,
                device,
                exchange: Mutex::new(exchange),
            });
        }
        Ok(DistFocuser { plan, slabs, ranks })
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

    /// One rank per GPU, exchanging through [`Link::Default`] (NCCL where libnccl loads and
    /// the GPUs are distinct, else peer copies).
    pub fn on_cuda(
        config: &Config,
        opts: FocusOptions,
        gpus: &[Arc<CudaDevice>],
    ) -> Result<DistFocuser, SarError> {
        let exchanges = Link::Default.exchanges(gpus)?;
        let devices = gpus.iter().map(|g| Device::from(g.clone())).collect();
        DistFocuser::new(config, opts, devices, exchanges)
    }

    /// The plan the ranks run.
    pub fn plan(&self) -> &SarPlan {
        &self.plan
    }

    /// The decomposition: lines per rank, and range bins (with the RCMC halo) per rank.
    pub fn slabs(&self) -> &Slabs {
        &self.slabs
    }

    /// Focuses raw echoes `[lines][samples]` into the complex image, in place.
    pub fn focus(&self, data: &mut [Complex32]) -> Result<DistTimings, SarError> {
        let e = &self.plan.extent;
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
        self.plan.extent
    }

    /// Focuses a scene that is already on the ranks' devices, leaving the image there:
    /// `scenes[r]` holds rank `r`'s lines of the processed extent ([`DistFocuser::extent`],
    /// lines [`Slabs::rows`]`(r)` of [`DistFocuser::slabs`], every padded sample) and is
    /// used as scratch; returns each rank's range bins of the image, `[lines][own bins]`
    /// ([`Slabs::own_cols`]), on its device. `transfer_s` is then the allocation of the
    /// ranks' arrays alone.
    pub fn focus_buffers(
        &self,
        scenes: &mut [tierfft::DeviceBuffer],
    ) -> Result<(Vec<tierfft::DeviceBuffer>, DistTimings), SarError> {
        if scenes.len() != self.ranks.len() {
            return Err(SarError::Config(format!(
                "{} ranks take {} scene parts (got {})",
                self.ranks.len(),
                self.ranks.len(),
                scenes.len()
            )));
        }
        let (parts, t) = self.run(scenes.iter_mut().map(Lines::Device).collect())?;
        let parts = parts
            .into_iter()
            .map(|p| match p {
                Part::Device(buffer) => Ok(buffer),
                Part::Host(_) => Err(SarError::Config(
                    "a device-resident run downloaded its image part".into(),
                )),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((parts, t))
    }

    /// [`DistFocuser::focus`] on a scene of the processed extent.
    fn focus_at(&self, data: &mut [Complex32]) -> Result<DistTimings, SarError> {
        let samples = self.plan.extent.padded_samples;
        let input: &[Complex32] = data;
        let lines = (0..self.ranks.len())
            .map(|r| {
                let rows = self.slabs.rows(r);
                Lines::Host(&input[rows.start * samples..rows.end * samples])
            })
            .collect();
        let (parts, mut t) = self.run(lines)?;
        let parts = parts
            .into_iter()
            .map(|p| match p {
                Part::Host(values) => Ok(values),
                Part::Device(_) => Err(SarError::Config("a host run kept its image part".into())),
            })
            .collect::<Result<Vec<_>, _>>()?;
        // Each rank's range bins into their columns of the image, rows on every CPU.
        let placed = Instant::now();
        let owns: Vec<_> = (0..parts.len()).map(|r| self.slabs.own_cols(r)).collect();
        data.par_chunks_mut(samples)
            .enumerate()
            .for_each(|(line, row)| {
                for (part, own) in parts.iter().zip(&owns) {
                    let width = own.len();
                    row[own.clone()].copy_from_slice(&part[line * width..(line + 1) * width]);
                }
            });
        t.steps.transfer_s += placed.elapsed().as_secs_f64();
        Ok(t)
    }

    /// Every rank's focusing at once, a thread each, `lines[r]` rank `r`'s lines: each
    /// rank's part of the image, and the times.
    fn run(&self, lines: Vec<Lines>) -> Result<(Vec<Part>, DistTimings), SarError> {
        let rounds = Rounds::new(self.ranks.len());
        let laps = Mutex::new(Vec::new());
        let parts = std::thread::scope(|s| {
            let handles: Vec<_> = (self.ranks.iter().zip(lines).enumerate())
                .map(|(r, (rank, lines_in))| {
                    let (rounds, laps) = (&rounds, &laps);
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
        let laps = laps
            .into_inner()
            .map_err(|_| SarError::Config("a rank panicked while timing".into()))?;
        let mut t = DistTimings::default();
        for (lap, s) in laps {
            let slot = match lap {
                Lap::Transfer => Some(&mut t.steps.transfer_s),
                Lap::Exchange => Some(&mut t.exchange_s),
                Lap::Step(i) => self.plan.steps[i].time_in(&mut t.steps),
            };
            if let Some(slot) = slot {
                *slot += s;
            }
        }
        Ok((parts, t))
    }
}

/// A rank's lines of the scene: on the host (uploaded, and the image part downloaded), or
/// already on its device (focused there, the part left there).
enum Lines<'a> {
    Host(&'a [Complex32]),
    Device(&'a mut tierfft::DeviceBuffer),
}

/// A rank's range bins of the image, `[lines][own bins]`.
enum Part {
    Host(Vec<Complex32>),
    Device(tierfft::DeviceBuffer),
}

/// What rank 0 timed: the copies to and from the device, an exchange, or plan step `i`.
#[derive(Clone, Copy)]
enum Lap {
    Transfer,
    Exchange,
    Step(usize),
}

impl RankFocus {
    /// Rank `r`'s part of one focusing: its lines `lines_in` in, its range bins of the
    /// image out (`[lines][own bins]`). Every action ends with the device idle and every
    /// rank at the end of each of `rounds`; rank 0 (`timer`) appends each one's time to
    /// `laps`.
    fn focus(
        &self,
        timer: bool,
        lines_in: Lines,
        slabs: &Slabs,
        r: usize,
        rounds: &Rounds,
        laps: &Mutex<Vec<(Lap, f64)>>,
    ) -> Result<Part, SarError> {
        let dev = &self.device;
        let download = matches!(lines_in, Lines::Host(_));
        let mut clock = Instant::now();
        // After each action: wait for the device (if the action was queued without error),
        // then for every rank, even after an error; a failure anywhere stops every rank at
        // the same action's end (the failing one returns its own error). Rank 0 times it.
        let mut step = |lap: Lap, queued: bool| -> Result<(), SarError> {
            let done = match queued {
                true => dev.synchronize(),
                false => Ok(()),
            };
            let everyone = rounds.end(queued && done.is_ok());
            if timer && let Ok(mut laps) = laps.lock() {
                laps.push((lap, clock.elapsed().as_secs_f64()));
            }
            clock = Instant::now();
            done?;
            Ok(everyone?)
        };
        let (lines, width) = (slabs.shape[0], slabs.cols(r).len());
        let expected = slabs.rows(r).len() * slabs.shape[1];
        let mut uploaded = None;
        let buffers = (|| -> tierfft::Result<_> {
            let scene = match lines_in {
                Lines::Host(host) => uploaded.insert(dev.upload(host)?),
                Lines::Device(scene) if scene.len() == expected => scene,
                Lines::Device(scene) => {
                    return Err(tierfft::Error::InvalidSpec(format!(
                        "rank {r}'s lines hold {} samples; its {} lines of the scene take {expected}",
                        scene.len(),
                        slabs.rows(r).len()
                    )));
                }
            };
            Ok((
                scene,
                dev.zeros(lines * width)?,
                dev.zeros(self.staging)?,
                match self.resamples {
                    true => Some(dev.zeros(lines * width)?),
                    false => None,
                },
                dev.zeros(lines * self.own.row_len)?,
            ))
        })();
        let (scene, mut block, mut staging, mut moved, mut image) =
            settle(&mut step, Lap::Transfer, buffers)?;
        let mut ex = self
            .exchange
            .lock()
            .map_err(|_| SarError::Config("a rank panicked during an exchange".into()))?;
        // Whether the block of range bins is in `moved` (after RCMC), else in `block`.
        let mut in_moved = false;
        for action in &self.actions {
            let bins = match (in_moved, moved.as_mut()) {
                (true, Some(moved)) => moved,
                _ => &mut block,
            };
            let (lap, done) = match action {
                Action::ToBins => {
                    in_moved = false;
                    let moves = &self.to_bins;
                    let done =
                        redistribute(moves, &mut **ex, scene, &mut block, &mut staging, None);
                    (Lap::Exchange, done)
                }
                Action::ToLines => {
                    // The own bins go back; the image's array holds them on the way.
                    let done = match slabs.halo {
                        0 => {
                            redistribute(&self.to_lines, &mut **ex, scene, bins, &mut staging, None)
                        }
                        _ => copy_rows(bins, &mut image, &self.own).and_then(|()| {
                            redistribute(
                                &self.to_lines,
                                &mut **ex,
                                scene,
                                &mut image,
                                &mut staging,
                                None,
                            )
                        }),
                    };
                    (Lap::Exchange, done)
                }
                Action::Run { step: i, stage } => {
                    let done = match stage {
                        Stage::OnLines(fft) => fft.process_buffer(scene),
                        Stage::OnBins(fft) => fft.process_buffer(bins),
                        Stage::Resample(rcmc) => {
                            let done = match (in_moved, moved.as_mut()) {
                                (false, Some(moved)) => rcmc.process_buffer(&block, moved),
                                (true, Some(moved)) => rcmc.process_buffer(moved, &mut block),
                                (_, None) => Err(tierfft::Error::InvalidSpec(
                                    "RCMC was planned without an array to resample into (an \
                                     internal error: please report it with the configuration)"
                                        .into(),
                                )),
                            };
                            in_moved = !in_moved;
                            done
                        }
                    };
                    (Lap::Step(*i), done)
                }
            };
            settle(&mut step, lap, done)?;
        }
        let bins = match (in_moved, moved.as_ref()) {
            (true, Some(moved)) => moved,
            _ => &block,
        };
        let part = copy_rows(bins, &mut image, &self.own).and_then(|()| match download {
            true => image.download().map(Part::Host),
            false => Ok(Part::Device(image)),
        });
        settle(&mut step, Lap::Transfer, part)
    }
}

/// Ends an action that returned `result` on this rank (see `RankFocus::focus`): its own
/// error first, else another rank's failure, else the value.
fn settle<T>(
    step: &mut impl FnMut(Lap, bool) -> Result<(), SarError>,
    lap: Lap,
    result: tierfft::Result<T>,
) -> Result<T, SarError> {
    let everyone = step(lap, result.is_ok());
    let value = result?;
    everyone?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::focus::options::Algorithm;

    /// The all-to-alls each algorithm's plan takes: Range-Doppler one (lines to range bins
    /// after range compression), with SRC or chirp scaling three (to bins for the azimuth
    /// FFT, back to lines for the range-Doppler filter, to bins again).
    #[test]
    fn exchanges_go_where_the_layout_changes() {
        let mut c = Config::default();
        (c.radar.antenna_m, c.radar.pulse_s) = (8.0, 2e-6);
        (c.scene.lines, c.scene.samples) = (1024, 512);
        let extent = Extent::of(&c, true);
        let exchanges = |opts: FocusOptions| {
            let plan = builders::plan(&c, &opts, extent).expect("plan");
            let layouts = layouts(&plan);
            let changes = std::iter::once(Layout::Lines)
                .chain(layouts.iter().copied())
                .collect::<Vec<_>>()
                .windows(2)
                .filter(|w| w[0] != w[1])
                .count();
            (changes, layouts.last().copied())
        };
        assert_eq!(exchanges(FocusOptions::default()), (1, Some(Layout::Bins)));
        let src = FocusOptions {
            src: Some(true),
            ..FocusOptions::default()
        };
        assert_eq!(exchanges(src), (3, Some(Layout::Bins)));
        let csa = FocusOptions {
            algorithm: Algorithm::Csa,
            ..FocusOptions::default()
        };
        assert_eq!(exchanges(csa), (3, Some(Layout::Bins)));
    }
}
