//! The wgpu backend: adapters (Vulkan, Metal, DX12), their limits, and the device.

mod backend;
mod exec;
pub(crate) mod one;

pub(crate) use backend::WgpuMemory;
pub(crate) use exec::WgpuFft;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ::wgpu as w;

use crate::error::{Error, Result};
use crate::plan::DeviceLimits;

/// One adapter as `tierfft devices` lists it.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct AdapterSummary {
    /// Adapter name.
    pub name: String,
    /// Graphics API (Vulkan, Metal, Dx12).
    pub backend: String,
    /// Discrete, integrated, virtual or CPU (software).
    pub kind: String,
    /// Driver name and version.
    pub driver: String,
    /// The limits the planner would use.
    pub limits: DeviceLimits,
    /// Whether GPU timestamps are available for timing.
    pub timestamps: bool,
}

/// A wgpu device opened with its adapter's full limits.
pub struct WgpuDevice {
    info: w::AdapterInfo,
    device: w::Device,
    queue: w::Queue,
    limits: DeviceLimits,
    timestamps: bool,
    /// First error the device reported outside an error scope (validation, out of memory).
    error: Arc<Mutex<Option<Error>>>,
    /// Why the device was lost, once it has been: every later check reports it.
    lost: Arc<Mutex<Option<String>>>,
    /// Storage buffers made so far (tests check that plans keep theirs).
    made: std::sync::atomic::AtomicUsize,
    /// Kernels compiled on this device, by their WGSL source: plans that share a kernel
    /// (a forward and an inverse of one shape, a strip's blocks, N-D axes of one length)
    /// compile it once.
    compiled: Mutex<HashMap<String, exec::Compiled>>,
}

fn instance() -> w::Instance {
    let backends = w::Backends::from_env()
        .unwrap_or(w::Backends::VULKAN | w::Backends::METAL | w::Backends::DX12);
    let mut desc = w::InstanceDescriptor::new_without_display_handle();
    desc.backends = backends;
    w::Instance::new(desc)
}

fn adapters() -> Vec<w::Adapter> {
    pollster::block_on(instance().enumerate_adapters(w::Backends::all()))
}

/// The hardware adapters, best first: discrete, integrated, then virtual GPUs.
fn hardware_adapters() -> Vec<w::Adapter> {
    let rank = |t: w::DeviceType| match t {
        w::DeviceType::DiscreteGpu => 0,
        w::DeviceType::IntegratedGpu => 1,
        w::DeviceType::VirtualGpu => 2,
        _ => 3,
    };
    let mut hw: Vec<w::Adapter> = adapters()
        .into_iter()
        .filter(|a| !is_software(&a.get_info()))
        .collect();
    hw.sort_by_key(|a| rank(a.get_info().device_type));
    hw
}

/// NVIDIA's PCI vendor id, as wgpu reports it.
const NVIDIA_VENDOR: u32 = 0x10de;

fn is_software(info: &w::AdapterInfo) -> bool {
    info.device_type == w::DeviceType::Cpu
}

fn limits_of(adapter: &w::Adapter) -> DeviceLimits {
    limits_from(&adapter.get_info(), &adapter.limits(), adapter.features())
}

/// The planner's limits for a device of `info` opened with limits `l` and `features`.
fn limits_from(info: &w::AdapterInfo, l: &w::Limits, features: w::Features) -> DeviceLimits {
    // Measured shapes for this driver (crate::plan::NVIDIA_VULKAN_*).
    let nvidia_vulkan = info.vendor == NVIDIA_VENDOR && info.backend == w::Backend::Vulkan;
    DeviceLimits {
        name: info.name.clone(),
        workgroup_memory: l.max_compute_workgroup_storage_size as usize,
        max_threads: l
            .max_compute_invocations_per_workgroup
            .min(l.max_compute_workgroup_size_x) as usize,
        subgroup_size: info.subgroup_max_size.max(1) as usize,
        max_binding: l.max_storage_buffer_binding_size.min(l.max_buffer_size),
        max_buffer: l.max_buffer_size,
        max_groups_per_dim: l.max_compute_workgroups_per_dimension,
        binding_alignment: u64::from(l.min_storage_buffer_offset_alignment),
        transaction_bytes: 32,
        max_points_per_thread: if nvidia_vulkan {
            crate::plan::NVIDIA_VULKAN_POINTS_PER_THREAD
        } else {
            8
        },
        // WebGPU does not say.
        registers_per_workgroup: 0,
        // wgpu does not report cache sizes.
        l2_bytes: 0,
        // Not measured through wgpu: fuse every chain that fits one pass.
        max_chain_points: usize::MAX,
        // WGSL has no asynchronous copy.
        async_copy: false,
        // Nor warp shuffles on every adapter.
        lane_sums: false,
        // Nor progress between workgroups, which a workgroup waiting for another needs.
        workgroups_wait: false,
        // Nor clusters of workgroups.
        max_cluster_blocks: 0,
        // Nor how many compute units run them.
        compute_units: 0,
        target_threads: if nvidia_vulkan {
            crate::plan::NVIDIA_VULKAN_TARGET_THREADS
        } else {
            crate::plan::TARGET_THREADS
        },
        exchange: if nvidia_vulkan {
            crate::plan::NVIDIA_VULKAN_EXCHANGE
        } else {
            None
        },
        exchange_rounds: if nvidia_vulkan {
            crate::plan::NVIDIA_VULKAN_EXCHANGE_ROUNDS
        } else {
            1
        },
        shader_f64: features.contains(w::Features::SHADER_F64),
        shader_f16: features.contains(w::Features::SHADER_F16),
    }
}

