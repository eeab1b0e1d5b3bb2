//! The resident executor: a plan's steps fused on device-resident data. The scene is
//! uploaded once and every step runs on the device: range compression is one FFT → filter →
//! inverse FFT kernel per line; the azimuth FFTs read columns in place (no transposes); a
//! range-Doppler filter chains its range FFT, filter and inverse (a multiply before it rides
//! on the range FFT's load); RCMC resamples into a second buffer; the azimuth filter is fused
//! into the inverse azimuth FFT's load. The recorded lines are moved into and out of the
//! padded layout on the device with `copy_rows`.

use std::sync::{Arc, Mutex};

use num_complex::Complex32;
use tierfft::backend::Resampler;
use tierfft::distributed::{Rows, copy_rows};
use tierfft::{Device, DeviceBuffer, Fft, FftSpec, PointOp};

use crate::error::SarError;
use crate::focus::options::{StepTimings, lap_timer};
use crate::focus::plan::SarPlan;
use crate::focus::step::Step;
use crate::scene::extent::Extent;

/// A plan's steps compiled for one device, with the scene's arrays.
pub(crate) struct Resident {
    /// The recorded scene and the processed extent.
    extent: Extent,
    device: Device,
    /// Each compiled step with the index of its plan step (for its name and timing).
    stages: Vec<(usize, Stage)>,
    /// The scene on the device and, with RCMC or margins, a second array: made when the
    /// steps are planned and kept, so that focusing copies and computes only.
    buffers: Mutex<SceneBuffers>,
}

/// One step's tierfft plans.
// One per step, made once and never moved in a hot loop: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
enum Stage {
    /// One plan over the scene in place: range compression or a range-Doppler filter as one
    /// chained plan (one kernel, or the forward passes then the inverse's, the filter fused
    /// into the first one's load: see [`range_doppler_plan`]), the column azimuth FFT, or
    /// azimuth compression.
    Fft(Fft),
    /// RCMC, from one array into the other.
    Resample(Resampler),
}

/// A resident executor's device arrays.
struct SceneBuffers {
    scene: DeviceBuffer,
    /// RCMC's output; with margins also where the recorded lines are staged on their way in
    /// and out.
    moved: Option<DeviceBuffer>,
}

impl Resident {
    /// Plans `plan`'s steps on `device` and makes the scene's arrays.
    pub(crate) fn new(device: &Device, plan: &SarPlan) -> Result<Resident, SarError> {
        let (lines, samples) = plan.shape();
        let extent = plan.extent;
        let range_rows = FftSpec::new(samples).batch(lines);
        let columns = FftSpec::new(lines).batch(samples).columns();
        let resamples = plan.steps.iter().any(|s| matches!(s, Step::Rcmc { .. }));
        let mut stages = Vec::with_capacity(plan.steps.len());
        // A multiply waiting for the load of the range-Doppler filter after it.
        let mut on_load = None;
        for (i, step) in plan.steps.iter().enumerate() {
            if on_load.is_some() && !matches!(step, Step::RangeDopplerFilter { .. }) {
                return Err(unfused_multiply(plan));
            }
            let stage = match step {
                Step::RangeCompression { filter } => {
                    Stage::Fft(device.plan(&range_compression(&range_rows, filter.clone()))?)
                }
                Step::AzimuthFft => Stage::Fft(device.plan(&columns)?),
                Step::Multiply { values, .. } => {
                    on_load = Some(values.clone());
                    continue;
                }
                Step::RangeDopplerFilter { filter, .. } => Stage::Fft(range_doppler_plan(
                    device,
                    &range_rows,
                    on_load.take(),
                    filter.clone(),
                )?),
                Step::Rcmc { spec } => Stage::Resample(device.plan_resample(spec)?),
                Step::AzimuthCompression { filter } => {
                    Stage::Fft(device.plan(&azimuth_compression(&columns, filter.clone()))?)
                }
            };
            stages.push((i, stage));
        }
        if on_load.is_some() {
            return Err(unfused_multiply(plan));
        }
        // The arrays once every step is planned: a step the device cannot bind fails first.
        let buffers = SceneBuffers {
            scene: device.zeros(lines * samples)?,
            // RCMC's output, which also stages the recorded lines with margins.
            moved: match resamples || !extent.is_recorded_size() {
                true => Some(device.zeros(lines * samples)?),
                false => None,
            },
        };
        device.prepare_transfers()?;
        Ok(Resident {
            extent,
            device: device.clone(),
            stages,
            buffers: Mutex::new(buffers),
        })
    }

