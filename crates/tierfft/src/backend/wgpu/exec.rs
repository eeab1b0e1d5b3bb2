//! A plan compiled for a wgpu device: pipelines, twiddles, buffers, dispatches.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use ::wgpu as w;
use w::util::DeviceExt;

use super::{WgpuDevice, WgpuMemory};
use crate::backend::buffer::{Held, foreign};
use crate::backend::fault::{Armed, Fault};
use crate::backend::reshape::elsewhere;
use crate::backend::{Executor, Kernels, Timer, host_chunk};
use crate::checksum;
use crate::error::{Error, Result};
use crate::kernel::ir::{Access, Binding, Kernel, Mem};
use crate::kernel::{pass_kernel, wgsl};
use crate::plan::Plan;
use crate::plan::checksum::{failures, verdict};
use crate::plan::schedule::{PERSISTENT_WAVE, Route, Schedule, Span};

/// A plan's kernels compiled for a wgpu device.
pub struct WgpuFft {
    dev: Arc<WgpuDevice>,
    plan: Plan,
    /// Every kernel of the plan ([`Plan::kernels`]).
    kernels: Kernels<Compiled>,
    twiddles: w::Buffer,
    /// The plan's vectors buffer (each vector at its place in [`Plan::vectors`]' layout; one
    /// unused value when there are none), of which each launch binds its pass's span
    /// ([`Plan::aux_range`]).
    aux: w::Buffer,
    /// Bytes of one complex value (8 in f32, 16 in f64).
    point_bytes: usize,
    /// Transforms per host chunk.
    chunk: usize,
    /// Device buffers kept between calls, by routing slot ([`Scratch`]).
    scratch: Mutex<Scratch>,
    /// A bit to flip during the next run (tests of the checksummed mode).
    fault: Armed,
}

/// The scratch index of a checksummed plan's record buffer (past every routing slot).
const CHECK_SLOT: usize = 8;

/// What a plan keeps from one call to the next, for one call at a time: calls on one plan
/// from several threads take turns.
#[derive(Default)]
struct Scratch {
    /// Buffers by slot, made on first use or again when a call needs a larger one, so
    /// repeated calls allocate nothing, as cuFFT keeps its work area (`None`: not made yet,
    /// or a caller's buffer there). [`CHECK_SLOT`] holds the checksum records.
    buffers: Vec<Option<w::Buffer>>,
    /// The last schedule and its launch parameters, reused while calls ask for it again.
    laid: Option<(Arc<Schedule>, w::Buffer)>,
    /// The last run on the plan's own buffers only, bound, reused likewise. Runs on a
    /// caller's buffers are bound anew each call: a kept bind group would keep the caller's
    /// buffer alive after they drop it.
    bound: Option<Chunk>,
}

/// One run's buffers and the bind group of each launch of its schedule.
#[derive(Clone)]
struct Chunk {
    schedule: Arc<Schedule>,
    /// Each slot's buffer and the byte it starts at.
    slots: Vec<(w::Buffer, u64)>,
    /// Each launch's bind group, in schedule order.
    groups: Vec<w::BindGroup>,
    /// Each launch's kernel, in schedule order.
    pipelines: Vec<w::ComputePipeline>,
    /// A checksummed plan's record buffer and its length, bytes.
    check: Option<(w::Buffer, u64)>,
}