/// A wgpu error as an [`Error`], wgpu's own kept as its source.
fn from_wgpu(e: w::Error) -> Error {
    match e {
        w::Error::OutOfMemory { source } => Error::OutOfMemory {
            what: "wgpu could not allocate".into(),
            requested: None,
            free: None,
            source: Some(source),
        },
        w::Error::Validation {
            source,
            description,
        }
        | w::Error::Internal {
            source,
            description,
        } => Error::Gpu {
            what: description,
            source: Some(source),
        },
    }
}

/// Every adapter wgpu finds, software ones included.
pub fn list_adapters() -> Vec<AdapterSummary> {
    adapters()
        .iter()
        .map(|a| {
            let info = a.get_info();
            AdapterSummary {
                name: info.name.clone(),
                backend: format!("{:?}", info.backend),
                kind: format!("{:?}", info.device_type),
                driver: format!("{} {}", info.driver, info.driver_info)
                    .trim()
                    .to_string(),
                limits: limits_of(a),
                timestamps: a.features().contains(w::Features::TIMESTAMP_QUERY),
            }
        })
        .collect()
}

impl WgpuDevice {
    /// The best hardware adapter (discrete, then integrated, then virtual), if any.
    pub fn hardware() -> Option<WgpuDevice> {
        hardware_adapters()
            .into_iter()
            .find_map(|a| WgpuDevice::open(a).ok())
    }

    /// Hardware adapter `ordinal` in the order [`WgpuDevice::hardware`] prefers them
    /// (discrete, then integrated, then virtual; wgpu's order within a kind).
    pub fn hardware_nth(ordinal: usize) -> Result<WgpuDevice> {
        let mut hw = hardware_adapters();
        if ordinal >= hw.len() {
            return Err(Error::NoDevice(format!(
                "hardware GPU adapter {ordinal} asked for; wgpu found {} (ordinals from 0)",
                hw.len()
            )));
        }
        WgpuDevice::open(hw.swap_remove(ordinal))
    }

    /// `lavapipe` (any software adapter) or the first adapter whose name contains `name`,
    /// case-insensitive.
    pub fn named(name: &str) -> Result<WgpuDevice> {
        let mut all = adapters();
        let want = name.to_ascii_lowercase();
        let software = matches!(want.as_str(), "lavapipe" | "llvmpipe" | "software");
        let found = all.iter().position(|a| {
            let info = a.get_info();
            if software {
                is_software(&info)
            } else {
                info.name.to_ascii_lowercase().contains(&want)
            }
        });
        match found {
            Some(i) => WgpuDevice::open(all.swap_remove(i)),
            None => {
                let names: Vec<String> = all.iter().map(|a| a.get_info().name).collect();
                let hint = if software {
                    " (install Mesa's lavapipe: apt-get install mesa-vulkan-drivers)"
                } else {
                    ""
                };
                let found = if names.is_empty() {
                    "wgpu found no adapter (no Vulkan, Metal or DX12 driver)".to_string()
                } else {
                    format!("adapters found: [{}]", names.join(", "))
                };
                Err(Error::NoDevice(format!(
                    "no adapter matches '{name}'{hint}; {found}; device names: auto, cpu, cuda, \
                     cuda:N, gpu, gpu:N, lavapipe, or part of an adapter's name (`tierfft devices` lists them)"
                )))
            }
        }
    }

    /// A caller's wgpu `device` and `queue`, opened from `adapter`, for plans that run on
    /// the caller's buffers and record into the caller's command encoders. tierfft installs
    /// no error handler on it: wgpu's errors go to the caller's handler (wgpu's default
    /// panics), and plans use the limits the device was opened with.
    pub fn from_parts(adapter: &w::Adapter, device: w::Device, queue: w::Queue) -> WgpuDevice {
        let info = adapter.get_info();
        WgpuDevice {
            limits: limits_from(&info, &device.limits(), device.features()),
            timestamps: device.features().contains(w::Features::TIMESTAMP_QUERY),
            info,
            device,
            queue,
            error: Default::default(),
            lost: Default::default(),
            made: Default::default(),
            compiled: Default::default(),
        }
    }

