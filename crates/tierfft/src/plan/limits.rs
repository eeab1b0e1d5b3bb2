//! What the planner needs to know about a device, read from the device itself.

use super::Exchange;
use crate::base::precision::Precision;
use crate::error::{Error, Result};

/// The device facts a plan depends on. Backends fill this from the device's own limits; a few
/// named profiles ([`DeviceLimits::profile`]) let `tierfft plan` show plans for devices that
/// are not attached. Limits for another device start from a profile with fields set by hand
/// (`let mut l = DeviceLimits::profile("small-16k")?; l.workgroup_memory = 64 << 10;`): the
/// struct is `#[non_exhaustive]`, so that facts can be added, and planning checks what was set
/// ([`DeviceLimits::validate`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceLimits {
    /// Human-readable device name.
    pub name: String,
    /// On-chip memory one workgroup may use, bytes (WGSL workgroup storage, CUDA shared memory).
    pub workgroup_memory: usize,
    /// Most threads (invocations) in one workgroup.
    pub max_threads: usize,
    /// Threads that execute in lockstep (subgroup, SIMD group, warp).
    pub subgroup_size: usize,
    /// Largest range of one buffer a kernel may bind, bytes.
    pub max_binding: u64,
    /// Largest single buffer, bytes.
    pub max_buffer: u64,
    /// Most workgroups in one dimension of a dispatch.
    pub max_groups_per_dim: u32,
    /// Required alignment of a binding's offset, bytes.
    pub binding_alignment: u64,
    /// Width of a memory transaction, bytes: strided passes read runs at least this long.
    pub transaction_bytes: usize,
    /// Most points one thread may hold in registers (8; 16 where registers allow a larger
    /// on-chip block than the thread limit times 8).
    pub max_points_per_thread: usize,
    /// 32-bit registers one workgroup may use (CUDA: 65536 from sm_50 on); 0 where the API
    /// does not say. Where known, a line that is not a power of two and has no one-pass shape
    /// within `max_points_per_thread` may hold up to `MAX_HELD_POINTS` (64) points per thread
    /// when the whole workgroup's registers still fit (see [`RegisterBudget`]).
    pub registers_per_workgroup: usize,
    /// Last-level cache, bytes (0 when the API does not say). Multi-pass plans run in chunks
    /// that stay resident there between passes.
    pub l2_bytes: usize,
    /// Longest chained FFT → multiply → inverse FFT fused into one kernel. Longer chains that
    /// fit one pass run as two kernels (the forward transform; the inverse with the filter on
    /// its load), which is faster where one kernel holding both transforms spills registers.
    pub max_chain_points: usize,
    /// Global-to-workgroup memory copies can run asynchronously (CUDA `cp.async`, sm_80 and
    /// up); fused chains then default to persistent prefetching kernels
    /// ([`crate::plan::PlanOptions::prefetch`]).
    pub async_copy: bool,
    /// Threads of a warp can add their values without workgroup memory or barriers (CUDA's
    /// `__shfl_xor_sync`); checksummed kernels then sum their lines' records per warp
    /// ([`crate::Checksum`]). False through wgpu, whose WGSL has no such thing everywhere.
    pub lane_sums: bool,
    /// A workgroup may wait for the work of another that is resident at the same time
    /// (CUDA: resident blocks run to completion whatever the others do), so two passes can
    /// run as one launch whose workgroups take tiles by ticket ([`crate::plan::Merged`]).
    /// False through wgpu: WGSL promises no progress between workgroups.
    pub workgroups_wait: bool,
    /// Most workgroups of the largest shape (all of a workgroup's memory and threads) that
    /// run as one cluster sharing their workgroup memory (CUDA thread-block clusters, read
    /// from the driver); 0 where the device has no clusters. Enables the cluster tier
    /// ([`crate::plan::Cluster`]).
    pub max_cluster_blocks: usize,
    /// Compute units (CUDA streaming multiprocessors) workgroups run on; 0 where the API does
    /// not say. A small batch is spread over at least this many workgroups where its lines
    /// allow, rather than packed into a few (H100: batches 4 and 16 of 4096 points packed two
    /// to a workgroup ran at 0.85 of cuFFT, one to a workgroup at parity).
    pub compute_units: usize,
    /// Threads per workgroup the planner packs lines up to unless
    /// [`PlanOptions::target_threads`](super::PlanOptions::target_threads) says otherwise:
    /// [`TARGET_THREADS`](super::TARGET_THREADS), or
    /// [`NVIDIA_VULKAN_TARGET_THREADS`](super::NVIDIA_VULKAN_TARGET_THREADS) for NVIDIA GPUs
    /// through Vulkan.
    pub target_threads: usize,
    /// How passes exchange points through workgroup memory unless
    /// [`PlanOptions::exchange`](super::PlanOptions::exchange) says otherwise. `None`: complex
    /// wherever the line fits. NVIDIA GPUs through Vulkan take
    /// [`NVIDIA_VULKAN_EXCHANGE`](super::NVIDIA_VULKAN_EXCHANGE).
    pub exchange: Option<Exchange>,
    /// Most rounds the planner's model exchanges a one-pass f32 line in, through the complex
    /// exchange, where the line fits the registers but its complex exchange does not fit
    /// workgroup memory at once (taken before the device's [`DeviceLimits::exchange`] and
    /// before a second pass; [`PlanOptions::exchange_rounds`](super::PlanOptions::exchange_rounds)
    /// and [`PlanOptions::exchange`](super::PlanOptions::exchange) set it aside): 1, none;
    /// NVIDIA GPUs through Vulkan take
    /// [`NVIDIA_VULKAN_EXCHANGE_ROUNDS`](super::NVIDIA_VULKAN_EXCHANGE_ROUNDS).
    pub exchange_rounds: usize,
    /// The device computes in f64 (wgpu `SHADER_F64`; every CUDA GPU). Whether tierfft's
    /// kernels use it is the planner's and backends' business ([`crate::Precision`]).
    pub shader_f64: bool,
    /// The device computes in f16 (wgpu `SHADER_F16`; CUDA from sm_53).
    pub shader_f16: bool,
}