impl WgpuFft {
    /// Compiles `plan`'s kernels on `dev`.
    pub fn new(dev: Arc<WgpuDevice>, plan: &Plan) -> Result<WgpuFft> {
        plan.check()?;
        if plan.merged.is_some() {
            return Err(crate::error::Error::Unsupported {
                what: "two passes merged into one launch".into(),
                device: dev.name(),
                detail: "its workgroups wait for one another, which WGSL does not promise to \
                         allow; plan with PlanOptions::merge = Some(false)"
                    .into(),
            });
        }
        let chunk = host_chunk(plan, dev.limits.max_buffer);
        let compile = |i: usize, in_place: bool| dev.compile(&pass_kernel(plan, i, in_place));
        let kernels = Kernels::build(plan, compile)?;
        let twiddles = dev
            .device
            .create_buffer_init(&w::util::BufferInitDescriptor {
                label: Some("tierfft twiddles"),
                contents: bytemuck::cast_slice(&plan.twiddle_words()),
                usage: w::BufferUsages::STORAGE,
            });
        let aux = dev
            .device
            .create_buffer_init(&w::util::BufferInitDescriptor {
                label: Some("tierfft vectors"),
                contents: bytemuck::cast_slice(&plan.aux_words()),
                usage: w::BufferUsages::STORAGE,
            });
        dev.check()?;
        Ok(WgpuFft {
            dev,
            plan: plan.clone(),
            kernels,
            twiddles,
            aux,
            point_bytes: plan.spec.precision.complex_bytes(),
            chunk,
            scratch: Mutex::default(),
            fault: Armed::default(),
        })
    }

