//! Where `tierfft sar` focuses and how: the devices opened, the memory the scene needs
//! checked against what they and the host have (blocks of lines chosen when a CUDA device
//! is short), and every step planned, whole, in blocks or spread over several devices.

use std::sync::Arc;
use std::thread::JoinHandle;

use tierfft::Device;
use tierfft::backend::cuda::CudaDevice;
use tierfft_sar::SarError;
use tierfft_sar::focus::distributed::{self, DistFocuser};
use tierfft_sar::focus::fit::{Fitted, fit};
use tierfft_sar::focus::strip::StripFocuser;
use tierfft_sar::focus::{FocusOptions, Focuser, MemoryNeeds, Planned, memory_needs};
use tierfft_sar::scene::extent::Extent;
use tierfft_sar::scene::params::{AzimuthPattern, Config};

use super::SarArgs;
use crate::CliResult;
use crate::memory::{available, format_bytes};

/// Host memory the figures take at most, bytes.
const FIGURE_BYTES: u64 = 64 << 20;

/// Focusing planned on one device, or spread over several.
// One per run, never moved in a hot loop: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
pub(super) enum Focusing {
    One(Focuser),
    Strip(StripFocuser),
    Spread(DistFocuser),
}

/// Refuses a scene whose buffers would not fit in the host's free memory (or each CUDA
/// device's: `needs` counts one device's share), before anything is allocated.
pub(super) fn check_memory(
    config: &Config,
    devices: &[Device],
    needs: Option<MemoryNeeds>,
) -> CliResult<()> {
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let (Some(scene), Some(needs)) = (config.scene_bytes(), needs) else {
        return Err(format!("a {lines} × {samples} scene overflows the address space").into());
    };
    let device = &devices[0];
    // On top of the focuser's: the figures' pictures (image.png at most 2048² pixels, as f32,
    // a copy to find its percentile, and RGB).
    let host = needs.host.saturating_add(FIGURE_BYTES);
    let what = format!(
        "a {lines} × {samples} scene ({} per complex buffer)",
        format_bytes(scene)
    );
    if let Some(free) = available()
        && host > free.bytes
    {
        return Err(format!(
            "{what} needs about {} of host memory to focus on {}, but {} is available ({}): \
             use fewer lines or samples",
            format_bytes(host),
            device.name(),
            format_bytes(free.bytes),
            free.source
        )
        .into());
    }
    for device in devices {
        if needs.device > 0
            && let Some(free) = device.free_memory()?
            && needs.device > free
        {
            return Err(format!(
                "{what} needs about {} of memory on {}, but {} is free: use fewer lines or \
                 samples{}",
                format_bytes(needs.device),
                device.name(),
                format_bytes(free),
                if devices.len() > 1 {
                    ""
                } else {
                    ", or spread it over GPUs (--gpus)"
                }
            )
            .into());
        }
    }
    Ok(())
}

/// The devices a run focuses on: one, or the ranks of `--gpus` (with the CUDA GPUs behind
/// them for NCCL; none for CPU ranks).
pub(super) struct Devices {
    pub(super) devices: Vec<Device>,
    pub(super) gpus: Vec<Arc<CudaDevice>>,
    pub(super) name: String,
}

pub(super) fn open_devices(args: &SarArgs) -> CliResult<Devices> {
    let Some(n) = args.gpus else {
        let device = crate::commands::open_device(&args.device)?;
        let name = device.name();
        return Ok(Devices {
            devices: vec![device],
            gpus: Vec::new(),
            name,
        });
    };
    let n = n as usize;
    let (devices, gpus) = match args.device.to_ascii_lowercase().as_str() {
        "cpu" => (vec![Device::cpu(); n], Vec::new()),
        "auto" | "cuda" => crate::commands::open_gpus(n)?,
        other => {
            return Err(format!(
                "--gpus spreads the scene over CUDA GPUs (--device cuda) or CPU ranks \
                 (--device cpu), not '{other}'"
            )
            .into());
        }
    };
    let name = format!("{n} × {}", devices[0].name());
    Ok(Devices {
        devices,
        gpus,
        name,
    })
}