impl DeviceLimits {
    /// Named profiles of devices the project targets, for planning without the device:
    /// `lavapipe`, `apple-m1`, `h100-vulkan`, `raspberry-pi-5`, `small-16k`.
    pub fn profile(name: &str) -> Option<DeviceLimits> {
        let gib = 1u64 << 30;
        let base = DeviceLimits {
            name: name.to_string(),
            workgroup_memory: 32 << 10,
            max_threads: 1024,
            subgroup_size: 32,
            max_binding: 128 << 20,
            max_buffer: 2 * gib,
            max_groups_per_dim: 65535,
            binding_alignment: 256,
            transaction_bytes: 32,
            max_points_per_thread: 8,
            registers_per_workgroup: 0,
            l2_bytes: 0,
            max_chain_points: usize::MAX,
            async_copy: false,
            lane_sums: false,
            workgroups_wait: false,
            max_cluster_blocks: 0,
            compute_units: 0,
            target_threads: super::TARGET_THREADS,
            exchange: None,
            exchange_rounds: 1,
            shader_f64: false,
            shader_f16: false,
        };
        Some(match name {
            // Mesa's CPU Vulkan (PLATFORM.md): SHADER_F16 and SHADER_F64.
            "lavapipe" => DeviceLimits {
                subgroup_size: 8,
                shader_f64: true,
                shader_f16: true,
                ..base
            },
            // Apple M1 through Metal: 32 KiB threadgroup memory, 1024 threads, SIMD width 32;
            // half precision, no double.
            "apple-m1" => DeviceLimits {
                max_binding: gib,
                max_buffer: 8 * gib,
                shader_f16: true,
                ..base
            },
            // NVIDIA H100 through Vulkan (PLATFORM.md).
            "h100-vulkan" => DeviceLimits {
                workgroup_memory: 48 << 10,
                target_threads: super::NVIDIA_VULKAN_TARGET_THREADS,
                exchange: super::NVIDIA_VULKAN_EXCHANGE,
                exchange_rounds: super::NVIDIA_VULKAN_EXCHANGE_ROUNDS,
                max_points_per_thread: super::NVIDIA_VULKAN_POINTS_PER_THREAD,
                max_binding: 2 * gib,
                max_buffer: 4 * gib,
                shader_f64: true,
                shader_f16: true,
                ..base
            },
            // NVIDIA H100 through CUDA: 227 KiB opt-in shared memory; one launch binds what
            // 32-bit indices reach (8 GiB, as the CUDA backend sets).
            "h100-cuda" => DeviceLimits {
                workgroup_memory: 227 << 10,
                max_binding: 8 * gib,
                max_buffer: 80 * gib,
                max_groups_per_dim: 65535,
                max_points_per_thread: 16,
                registers_per_workgroup: 65536,
                l2_bytes: 50 << 20,
                max_chain_points: super::CUDA_MAX_CHAIN_POINTS,
                async_copy: true,
                lane_sums: true,
                workgroups_wait: true,
                // What the H100's driver reports for blocks of 1024 threads and 227 KiB,
                // non-portable sizes allowed.
                max_cluster_blocks: 16,
                compute_units: 132,
                shader_f64: true,
                shader_f16: true,
                ..base
            },
            // VideoCore VII through Mesa's v3dv: 16 KiB shared memory, 256 invocations.
            "raspberry-pi-5" => DeviceLimits {
                workgroup_memory: 16 << 10,
                max_threads: 256,
                subgroup_size: 16,
                max_binding: 128 << 20,
                max_buffer: gib,
                ..base
            },
            // WebGPU's guaranteed minimum limits.
            "small-16k" => DeviceLimits {
                workgroup_memory: 16 << 10,
                max_threads: 256,
                max_binding: 128 << 20,
                max_buffer: 256 << 20,
                ..base
            },
            _ => return None,
        })
    }