    /// The kept buffers, for one call at a time.
    fn scratch(&self) -> Result<MutexGuard<'_, Scratch>> {
        self.scratch
            .lock()
            .map_err(|_| Error::gpu("a call panicked while holding the plan's buffers"))
    }

    /// The schedule of `transforms` transforms by `route`, and its launches' parameters: the
    /// last ones again where they match.
    fn laid(
        &self,
        scratch: &mut Scratch,
        transforms: usize,
        route: Route,
    ) -> (Arc<Schedule>, w::Buffer) {
        if let Some((s, params)) = &scratch.laid
            && s.transforms == transforms
            && s.route == route
        {
            return (s.clone(), params.clone());
        }
        let schedule = Arc::new(self.plan.schedule(transforms, route));
        // Each launch's `lines` in a record of its own, at the alignment uniform bindings need.
        let stride = (self.param_stride() / 4) as usize;
        let mut words = vec![0u32; stride * schedule.launches.len().max(1)];
        for (i, l) in schedule.launches.iter().enumerate() {
            words[i * stride] = l.lines;
        }
        let params = self
            .dev
            .device
            .create_buffer_init(&w::util::BufferInitDescriptor {
                label: Some("tierfft launch parameters"),
                contents: bytemuck::cast_slice(&words),
                usage: w::BufferUsages::UNIFORM,
            });
        scratch.laid = Some((schedule.clone(), params.clone()));
        (schedule, params)
    }

    /// Bytes between two launches' parameter records.
    fn param_stride(&self) -> u64 {
        u64::from(self.dev.device.limits().min_uniform_buffer_offset_alignment).max(16)
    }

    /// Buffers and bind groups for `transforms` transforms by `route`; the slots `given`
    /// lists are those buffers (a user's device buffers), the others the plan's kept buffers
    /// (made or enlarged as needed).
    fn prepare(
        &self,
        scratch: &mut Scratch,
        transforms: usize,
        route: Route,
        given: &[(usize, &WgpuMemory)],
    ) -> Result<Chunk> {
        if given.is_empty()
            && let Some(c) = &scratch.bound
            && c.schedule.transforms == transforms
            && c.schedule.route == route
        {
            return Ok(c.clone());
        }
        let (schedule, params) = self.laid(scratch, transforms, route);
        let point = self.point_bytes as u64;
        let buffers = &mut scratch.buffers;
        buffers.resize(buffers.len().max(schedule.slots.len()), None);
        let mut made = false;
        // Each slot's buffer, the byte it starts at, and the bytes from there it may use.
        let slots = schedule
            .slots
            .iter()
            .zip(buffers.iter_mut())
            .enumerate()
            .map(|(i, (slot, kept))| {
                if let Some((_, m)) = given.iter().find(|(at, _)| *at == i) {
                    return Ok((m.buffer.clone(), m.offset, 4 * m.floats as u64));
                }
                let need = point * slot.len() as u64;
                match kept {
                    Some(b) if b.size() >= need => Ok((b.clone(), 0, b.size())),
                    _ => {
                        let b = self.dev.storage(need, &format!("tierfft slot {i}"))?;
                        *kept = Some(b.clone());
                        made = true;
                        Ok((b, 0, need))
                    }
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let record = 2 * self.plan.spec.precision.compute_bytes() as u64;
        let check = match schedule.check_len {
            0 => None,
            len => {
                let need = record * len as u64;
                buffers.resize(buffers.len().max(CHECK_SLOT + 1), None);
                let kept = &mut buffers[CHECK_SLOT];
                let buffer = match kept {
                    Some(b) if b.size() >= need => b.clone(),
                    _ => {
                        made = true;
                        self.dev.storage(need, "tierfft checksums")?
                    }
                };
                *kept = Some(buffer.clone());
                Some((buffer, need))
            }
        };
        if made {
            // The bound run holds buffers just replaced.
            scratch.bound = None;
        }
        let stride = self.param_stride();
        let mut groups = Vec::with_capacity(schedule.launches.len());
        let mut pipelines = Vec::with_capacity(schedule.launches.len());
        for (i, launch) in schedule.launches.iter().enumerate() {
            // A span past its slot is refused here: wgpu would accept one that still lies
            // inside the buffer (a caller's view into a larger one) and the pass would write
            // past it.
            for span in launch.src.iter().chain([&launch.dst]) {
                let bytes = span.scaled(self.point_bytes);
                let room = slots
                    .get(span.slot)
                    .ok_or_else(|| unbound_slot(span.slot))?
                    .2;
                if bytes.end as u64 > room {
                    return Err(Error::gpu(format!(
                        "pass {} of {transforms} transforms, slot {}: bytes {bytes:?} lie \
                         outside the slot's {room} (an internal error: please report it with \
                         the spec)",
                        launch.pass, span.slot
                    )));
                }
            }
            let range = |span: &Span| {
                let bytes = span.scaled(self.point_bytes);
                w::BindingResource::Buffer(w::BufferBinding {
                    buffer: &slots[span.slot].0,
                    offset: slots[span.slot].1 + bytes.start as u64,
                    size: w::BufferSize::new((bytes.end - bytes.start) as u64),
                })
            };
            let lines = w::BindingResource::Buffer(w::BufferBinding {
                buffer: &params,
                offset: stride * i as u64,
                size: w::BufferSize::new(16),
            });
            let kernel = self.kernels.get(launch.pass, launch.in_place)?;
            pipelines.push(kernel.pipeline.clone());
            let group = self.dev.bind(kernel, lines, |mem| match mem {
                Mem::Src => launch.src.as_ref().map(range),
                Mem::Dst => Some(range(&launch.dst)),
                Mem::Twiddles => Some(self.twiddles.as_entire_binding()),
                Mem::Aux => {
                    let element = self.plan.aux_element_bytes() as u64;
                    let r = &launch.vectors;
                    Some(w::BindingResource::Buffer(w::BufferBinding {
                        buffer: &self.aux,
                        offset: element * r.start as u64,
                        size: w::BufferSize::new(element * r.len() as u64),
                    }))
                }
                Mem::Check => {
                    let (buffer, _) = check.as_ref()?;
                    let r = launch.check.as_ref()?;
                    Some(w::BindingResource::Buffer(w::BufferBinding {
                        buffer,
                        offset: record * r.start as u64,
                        size: w::BufferSize::new(record * r.len() as u64),
                    }))
                }
                // (Merged plans, the only ones with counters, are refused in `new`.)
                Mem::Shared | Mem::Counters => None,
            })?;
            groups.push(group);
        }
        self.dev.check()?;
        let chunk = Chunk {
            schedule,
            slots: slots.into_iter().map(|(b, at, _)| (b, at)).collect(),
            groups,
            pipelines,
            check,
        };
        if given.is_empty() {
            scratch.bound = Some(chunk.clone());
        }
        Ok(chunk)
    }

    /// [`WgpuFft::prepare`] for the in-place transform of `data`, a buffer of this device.
    fn prepare_in_place(&self, scratch: &mut Scratch, data: &Held) -> Result<Chunk> {
        let Some(memory) = WgpuMemory::of(data, &self.dev) else {
            return Err(foreign(data, &self.dev.name()));
        };
        let transforms = 4 * data.floats() / (self.point_bytes * self.plan.spec.n);
        self.prepare(scratch, transforms, Route::InPlace, &[(0, memory)])
    }

    /// Records one whole transform of the chunk as one compute pass.
    fn encode(
        &self,
        enc: &mut w::CommandEncoder,
        c: &Chunk,
        timestamps: Option<(&w::QuerySet, u32)>,
    ) {
        self.encode_launches(enc, c, timestamps, 0..c.groups.len());
    }

    /// Records the chunk's launches `range` as one compute pass.
    fn encode_launches(
        &self,
        enc: &mut w::CommandEncoder,
        c: &Chunk,
        timestamps: Option<(&w::QuerySet, u32)>,
        range: std::ops::Range<usize>,
    ) {
        let timestamp_writes = timestamps.map(|(set, i)| w::ComputePassTimestampWrites {
            query_set: set,
            beginning_of_pass_write_index: Some(i),
            end_of_pass_write_index: Some(i + 1),
        });
        let mut cp = enc.begin_compute_pass(&w::ComputePassDescriptor {
            label: Some("tierfft fft"),
            timestamp_writes,
        });
        let launches = &c.schedule.launches[range.clone()];
        let bound = c.groups[range.clone()].iter().zip(&c.pipelines[range]);
        for (launch, (group, pipeline)) in launches.iter().zip(bound) {
            let (x, y) = launch.grid.dims(PERSISTENT_WAVE);
            cp.set_pipeline(pipeline);
            cp.set_bind_group(0, group, &[]);
            cp.dispatch_workgroups(x, y, 1);
        }
    }

    /// Records the copy of the result into slot 0 where the routing leaves it elsewhere.
    fn copy_into(&self, enc: &mut w::CommandEncoder, c: &Chunk) {
        let result = c.schedule.result;
        if result != 0 {
            let ((from, at), (into, to)) = (&c.slots[result], &c.slots[0]);
            let bytes = self.point_bytes * self.plan.spec.n * c.schedule.transforms;
            enc.copy_buffer_to_buffer(from, *at, into, *to, bytes as u64);
        }
    }

    /// Copies the result into slot 0 where the routing leaves it elsewhere, and submits.
    fn copy_result_back(&self, c: &Chunk) {
        if c.schedule.result != 0 {
            let mut enc = self.dev.device.create_command_encoder(&Default::default());
            self.copy_into(&mut enc, c);
            self.dev.queue.submit([enc.finish()]);
        }
    }

    fn upload(&self, c: &Chunk, data: &[f32]) {
        self.dev
            .queue
            .write_buffer(&c.slots[0].0, c.slots[0].1, bytemuck::cast_slice(data));
    }

    /// Runs the transform on the chunk (flipping an armed fault's bit between its passes);
    /// for a checksummed plan, waits and returns the transforms (within the chunk) that
    /// fail their checks.
    fn run(&self, c: &Chunk) -> Result<Vec<usize>> {
        let fault = self.fault.take();
        let submit = |range: std::ops::Range<usize>| {
            let mut enc = self.dev.device.create_command_encoder(&Default::default());
            self.encode_launches(&mut enc, c, None, range);
            self.dev.queue.submit([enc.finish()]);
        };
        if let Some((buffer, bytes)) = &c.check {
            // NaN (all bits set) in every record, so one that no kernel writes fails.
            let nan = vec![0xFFu8; *bytes as usize];
            self.dev.queue.write_buffer(buffer, 0, &nan);
        }
        let all = c.groups.len();
        match fault.and_then(|f| Some((f, c.schedule.fault_point(f.after_pass)?))) {
            Some((f, (launch, slot))) => {
                submit(0..launch + 1);
                let (buffer, offset) = &c.slots[slot];
                let at = *offset + 4 * f.word as u64;
                if at + 4 > buffer.size() {
                    return Err(f.out_of_range(((buffer.size() - offset) / 4) as usize));
                }
                let mut word = [0f32];
                self.dev.read(buffer, at, &mut word)?;
                word[0] = f.apply(word[0]);
                self.dev
                    .queue
                    .write_buffer(buffer, at, bytemuck::cast_slice(&word));
                submit(launch + 1..all);
            }
            None => submit(0..all),
        }
        let Some((buffer, bytes)) = &c.check else {
            return Ok(Vec::new());
        };
        let mut words = vec![0f32; (*bytes / 4) as usize];
        self.dev.read(buffer, 0, &mut words)?;
        Ok(failures(&self.plan, &words, c.schedule.transforms, 0))
    }

    /// Uploads `input` into the chunk and runs it, once more (uploading again) if a
    /// checksummed run fails and the spec asks to recompute; returns the transforms (batch
    /// indices from `first`) that failed their checks.
    fn run_from(&self, c: &Chunk, input: &[f32], first: usize) -> Result<Vec<usize>> {
        let mut tries = 0;
        let failed = loop {
            self.upload(c, input);
            let bad = self.run(c)?;
            tries += 1;
            if bad.is_empty() || !checksum::retry(&self.plan.spec, tries) {
                break bad;
            }
        };
        Ok(failed.into_iter().map(|t| first + t).collect())
    }

    /// Reads the chunk's result into `out`.
    fn download(&self, c: &Chunk, out: &mut [f32]) -> Result<()> {
        let (buffer, offset) = &c.slots[c.schedule.result];
        self.dev.read(buffer, *offset, out)
    }

    /// Runs `input` by `route` chunk by chunk into `output` (which may be `input`'s storage:
    /// each chunk is uploaded before its result is written back); `words` of data, and `io`
    /// gets each chunk's range of them.
    fn run_chunks(
        &self,
        words: usize,
        route: Route,
        mut io: impl FnMut(&Self, &Chunk, std::ops::Range<usize>) -> Result<()>,
    ) -> Result<()> {
        let transform = self.point_bytes / 4 * self.plan.spec.n;
        let transforms = words / transform;
        let mut scratch = self.scratch()?;
        for first in (0..transforms).step_by(self.chunk) {
            let count = self.chunk.min(transforms - first);
            let c = self.prepare(&mut scratch, count, route, &[])?;
            io(self, &c, first * transform..(first + count) * transform)?;
        }
        Ok(())
    }
}

/// Kernels a device keeps compiled for reuse ([`WgpuDevice::compile`]) before it starts
/// afresh.
const MAX_KEPT_KERNELS: usize = 1024;

/// A kernel compiled for a wgpu device: its pipeline, and the bind-group layout and buffer
/// order its bindings ([`Kernel::bindings`]) give.
#[derive(Clone)]
pub(super) struct Compiled {
    pub(super) name: String,
    pub(super) pipeline: w::ComputePipeline,
    layout: w::BindGroupLayout,
    bindings: Vec<Binding>,
}

impl WgpuDevice {
    /// Prints `kernel` as WGSL and compiles it, with an explicit layout from its bindings (so
    /// a kernel may leave one unused); compile errors carry naga's message. A kernel this
    /// device has compiled before is reused.
    pub(super) fn compile(&self, kernel: &Kernel) -> Result<Compiled> {
        if let Some(c) = kernel.cluster {
            return Err(crate::error::Error::Unsupported {
                what: format!("a kernel run by clusters of {c} workgroups"),
                device: self.limits.name.clone(),
                detail: "WGSL has no clusters; plan for this device (its limits say so)".into(),
            });
        }
        // The source holds the bindings and the entry point's name: equal sources compile
        // to interchangeable pipelines.
        let source = wgsl::print(kernel);
        if let Some(c) = self
            .compiled
            .lock()
            .ok()
            .and_then(|m| m.get(&source).cloned())
        {
            return Ok(c);
        }
        let compiled = self.compile_source(kernel, &source)?;
        if let Ok(mut m) = self.compiled.lock() {
            // A bound on what a long-running process keeps: its plans hold their own.
            if m.len() >= MAX_KEPT_KERNELS {
                m.clear();
            }
            m.insert(source, compiled.clone());
        }
        Ok(compiled)
    }

    /// Compiles `kernel`, printed as `source`.
    fn compile_source(&self, kernel: &Kernel, source: &str) -> Result<Compiled> {
        let entry = |binding: u32, ty: w::BufferBindingType| w::BindGroupLayoutEntry {
            binding,
            visibility: w::ShaderStages::COMPUTE,
            ty: w::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let mut entries: Vec<w::BindGroupLayoutEntry> = kernel
            .bindings
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let read_only = b.access == Access::Read;
                entry(i as u32, w::BufferBindingType::Storage { read_only })
            })
            .collect();
        entries.push(entry(
            wgsl::params_binding(&kernel.bindings),
            w::BufferBindingType::Uniform,
        ));
        let layout = self
            .device
            .create_bind_group_layout(&w::BindGroupLayoutDescriptor {
                label: None,
                entries: &entries,
            });
        let pipeline_layout = self
            .device
            .create_pipeline_layout(&w::PipelineLayoutDescriptor {
                label: None,
                bind_group_layouts: &[Some(&layout)],
                ..Default::default()
            });
        let scope = self.device.push_error_scope(w::ErrorFilter::Validation);
        // SAFETY: every generated kernel indexes in range: the plan tests check the launch
        // shapes against the buffers, and the numerical tests run every kernel family with
        // poisoned outputs on lavapipe.
        let module = unsafe {
            self.device.create_shader_module_trusted(
                w::ShaderModuleDescriptor {
                    label: Some("tierfft pass"),
                    source: w::ShaderSource::Wgsl(source.into()),
                },
                w::ShaderRuntimeChecks::unchecked(),
            )
        };
        let pipeline = self
            .device
            .create_compute_pipeline(&w::ComputePipelineDescriptor {
                label: Some(&kernel.name),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: None,
                compilation_options: w::PipelineCompilationOptions {
                    zero_initialize_workgroup_memory: false,
                    ..Default::default()
                },
                cache: None,
            });
        match pollster::block_on(scope.pop()) {
            None => Ok(Compiled {
                name: kernel.name.clone(),
                pipeline,
                layout,
                bindings: kernel.bindings.clone(),
            }),
            Some(e) => Err(Error::Compile {
                kernel: kernel.doc.first().cloned().unwrap_or_default(),
                log: e.to_string(),
            }),
        }
    }

    /// A bind group for `kernel`: each binding gets `resource(binding's buffer)`, and the
    /// dispatch parameters `params` come after them.
    pub(super) fn bind<'a>(
        &self,
        kernel: &Compiled,
        params: w::BindingResource<'a>,
        resource: impl Fn(Mem) -> Option<w::BindingResource<'a>>,
    ) -> Result<w::BindGroup> {
        let mut entries = Vec::with_capacity(kernel.bindings.len() + 1);
        for (i, b) in kernel.bindings.iter().enumerate() {
            let resource = resource(b.mem).ok_or_else(|| {
                Error::gpu(format!(
                    "the kernel binds {:?}, which this dispatch does not provide",
                    b.mem
                ))
            })?;
            entries.push(w::BindGroupEntry {
                binding: i as u32,
                resource,
            });
        }
        entries.push(w::BindGroupEntry {
            binding: wgsl::params_binding(&kernel.bindings),
            resource: params,
        });
        Ok(self.device.create_bind_group(&w::BindGroupDescriptor {
            label: Some(&kernel.name),
            layout: &kernel.layout,
            entries: &entries,
        }))
    }
}

