//! [`Focuser`]: a scene's focusing planned for one device, its plan ([`SarPlan`]) run by the
//! resident executor (fused, device-resident: [`crate::focus::resident`]) or the host one
//! (every step separately: [`crate::focus::host`]); and [`memory_needs`], the memory that
//! takes, estimated before anything is allocated.

use num_complex::Complex32;
use tierfft::{Device, DeviceKind};

use crate::error::SarError;
use crate::filters::range::Window;
use crate::focus::builders;
use crate::focus::host::Host;
use crate::focus::options::{Algorithm, FocusOptions, StepTimings};
use crate::focus::plan::SarPlan;
use crate::focus::resident::Resident;
use crate::scene::extent::Extent;
use crate::scene::params::Config;

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
/// (the CPU, lavapipe, unified-memory GPUs): the echoes, the azimuth filter and the copy
/// the executor keeps, the device's scene and RCMC output, the transposed filter and one
/// transform's scratch. Measured: peak resident memory 6.9 × the scene on the CPU and 6.75 ×
/// on lavapipe for the default 4096² scene (`/usr/bin/time -f %M tierfft sar`).
const HOST_SCENES_SHARED: u64 = 7;

/// Scene-sized buffers on the host when the device has its own memory (CUDA): the echoes and
/// the azimuth filter with the copy it is uploaded from. Measured on the H100
/// (`scripts/device-run.sh sarcli`): peak resident memory 2.2 × the scene at 16384² (4560
/// MiB), 3.8 × at 4096² (484 MiB, most of it the CUDA libraries).
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
    let filters = extra_filters(config, opts);
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

/// Scene-sized filters a plan of `config`'s scene with `opts` carries beyond the azimuth
/// filter, known before the plan is made: SRC's, or chirp scaling's scaling and 2-D range
/// filter.
pub(crate) fn extra_filters(config: &Config, opts: &FocusOptions) -> u64 {
    match (opts.algorithm, opts.src_for(config)) {
        (Algorithm::Csa, _) => 2,
        (Algorithm::Rda, true) => 1,
        (Algorithm::Rda, false) => 0,
    }
}

/// The focusing steps of one scene size, planned (and compiled) for one device. Building it
/// checks that the scene fits the device, before any work.
pub struct Focuser {
    plan: SarPlan,
    executor: Executor,
    planning: Planning,
}

/// A scene's plan made before the device that runs it is ready: the host's share of
/// [`Focuser::new`] (the filters), to be run beside other work and handed to
/// [`Focuser::with_planned`] or [`crate::focus::fit::fit`].
pub struct Planned {
    config: Config,
    opts: FocusOptions,
    plan: SarPlan,
    filters_s: f64,
}

impl Planned {
    /// Plans `config`'s scene (validated first) with `opts`, whole, at the extent `opts`
    /// gives it.
    pub fn new(config: &Config, opts: FocusOptions) -> Result<Planned, SarError> {
        config.validate()?;
        let clock = std::time::Instant::now();
        let plan = builders::plan(config, &opts, Extent::of(config, opts.margins))?;
        Ok(Planned {
            config: config.clone(),
            opts,
            plan,
            filters_s: clock.elapsed().as_secs_f64(),
        })
    }
}

/// Where a focuser's planning went, s.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Planning {
    /// Computing the plan's filters on the host.
    pub filters: f64,
    /// Making the executor: device arrays, the filters uploaded, kernels compiled or loaded.
    pub device: f64,
    /// The filters were designed ahead, beside other work ([`Planned`]).
    pub ahead: bool,
}

/// The executor a focuser runs its plan with.
// One per scene, never moved in a hot loop: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
enum Executor {
    /// Fused steps on device-resident data.
    Resident(Resident),
    /// Separate steps through the host.
    Host(Host),
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
        let clock = std::time::Instant::now();
        let plan = builders::plan(recorded, &opts, extent)?;
        let filters = clock.elapsed().as_secs_f64();
        Focuser::executing(device, plan, opts, (filters, false))
    }

    /// [`Focuser::new`] from `planned`, the plan made ahead (its filters designed while other
    /// work ran), when it was made for `recorded` and `opts`; planned again otherwise.
    pub fn with_planned(
        device: &Device,
        recorded: &Config,
        opts: FocusOptions,
        planned: Planned,
    ) -> Result<Focuser, SarError> {
        match planned.config == *recorded && planned.opts == opts {
            true => Focuser::executing(device, planned.plan, opts, (planned.filters_s, true)),
            false => {
                // Its filters go before the right ones are made: the memory checked holds one set.
                drop(planned);
                Focuser::new(device, recorded, opts)
            }
        }
    }

    /// The executor of `plan` on `device`, whose filters took `filters` s (designed `ahead`
    /// or not).
    fn executing(
        device: &Device,
        plan: SarPlan,
        opts: FocusOptions,
        (filters, ahead): (f64, bool),
    ) -> Result<Focuser, SarError> {
        let clock = std::time::Instant::now();
        let executor = match opts.fused {
            true => Executor::Resident(Resident::new(device, &plan)?),
            false => Executor::Host(Host::new(device, &plan)?),
        };
        let planning = Planning {
            filters,
            device: clock.elapsed().as_secs_f64(),
            ahead,
        };
        Ok(Focuser {
            plan,
            executor,
            planning,
        })
    }

    /// Where the planning went.
    pub fn planning(&self) -> Planning {
        self.planning
    }

    /// The plan: the steps with their filters.
    pub fn plan(&self) -> &SarPlan {
        &self.plan
    }

    /// Whether the steps include secondary range compression.
    pub fn src(&self) -> bool {
        self.plan.src()
    }

    /// The extent the scene is processed at.
    pub fn extent(&self) -> Extent {
        self.plan.extent
    }

    /// Focuses raw echoes `[lines][samples]` into a complex image of the same shape, in
    /// place; `on_step` hears each step's name before it starts.
    pub fn focus(
        &self,
        data: &mut [Complex32],
        on_step: impl FnMut(&str),
    ) -> Result<StepTimings, SarError> {
        let e = self.plan.extent;
        let (lines, samples) = (e.lines, e.samples);
        if data.len() != lines * samples {
            return Err(SarError::Config(format!(
                "the data hold {} samples, the scene {lines} × {samples}",
                data.len()
            )));
        }
        match &self.executor {
            Executor::Resident(resident) => resident.focus(&self.plan, data, on_step),
            Executor::Host(host) if !e.is_recorded_size() => {
                // The whole scene padded on the host (this path is the fused one's reference).
                let mut padded = e.pad(data);
                let t = host.focus(&self.plan, &mut padded, on_step)?;
                e.crop(&padded, data);
                Ok(t)
            }
            Executor::Host(host) => host.focus(&self.plan, data, on_step),
        }
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