    /// Checks limits filled in by hand (the backends read theirs from the device): every
    /// size the planner divides by or rounds to is positive, alignments are powers of two.
    /// [`crate::plan::Plan::with_options`] calls it; `Err` is [`Error::InvalidSpec`] naming
    /// the field.
    pub fn validate(&self) -> Result<()> {
        let fields = [
            ("workgroup_memory", self.workgroup_memory),
            ("max_threads", self.max_threads),
            ("subgroup_size", self.subgroup_size),
            (
                "max_binding",
                usize::try_from(self.max_binding).unwrap_or(usize::MAX),
            ),
            (
                "max_buffer",
                usize::try_from(self.max_buffer).unwrap_or(usize::MAX),
            ),
            ("max_groups_per_dim", self.max_groups_per_dim as usize),
            ("transaction_bytes", self.transaction_bytes),
            ("max_points_per_thread", self.max_points_per_thread),
            ("max_chain_points", self.max_chain_points),
            ("target_threads", self.target_threads),
            ("exchange_rounds", self.exchange_rounds),
        ];
        if let Some((name, _)) = fields.iter().find(|(_, v)| *v == 0) {
            return Err(Error::InvalidSpec(format!(
                "device limits of '{}': {name} must be at least 1",
                self.name
            )));
        }
        if !self.binding_alignment.is_power_of_two() {
            return Err(Error::InvalidSpec(format!(
                "device limits of '{}': binding_alignment must be a power of two (got {})",
                self.name, self.binding_alignment
            )));
        }
        Ok(())
    }

    /// Whether `points` in all (a batch's) give every compute unit at least `block` of
    /// them; always where the device does not say how many units it has. The cluster tier
    /// and wisdom's keys both split batches here.
    pub fn filled_by(&self, points: usize, block: usize) -> bool {
        self.compute_units == 0 || points >= self.compute_units.saturating_mul(block)
    }