impl Executor for WgpuFft {
    fn held_bytes(&self) -> u64 {
        let kept = self.scratch.lock().map_or(0, |s| {
            let buffers: u64 = s.buffers.iter().flatten().map(|b| b.size()).sum();
            buffers + s.laid.as_ref().map_or(0, |(_, b)| b.size())
        });
        self.twiddles.size() + self.aux.size() + kept
    }

    fn process(&self, data: &mut [f32]) -> Result<()> {
        let len = data.len();
        let transform = len / self.plan.spec.batch.max(1);
        let mut failed = Vec::new();
        self.run_chunks(len, Route::InPlace, |me, c, r| {
            // The chunk's input stays in `data` until its result is read back over it.
            failed.extend(me.run_from(c, &data[r.clone()], r.start / transform)?);
            me.download(c, &mut data[r])
        })?;
        verdict(failed, self.plan.spec.batch)
    }

    fn process_out_of_place(&self, input: &[f32], output: &mut [f32]) -> Result<()> {
        let transform = input.len() / self.plan.spec.batch.max(1);
        let mut failed = Vec::new();
        self.run_chunks(input.len(), Route::KeepInput, |me, c, r| {
            failed.extend(me.run_from(c, &input[r.clone()], r.start / transform)?);
            me.download(c, &mut output[r])
        })?;
        verdict(failed, self.plan.spec.batch)
    }