/// [`check_memory`] for `config`'s scene focused with `opts` on `on`, whole or in blocks of
/// `blocks` lines; `None` (whole) becomes blocks when the whole scene's share of a single
/// CUDA device exceeds its free memory and blocks fit. Returns the block lines.
pub(super) fn check_scene(
    config: &Config,
    on: &Devices,
    opts: FocusOptions,
    blocks: Option<usize>,
) -> CliResult<Option<usize>> {
    let device = &on.devices[0];
    let strip_needs = |block: usize| {
        let (piece, extent) = StripFocuser::chunk(config, opts, block);
        memory_needs(&piece, device, &extent, &opts).map(|chunk| MemoryNeeds {
            // The strip itself and a chunk's host buffers.
            host: config
                .scene_bytes()
                .unwrap_or(u64::MAX)
                .saturating_add(chunk.host),
            device: chunk.device,
        })
    };
    if let Some(block) = blocks {
        check_memory(config, &on.devices, strip_needs(block))?;
        return Ok(Some(block));
    }
    let extent = Extent::of(config, opts.margins);
    let needs = match on.devices.len() {
        1 => memory_needs(config, device, &extent, &opts),
        n => distributed::memory_needs(config, device, n, &extent, &opts),
    };
    let free = match (on.devices.len(), needs) {
        (1, Some(n)) if n.device > 0 => device.free_memory()?.filter(|&free| n.device > free),
        _ => None,
    };
    let Some(free) = free else {
        check_memory(config, &on.devices, needs)?;
        return Ok(None);
    };
    // The most lines a block may have with its chunk within 90 % of the free memory.
    let fits = |block: usize| strip_needs(block).is_some_and(|n| n.device <= free / 10 * 9);
    let (mut low, mut high) = (0, config.scene.lines);
    while low < high {
        let mid = (low + high).div_ceil(2);
        if fits(mid) { low = mid } else { high = mid - 1 }
    }
    if low == 0 {
        // Not even one line with its aperture: say so with the whole scene's numbers.
        check_memory(config, &on.devices, needs)?;
    }
    eprintln!(
        "the scene needs about {} on {}, {} is free: focusing it in blocks of {low} lines",
        format_bytes(needs.map_or(0, |n| n.device)),
        device.name(),
        format_bytes(free)
    );
    check_memory(config, &on.devices, strip_needs(low))?;
    Ok(Some(low))
}

/// The whole scene's plan made on a thread of its own, beside opening the device and reading
/// the echoes, when nothing its filters depend on comes from the echoes (a simulated scene, or
/// a config that gives the Doppler centroid and the azimuth pattern) and the scene is focused
/// whole on one device. Only when the host has the memory the run would need on the CPU (the
/// most it needs anywhere): a scene too large is still refused, by [`check_scene`], before
/// any work.
pub(super) fn plan_ahead(
    config: &Config,
    simulated: bool,
    args: &SarArgs,
    opts: FocusOptions,
) -> Option<JoinHandle<Result<Planned, SarError>>> {
    if args.gpus.is_some() || args.block_lines.is_some() {
        return None;
    }
    let mut config = config.clone();
    let radar = &config.radar;
    match simulated {
        true => {
            tierfft_sar::scene::centroid::simulated(&mut config);
            config
                .radar
                .azimuth_pattern
                .get_or_insert(AzimuthPattern::Uniform);
        }
        false if radar.doppler_centroid_hz.is_none() || radar.azimuth_pattern.is_none() => {
            return None;
        }
        false => {}
    }
    let extent = Extent::of(&config, opts.margins);
    let needs = memory_needs(&config, &Device::cpu(), &extent, &opts)?;
    if needs.host.saturating_add(FIGURE_BYTES) > available()?.bytes {
        return None;
    }
    Some(std::thread::spawn(move || Planned::new(&config, opts)))
}

/// Plans every step of `config`'s scene, whole or in blocks of `blocks` lines, on one device
/// as [`tierfft_sar::focus::fit::fit`] fits it (its fallback said on the terminal and returned for
/// metrics.json; from `planned`, [`plan_ahead`]'s plan, where it is the one needed), or spread
/// over several.
pub(super) fn plan(
    config: &Config,
    on: &Devices,
    opts: &mut FocusOptions,
    blocks: Option<usize>,
    planned: Option<Planned>,
) -> CliResult<(Focusing, Option<String>)> {
    if on.devices.len() > 1 {
        let n = on.devices.len();
        return Ok((
            Focusing::Spread(match on.gpus.is_empty() {
                true => DistFocuser::on_cpu(config, *opts, n)?,
                false => DistFocuser::on_cuda(config, *opts, &on.gpus)?,
            }),
            None,
        ));
    }
    let fit = fit(&on.devices[0], config, opts, blocks, planned)?;
    if let Some(why) = &fit.fallback {
        eprintln!("note: {why}");
    }
    let focusing = match fit.focusing {
        Fitted::Whole(f) => Focusing::One(f),
        Fitted::Strip(f) => Focusing::Strip(f),
    };
    Ok((focusing, fit.fallback))
}