    /// Names accepted by [`DeviceLimits::profile`].
    pub const PROFILES: &'static [&'static str] = &[
        "lavapipe",
        "apple-m1",
        "h100-vulkan",
        "h100-cuda",
        "raspberry-pi-5",
        "small-16k",
    ];
}

/// Most points a thread holds under a [`RegisterBudget`]'s wider limit. On the H100 (CUDA),
/// 7^5 = 16807 as one pass of 343 threads × 49 points ran 1.6× faster than two passes
/// (docs/BENCHMARKS.md, "2026-11-23, commit ba49a12").
pub(crate) const MAX_HELD_POINTS: usize = 64;

/// Fewest lines (transforms) a pass must have to take the wider limit. Such a workgroup fills
/// a multiprocessor's registers by itself, so few of them leave most of the GPU idle: on the
/// H100 (132 multiprocessors) one pass beat two from 64 or 128 lines on and lost below.
pub(crate) const WIDE_MIN_LINES: usize = 64;

/// How many points a thread of a line may hold between stages (and in a stage's rounds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RegisterBudget {
    /// Points always allowed: twice the device's points per thread.
    pub points: usize,
    /// [`DeviceLimits::registers_per_workgroup`] (0: unknown, no wider limit).
    pub registers_per_workgroup: usize,
    /// Threads are allocated registers a whole subgroup at a time.
    pub subgroup_size: usize,
    /// Lines a workgroup holds at least (each line's threads hold their points at once).
    pub lines: usize,
    /// Whether the wider limit may be taken: the register file is known and the pass has at
    /// least `WIDE_MIN_LINES` (64) lines.
    pub wide: bool,
}

impl RegisterBudget {
    /// The budget for workgroups of at least `lines` lines on `limits`, with at least
    /// `per_thread` points per thread, in a pass of `all_lines` lines.
    pub fn new(
        limits: &DeviceLimits,
        per_thread: usize,
        lines: usize,
        all_lines: usize,
    ) -> RegisterBudget {
        RegisterBudget {
            points: 2 * limits.max_points_per_thread.max(per_thread),
            registers_per_workgroup: limits.registers_per_workgroup,
            subgroup_size: limits.subgroup_size.max(1),
            lines: lines.max(1),
            wide: limits.registers_per_workgroup > 0 && all_lines >= WIDE_MIN_LINES,
        }
    }

    /// Whether the `threads` threads of a line may each hold `points` points: at most
    /// `self.points`, or with `wide` at most `MAX_HELD_POINTS` (only where `self.wide`
    /// allows); and where the register file is known, two registers a point plus 16 for
    /// indices and twiddles, for every thread of the workgroup's lines rounded up to whole
    /// subgroups, within it (on the H100 the shapes past that spilled and ran slower than two
    /// passes).
    pub fn fits(&self, points: usize, threads: usize, wide: bool) -> bool {
        let known = self.registers_per_workgroup > 0;
        let most = if wide { MAX_HELD_POINTS } else { self.points };
        let allocated = (threads * self.lines).next_multiple_of(self.subgroup_size);
        points <= most
            && (self.wide || !wide)
            && (!known || allocated * (2 * points + 16) <= self.registers_per_workgroup)
    }
}

/// Why `device` (with `limits`, `None` for the CPU) cannot run transforms in `precision`,
/// or `None` when it can: f32, f16 and bf16 everywhere (16-bit storage is converted to f32
/// around the arithmetic, so the device needs no f16 arithmetic); f64 on the CPU and on GPUs
/// with f64 arithmetic.
pub(crate) fn precision_refusal(
    precision: Precision,
    device: String,
    limits: Option<&DeviceLimits>,
) -> Option<Error> {
    match limits {
        Some(l) if precision == Precision::F64 && !l.shader_f64 => Some(Error::Unsupported {
            what: format!("an FFT in {precision}"),
            device,
            detail: "the device has no f64 arithmetic (no SHADER_F64); Device::cpu() transforms \
                     in f64"
                .into(),
        }),
        _ => None,
    }
}