    fn process_buffer(&self, data: &mut Held) -> Result<()> {
        let c = self.prepare_in_place(&mut *self.scratch()?, data)?;
        // A checksummed run waits for its records; the input is gone (in place): report.
        let failed = self.run(&c)?;
        self.copy_result_back(&c);
        self.dev.check()?;
        verdict(failed, c.schedule.transforms)
    }

    fn record(&self, enc: &mut w::CommandEncoder, data: &mut Held) -> Result<()> {
        if self.plan.checksummed() {
            return Err(Error::Unsupported {
                what: "recording a checksummed transform into a caller's encoder".into(),
                device: self.dev.name(),
                detail: "its checks are read when the work is done, which a recorded command \
                         does not wait for; use process_buffer"
                    .into(),
            });
        }
        let c = self.prepare_in_place(&mut *self.scratch()?, data)?;
        self.encode(enc, &c, None);
        self.copy_into(enc, &c);
        Ok(())
    }

    fn process_between(&self, src: &mut Held, dst: &mut Held) -> Result<()> {
        let ours =
            |held| WgpuMemory::of(held, &self.dev).ok_or_else(|| elsewhere(&self.dev.name()));
        let (src_memory, dst_memory) = (ours(src)?, ours(dst)?);
        let transforms = 4 * src.floats() / (self.point_bytes * self.plan.passes[0].src_len);
        // Never slot 0: the input is kept.
        let result = Plan::result_slot(&self.plan.route(Route::IntoCaller));
        let mut scratch = self.scratch()?;
        let c = self.prepare(
            &mut scratch,
            transforms,
            Route::IntoCaller,
            &[(0, src_memory), (result, dst_memory)],
        )?;
        let failed = self.run(&c)?;
        self.dev.check()?;
        verdict(failed, transforms)
    }