    /// Focuses `data` (the recorded scene, checked for size) in place, step by step on the
    /// device; `on_step` hears "upload", each step's name and "download".
    pub(crate) fn focus(
        &self,
        plan: &SarPlan,
        data: &mut [Complex32],
        mut on_step: impl FnMut(&str),
    ) -> Result<StepTimings, SarError> {
        let mut t = StepTimings::default();
        let mut lap = lap_timer();
        let sync = || self.device.synchronize();
        let mut buffers = self.buffers.lock().map_err(|_| {
            SarError::Config("an earlier focusing run panicked while holding the scene".into())
        })?;
        let SceneBuffers { scene, moved } = &mut *buffers;
        on_step("upload");
        self.upload(data, scene, moved.as_mut())?;
        sync()?;
        t.transfer_s = lap();
        // Whether the data are in `moved` (after RCMC), else in `scene`.
        let mut in_moved = false;
        for (i, stage) in &self.stages {
            let step = &plan.steps[*i];
            on_step(step.name());
            match (stage, moved.as_mut()) {
                (Stage::Fft(fft), Some(moved)) if in_moved => fft.process_buffer(moved)?,
                (Stage::Fft(fft), _) => fft.process_buffer(scene)?,
                (Stage::Resample(rcmc), Some(moved)) => {
                    match in_moved {
                        true => rcmc.process_buffer(moved, scene)?,
                        false => rcmc.process_buffer(scene, moved)?,
                    }
                    in_moved = !in_moved;
                }
                (Stage::Resample(_), None) => {
                    return Err(SarError::Config(
                        "RCMC was planned without an array to resample into (an internal \
                         error: please report it with the configuration)"
                            .into(),
                    ));
                }
            }
            sync()?;
            let s = lap();
            if let Some(slot) = step.time_in(&mut t) {
                *slot += s;
            }
        }
        on_step("download");
        // The image is where the last step left it; the other array stages the recorded part.
        match (in_moved, moved.as_mut()) {
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
}

/// The error of a plan whose multiply is not followed by a range-Doppler filter: device
/// executors apply a multiply on that filter's load.
pub(crate) fn unfused_multiply(plan: &SarPlan) -> SarError {
    SarError::Config(format!(
        "the {} plan has a multiply that no range-Doppler filter follows; on a device a \
         multiply runs on the load of the range-Doppler filter after it: put one after it",
        plan.algorithm
    ))
}

/// Range compression over the range lines `rows`: the range FFT, the matched `filter` and
/// the inverse as one chained spec (lines longer than one on-chip pass chain over passes of
/// their own).
pub(crate) fn range_compression(rows: &FftSpec, filter: Arc<[Complex32]>) -> FftSpec {
    rows.clone().then_multiply_and_invert(filter).normalized()
}

/// Azimuth compression over the azimuth columns `columns`: the inverse azimuth FFT with the
/// azimuth `filter` (one value per element) on its load.
pub(crate) fn azimuth_compression(columns: &FftSpec, filter: Arc<[Complex32]>) -> FftSpec {
    columns
        .clone()
        .inverse()
        .normalized()
        .on_load(PointOp::MultiplyEach(filter))
}

/// A range-Doppler filter's plan over the range-Doppler rows `rows`: the range FFT (with
/// the `multiply` before it on its load), the filter `h` (one value per element) and the
/// inverse, as one chained spec. The planner decides how it runs: one kernel, or the forward
/// transform and then the inverse with `h` on its load, each binding its own vectors (lines
/// longer than one kernel holds well, or vectors that together exceed what the device binds:
/// lavapipe binds 128 MiB).
pub(crate) fn range_doppler_plan(
    device: &Device,
    rows: &FftSpec,
    multiply: Option<impl Into<Arc<[Complex32]>>>,
    h: impl Into<Arc<[Complex32]>>,
) -> Result<Fft, SarError> {
    let forward = match multiply {
        Some(m) => rows.clone().on_load(PointOp::MultiplyEach(m.into())),
        None => rows.clone(),
    };
    let h: Arc<[Complex32]> = h.into();
    Ok(device.plan(&forward.then_multiply_and_invert(h).normalized())?)
}