    /// Opens `adapter` with all its limits (and timestamps, f64 and f16 arithmetic where it
    /// has them), and keeps the errors and loss wgpu reports for [`WgpuDevice::check`].
    fn open(adapter: w::Adapter) -> Result<WgpuDevice> {
        let wanted =
            w::Features::TIMESTAMP_QUERY | w::Features::SHADER_F64 | w::Features::SHADER_F16;
        let features = adapter.features() & wanted;
        let (device, queue) = pollster::block_on(adapter.request_device(&w::DeviceDescriptor {
            label: Some("tierfft"),
            required_features: features,
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| Error::Gpu {
            what: format!("could not open '{}': {e}", adapter.get_info().name),
            source: Some(Box::new(e)),
        })?;
        let dev = WgpuDevice::from_parts(&adapter, device, queue);
        let sink = dev.error.clone();
        dev.device.on_uncaptured_error(Arc::new(move |e: w::Error| {
            if let Ok(mut slot) = sink.lock() {
                slot.get_or_insert_with(|| from_wgpu(e));
            }
        }));
        let sink = dev.lost.clone();
        dev.device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut slot) = sink.lock() {
                slot.get_or_insert_with(|| format!("{reason:?}: {message}"));
            }
        });
        Ok(dev)
    }

    /// Whether the adapter is a software rasteriser (lavapipe), whose clocks need no warming.
    pub(crate) fn is_software(&self) -> bool {
        is_software(&self.info)
    }

    /// Adapter name and API, e.g. `llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan)`; accepted back
    /// by [`WgpuDevice::named`].
    pub fn name(&self) -> String {
        format!("{} ({:?})", self.info.name, self.info.backend)
    }

    /// The driver's name and version as the adapter reports them (e.g. `NVIDIA 580.159.04`).
    pub fn driver(&self) -> String {
        format!("{} {}", self.info.driver, self.info.driver_info)
            .trim()
            .to_string()
    }

    /// The limits the planner uses.
    pub fn limits(&self) -> &DeviceLimits {
        &self.limits
    }

    /// Turns an error the device reported since the last check into an [`Error`].
    fn check(&self) -> Result<()> {
        if let Ok(lost) = self.lost.lock()
            && let Some(why) = lost.as_ref()
        {
            return Err(Error::DeviceLost {
                what: format!("{}: {why}; open it again and plan again", self.name()),
                source: None,
            });
        }
        match self.error.lock().map(|mut e| e.take()) {
            Ok(None) => Ok(()),
            Ok(Some(e)) => Err(e),
            Err(_) => Err(Error::gpu(
                "error state poisoned by a panic in another thread",
            )),
        }
    }

    /// A storage buffer of `bytes` that kernels and copies can read and write.
    pub(crate) fn storage(&self, bytes: u64, label: &str) -> Result<w::Buffer> {
        if bytes > self.limits.max_buffer {
            return Err(Error::TooLarge {
                what: format!("a buffer of {bytes} bytes"),
                device: self.name(),
                detail: format!("buffers hold at most {} bytes", self.limits.max_buffer),
            });
        }
        self.made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(self.device.create_buffer(&w::BufferDescriptor {
            label: Some(label),
            size: bytes,
            usage: w::BufferUsages::STORAGE | w::BufferUsages::COPY_DST | w::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        }))
    }

    /// A storage buffer holding `data`.
    pub(crate) fn upload(&self, data: &[f32]) -> Result<w::Buffer> {
        let buffer = self.storage(4 * data.len().max(1) as u64, "tierfft data")?;
        self.queue
            .write_buffer(&buffer, 0, bytemuck::cast_slice(data));
        self.check()?;
        Ok(buffer)
    }

    /// Copies `data` into `buffer` from byte `offset`, ordered after the work submitted so
    /// far.
    pub(crate) fn write(&self, buffer: &w::Buffer, offset: u64, data: &[f32]) -> Result<()> {
        if !data.is_empty() {
            self.queue
                .write_buffer(buffer, offset, bytemuck::cast_slice(data));
        }
        self.check()
    }

    /// Copies `buffer` from byte `offset` into `out`, after the work submitted so far.
    pub(crate) fn read(&self, buffer: &w::Buffer, offset: u64, out: &mut [f32]) -> Result<()> {
        let bytes = 4 * out.len() as u64;
        if bytes == 0 {
            return Ok(());
        }
        let readback = self.device.create_buffer(&w::BufferDescriptor {
            label: Some("tierfft readback"),
            size: bytes,
            usage: w::BufferUsages::MAP_READ | w::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = self.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(buffer, offset, &readback, 0, bytes);
        self.queue.submit([enc.finish()]);
        let (tx, rx) = std::sync::mpsc::channel();
        readback.map_async(w::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
        rx.recv()
            .map_err(|_| Error::gpu("readback callback never ran"))?
            .map_err(|e| Error::gpu_from("reading results back", e))?;
        {
            let view = readback
                .get_mapped_range(..)
                .map_err(|e| Error::gpu_from("mapping results", e))?;
            out.copy_from_slice(bytemuck::cast_slice(&view));
        }
        readback.unmap();
        Ok(())
    }

    /// Blocks until the queue is idle.
    pub(crate) fn wait(&self) -> Result<()> {
        self.device
            .poll(w::PollType::wait_indefinitely())
            .map_err(|e| Error::gpu_from("waiting for the GPU", e))?;
        self.check()
    }
}