    fn inject_fault(&self, fault: Fault) -> Result<()> {
        fault.check(&self.plan)?;
        self.fault.arm(fault)
    }

    fn measure(&self, input: &[f32], output: &mut [f32], reps: usize) -> Result<(Vec<f64>, Timer)> {
        let n = self.plan.spec.n;
        let transforms = 4 * input.len() / (self.point_bytes * n);
        if transforms > self.chunk {
            return Err(Error::TooLarge {
                what: format!("timing {transforms} transforms of {n} points"),
                device: self.dev.name(),
                detail: format!(
                    "timed runs keep the data in one buffer; use a batch of at most {}",
                    self.chunk
                ),
            });
        }
        let mut scratch = self.scratch()?;
        let c = self.prepare(&mut scratch, transforms, Route::KeepInput, &[])?;
        let failed = self.run_from(&c, input, 0)?;
        self.download(&c, output)?;
        verdict(failed, transforms)?;
        if !self.dev.is_software() {
            let start = Instant::now();
            while start.elapsed() < crate::backend::WARM_UP {
                let mut enc = self.dev.device.create_command_encoder(&Default::default());
                self.encode(&mut enc, &c, None);
                self.dev.queue.submit([enc.finish()]);
                self.dev.wait()?;
            }
        }
        let mut seconds = Vec::with_capacity(reps);
        if self.dev.timestamps {
            // Every repetition in one submission, each compute pass between two timestamps.
            let count = 2 * reps as u32;
            let set = self.dev.device.create_query_set(&w::QuerySetDescriptor {
                label: Some("tierfft timestamps"),
                ty: w::QueryType::Timestamp,
                count,
            });
            let size = 8 * u64::from(count);
            let resolve = self.dev.device.create_buffer(&w::BufferDescriptor {
                label: None,
                size,
                usage: w::BufferUsages::QUERY_RESOLVE | w::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let read = self.dev.device.create_buffer(&w::BufferDescriptor {
                label: None,
                size,
                usage: w::BufferUsages::MAP_READ | w::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut enc = self.dev.device.create_command_encoder(&Default::default());
            for i in 0..reps as u32 {
                self.encode(&mut enc, &c, Some((&set, 2 * i)));
            }
            enc.resolve_query_set(&set, 0..count, &resolve, 0);
            enc.copy_buffer_to_buffer(&resolve, 0, &read, 0, size);
            self.dev.queue.submit([enc.finish()]);
            read.map_async(w::MapMode::Read, .., |_| {});
            self.dev.wait()?;
            let period = f64::from(self.dev.queue.get_timestamp_period()) * 1e-9;
            let view = read
                .get_mapped_range(..)
                .map_err(|e| Error::gpu_from("mapping timestamps", e))?;
            let ticks: &[u64] = bytemuck::cast_slice(&view);
            seconds.extend(
                ticks
                    .chunks(2)
                    .map(|t| t[1].wrapping_sub(t[0]) as f64 * period),
            );
        } else {
            for _ in 0..reps {
                let t = Instant::now();
                let mut enc = self.dev.device.create_command_encoder(&Default::default());
                self.encode(&mut enc, &c, None);
                self.dev.queue.submit([enc.finish()]);
                self.dev.wait()?;
                seconds.push(t.elapsed().as_secs_f64());
            }
        }
        let timer = if self.dev.timestamps {
            Timer::GpuTimestamps
        } else {
            Timer::WallClock
        };
        Ok((seconds, timer))
    }
}

/// A routing slot the dispatch has no buffer for (a planner bug, reported, not a panic).
fn unbound_slot(i: usize) -> Error {
    Error::gpu(format!(
        "the plan routes a pass through slot {i}, which has no buffer"
    ))
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use num_complex::Complex32;

    use super::*;
    use crate::FftSpec;

    /// A plan keeps its buffers: the second call of each kind makes none (lavapipe, a
    /// two-pass length whose second slot is scratch).
    #[test]
    fn repeated_calls_make_no_buffers() {
        let dev = Arc::new(WgpuDevice::named("lavapipe").expect("lavapipe for the GPU tests"));
        let spec = FftSpec::new(1 << 16).batch(2);
        let plan = Plan::new(&spec, dev.limits()).expect("plan");
        assert!(plan.passes.len() > 1, "a plan with scratch");
        let fft = WgpuFft::new(dev.clone(), &plan).expect("compile");
        let input: Vec<Complex32> = (0..spec.n * spec.batch)
            .map(|i| Complex32::new((i % 7) as f32, (i % 3) as f32))
            .collect();
        let input: Vec<f32> = bytemuck::cast_slice(&input).to_vec();
        let made = || dev.made.load(Ordering::Relaxed);
        let mut out = vec![0.0; input.len()];
        fft.process_out_of_place(&input, &mut out)
            .expect("first call");
        let first = out.clone();
        let before = made();
        fft.process_out_of_place(&input, &mut out)
            .expect("second call");
        assert_eq!(made(), before, "the second call made buffers");
        assert_eq!(out, first);
        let mut data = input.clone();
        fft.process(&mut data).expect("in place");
        let before = made();
        let mut data = input.clone();
        fft.process(&mut data).expect("in place again");
        assert_eq!(made(), before);
        assert_eq!(data, first);
    }
}
