//! A plan compiled for a CUDA device: modules, twiddles, launches.

use std::sync::{Arc, Mutex};

use cudarc::driver::sys::CUfunction_attribute as FnAttr;
use cudarc::driver::{
    CudaFunction, CudaSlice, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

use super::cluster::ClusterLaunch;
use super::{CudaDevice, CudaMemory, gpu_err, nvrtc, occupancy, view, view_mut};
use crate::backend::buffer::{Held, foreign};
use crate::backend::fault::{Armed, Fault};
use crate::backend::reshape::elsewhere;
use crate::backend::{Executor, Timer, build_kernels, host_chunk};
use crate::checksum;
use crate::error::Result;
use crate::kernel::ir::{Binding, Kernel, Mem};
use crate::kernel::{cuda, pass_kernel};
use crate::plan::Plan;
use crate::plan::checksum::{failures, verdict};

/// Which buffer slot each pass reads and writes (see [`Plan::routing`]).
pub type Routing = Vec<(usize, usize)>;

/// One compiled pass.
struct Launchable {
    func: CudaFunction,
    threads: u32,
    shared_bytes: u32,
    /// The buffers the kernel binds, in parameter order.
    bindings: Vec<Binding>,
    /// Persistent kernels: blocks the whole GPU holds at once (the grid they loop over).
    resident_blocks: Option<u32>,
    /// Cluster kernels: blocks per cluster (a launch attribute).
    cluster: Option<u32>,
}

/// A plan's kernels compiled for a CUDA device.
pub struct CudaFft {
    dev: Arc<CudaDevice>,
    plan: Plan,
    out_of_place: Vec<Launchable>,
    in_place: Option<Launchable>,
    /// The twiddle table, in the plan's precision.
    twiddles: CudaSlice<f32>,
    /// The plan's device vectors ([`Plan::vectors`]) end to end, in the plan's precision.
    aux: CudaSlice<f32>,
    /// 4-byte words per complex value (2 in f32, 4 in f64): arrays are allocated in words.
    words: usize,
    /// Transforms per host chunk.
    chunk: usize,
    /// Device arrays kept between calls, by routing slot: a call takes the ones it needs
    /// (making any that are missing or of another length) and puts them back when its work
    /// is queued, so repeated calls allocate nothing, as cuFFT keeps its work area. Calls
    /// from several threads at once find the arrays taken and make their own.
    scratch: Mutex<Vec<Option<CudaSlice<f32>>>>,
    /// A bit to flip during the next run (tests of the checksummed mode).
    fault: Armed,
}

/// The kept-array index of a checksummed plan's record buffer (past every routing slot).
const CHECK_SLOT: usize = 8;

/// Compiles `kernel` (or takes it from the cache) and raises its shared-memory limit to
/// `shared_bytes` where that is past the default 48 KiB.
fn compile(dev: &CudaDevice, kernel: &Kernel, shared_bytes: u32) -> Result<CudaFunction> {
    let cubin = nvrtc::compile(&cuda::print(kernel), dev.arch())?;
    let module = dev
        .ctx
        .load_module(Ptx::from_binary(cubin.to_vec()))
        .map_err(gpu_err("loading a module"))?;
    let func = module
        .load_function(&kernel.name)
        .map_err(gpu_err("finding a kernel"))?;
    if shared_bytes > 48 << 10 {
        func.set_attribute(
            FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            shared_bytes as i32,
        )
        .map_err(gpu_err("raising the shared-memory limit"))?;
    }
    Ok(func)
}

/// Registers and occupancy of one compiled pass, as the driver reports them.
#[cfg(feature = "bench")]
#[derive(Clone, Debug)]
pub struct KernelReport {
    /// Registers per thread.
    pub registers: i32,
    /// Local memory (spills) per thread, bytes.
    pub local_bytes: i32,
    /// Dynamic shared memory per block, bytes.
    pub shared_bytes: u32,
    /// Threads per block.
    pub threads: u32,
}

impl CudaFft {
    /// Compiles `plan`'s kernels (or takes them from the cache) and uploads its twiddles.
    pub fn new(dev: Arc<CudaDevice>, plan: &Plan) -> Result<CudaFft> {
        plan.check()?;
        let load = |i: usize, in_place: bool| -> Result<Launchable> {
            let mut kernel = pass_kernel(plan, i, in_place);
            let shared_bytes = plan.passes[i].workgroup_bytes() as u32;
            let mut func = compile(&dev, &kernel, shared_bytes)?;
            if kernel.groups_per_unit.is_none() && kernel.persistent.is_none() {
                let threads = kernel.threads as usize;
                if let Some(blocks) = occupancy::trim(&dev, &func, threads, shared_bytes as usize)?
                {
                    kernel.groups_per_unit = Some(blocks);
                    let trimmed = compile(&dev, &kernel, shared_bytes)?;
                    let spills = trimmed
                        .local_size_bytes()
                        .map_err(gpu_err("reading local memory"))?;
                    if spills == 0 {
                        func = trimmed;
                    }
                }
            }
            if let Some(c) = kernel.cluster {
                if c as usize > crate::plan::MAX_PORTABLE_CLUSTER {
                    func.set_attribute(
                        FnAttr::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                        1,
                    )
                    .map_err(gpu_err("allowing a non-portable cluster size"))?;
                }
                let shape = ClusterLaunch {
                    grid: c,
                    threads: kernel.threads,
                    shared: shared_bytes,
                    cluster: c,
                };
                if shape.active_clusters(&func, &dev.stream)? == 0 {
                    return Err(crate::error::Error::Unsupported {
                        what: format!(
                            "clusters of {c} blocks of {} threads and {shared_bytes} bytes of \
                             shared memory",
                            kernel.threads
                        ),
                        device: dev.name(),
                        detail: "the device cannot hold one such cluster at once; plan without \
                                 the cluster tier (PlanOptions::cluster_blocks = Some(1), \
                                 --cluster-blocks 1)"
                            .into(),
                    });
                }
            }
            let resident_blocks = match kernel.persistent {
                Some(_) => {
                    let per_sm = func
                        .occupancy_max_active_blocks_per_multiprocessor(
                            kernel.threads,
                            shared_bytes as usize,
                            None,
                        )
                        .map_err(gpu_err("reading occupancy"))?;
                    Some(per_sm.max(1) * dev.limits().compute_units as u32)
                }
                None => None,
            };
            Ok(Launchable {
                func,
                threads: kernel.threads,
                shared_bytes,
                bindings: kernel.bindings,
                resident_blocks,
                cluster: kernel.cluster,
            })
        };
        let (out_of_place, in_place) = build_kernels(plan, load)?;
        let twiddles = dev
            .stream
            .clone_htod(&plan.twiddle_words())
            .map_err(gpu_err("uploading twiddles"))?;
        let aux = dev
            .stream
            .clone_htod(&plan.aux_words())
            .map_err(gpu_err("uploading vectors"))?;
        let chunk = host_chunk(plan, dev.limits.max_buffer);
        Ok(CudaFft {
            dev,
            plan: plan.clone(),
            out_of_place,
            in_place,
            twiddles,
            aux,
            words: plan.spec.precision.complex_bytes() / 4,
            chunk,
            scratch: Mutex::default(),
            fault: Armed::default(),
        })
    }

    /// Registers, spills and shared memory of each pass's out-of-place kernel.
    #[cfg(feature = "bench")]
    pub fn report(&self) -> Result<Vec<KernelReport>> {
        self.out_of_place
            .iter()
            .map(|k| {
                Ok(KernelReport {
                    registers: k.func.num_regs().map_err(gpu_err("reading registers"))?,
                    local_bytes: k
                        .func
                        .local_size_bytes()
                        .map_err(gpu_err("reading local memory"))?,
                    shared_bytes: k.shared_bytes,
                    threads: k.threads,
                })
            })
            .collect()
    }

    /// The plan this transform runs.
    #[cfg(feature = "bench")]
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Enqueues the whole transform of `transforms` transforms held in `slots[0]` on the
    /// device's stream, following `routing`; returns the slot holding the result.
    pub fn enqueue(
        &self,
        slots: &mut [&mut CudaSlice<f32>],
        transforms: usize,
        routing: &[(usize, usize)],
    ) -> Result<usize> {
        let (result, check) = self.enqueue_checked(slots, transforms, routing)?;
        self.keep(check.map(|c| (CHECK_SLOT, c)));
        Ok(result)
    }

    /// [`CudaFft::enqueue`], also returning a checksummed plan's record buffer
    /// ([`Plan::check_regions`]) for [`CudaFft::failures`].
    fn enqueue_checked(
        &self,
        slots: &mut [&mut CudaSlice<f32>],
        transforms: usize,
        routing: &[(usize, usize)],
    ) -> Result<(usize, Option<CudaSlice<f32>>)> {
        let stream = &self.dev.stream;
        let result = Plan::result_slot(routing);
        let check_words = self.plan.spec.precision.compute_bytes() / 2;
        // (Plain plans, on every call's path, skip laying out records they do not write.)
        let (regions, mut check) = match self.plan.checksummed() {
            true => {
                let (regions, len) = self.plan.check_regions(transforms);
                (
                    regions,
                    Some(self.take_slot(CHECK_SLOT, check_words * len)?),
                )
            }
            false => (Vec::new(), None),
        };
        if let Some(c) = check.as_mut() {
            // NaN (all bits set) in every record, so one that no kernel writes fails.
            let bytes = c.num_bytes();
            let (ptr, record) = c.device_ptr_mut(stream);
            // SAFETY: `ptr` is `c`'s memory, live and used on this stream; every f32 bit
            // pattern is a valid f32.
            unsafe {
                cudarc::driver::result::memset_d8_async(ptr, 0xFF, bytes, stream.cu_stream())
            }
            .map_err(gpu_err("clearing the checksum records"))?;
            drop(record);
        }
        let fault = self.fault.take();
        let dispatches = self.plan.dispatches(transforms);
        for (d, &(p, first, count)) in dispatches.iter().enumerate() {
            let pass = &self.plan.passes[p];
            let (src, dst) = routing[p];
            let k = match (&self.in_place, src == dst) {
                (Some(k), true) => k,
                _ => &self.out_of_place[p],
            };
            let lines = (count * self.plan.lines_per_transform(pass)) as u32;
            let groups = self.plan.groups(pass, count) as u32;
            let grid = match k.resident_blocks {
                // Persistent: one wave of blocks, each looping over groups.
                Some(resident) => (groups.min(resident), 1, 1),
                None => {
                    let x = groups.min(self.plan.limits.max_groups_per_dim);
                    (x, groups.div_ceil(x), 1)
                }
            };
            let cfg = LaunchConfig {
                grid_dim: grid,
                block_dim: (k.threads, 1, 1),
                shared_mem_bytes: k.shared_bytes,
            };
            // This dispatch's rows, of the pass's own lengths (Bluestein's differ). A resident
            // plan runs every pass of a chunk before the next chunk, so its intermediate
            // slots hold one chunk, reused from the start: they stay in L2.
            let range = |slot: usize, len: usize| {
                let at = match self.holds_one_chunk(slot, result) {
                    true => 0,
                    false => first,
                };
                self.words * at * len..self.words * (at + count) * len
            };
            let rows = |slot: usize| format!("pass {p} of {transforms} transforms, slot {slot}");
            let (src_view, mut dst_view) = if src == dst {
                let d = slots.get_mut(dst).ok_or_else(|| unbound_slot(dst))?;
                (None, view_mut(d, range(dst, pass.dst_len), &rows(dst))?)
            } else {
                let (s, d) = two_slots(slots, src, dst)?;
                (
                    Some(view(s, range(src, pass.src_len), &rows(src))?),
                    view_mut(d, range(dst, pass.dst_len), &rows(dst))?,
                )
            };
            if let Some(cluster) = k.cluster {
                // Cluster kernels launch through the driver with the cluster size attached.
                let (dst_ptr, dst_record) = dst_view.device_ptr_mut(stream);
                let mut ptrs = Vec::with_capacity(k.bindings.len());
                let mut records = vec![dst_record];
                for binding in &k.bindings {
                    let (ptr, record) = match binding.mem {
                        Mem::Src => src_view
                            .as_ref()
                            .ok_or_else(|| unbound(binding))?
                            .device_ptr(stream),
                        Mem::Dst => {
                            ptrs.push(dst_ptr);
                            continue;
                        }
                        Mem::Twiddles => self.twiddles.device_ptr(stream),
                        Mem::Aux => self.aux.device_ptr(stream),
                        Mem::Shared | Mem::Check => return Err(unbound(binding)),
                    };
                    ptrs.push(ptr);
                    records.push(record);
                }
                let mut lines = lines;
                let mut args: Vec<*mut std::ffi::c_void> = ptrs
                    .iter_mut()
                    .map(|p| std::ptr::from_mut(p).cast())
                    .collect();
                args.push(std::ptr::from_mut(&mut lines).cast());
                let launch = ClusterLaunch {
                    grid: groups,
                    threads: k.threads,
                    shared: k.shared_bytes,
                    cluster,
                };
                // SAFETY: `args` point at the kernel's parameters in order (its bindings'
                // device pointers, then `lines`), all live until the launch returns; the
                // buffers outlive the stream's work (the records order later use after it).
                unsafe { launch.launch(&k.func, stream, &mut args) }?;
                drop(records);
                continue;
            }
            let mut dst_arg = Some(&mut dst_view);
            // This dispatch's checksum records.
            let mut check_view = match (&mut check, regions.iter().find(|r| r.dispatch == d)) {
                (Some(c), Some(r)) => Some(view_mut(
                    c,
                    check_words * r.offset..check_words * (r.offset + r.len),
                    "the checksum records",
                )?),
                _ => None,
            };
            let mut check_arg = check_view.as_mut();
            let mut b = stream.launch_builder(&k.func);
            // The arguments in the kernel's binding order, then `lines`.
            for binding in &k.bindings {
                match binding.mem {
                    Mem::Src => b.arg(src_view.as_ref().ok_or_else(|| unbound(binding))?),
                    Mem::Dst => b.arg(dst_arg.take().ok_or_else(|| unbound(binding))?),
                    Mem::Twiddles => b.arg(&self.twiddles),
                    Mem::Aux => b.arg(&self.aux),
                    Mem::Check => b.arg(check_arg.take().ok_or_else(|| unbound(binding))?),
                    Mem::Shared => return Err(unbound(binding)),
                };
            }
            b.arg(&lines);
            // SAFETY: the arguments follow the kernel's parameters (its bindings, all
            // `float2` arrays, then `unsigned lines`); it indexes within the launch's
            // transforms (checked by the tests and compute-sanitizer).
            unsafe { b.launch(cfg) }.map_err(gpu_err("launching a pass"))?;
            let pass_done = dispatches.get(d + 1).is_none_or(|next| next.0 != p);
            if let Some(f) = fault.filter(|f| f.after_pass == p && pass_done) {
                self.flip(slots[routing[p].1], f)?;
            }
        }
        Ok((result, check))
    }

    /// Flips `fault`'s bit in `buffer` (on the stream, between two passes).
    fn flip(&self, buffer: &mut CudaSlice<f32>, fault: Fault) -> Result<()> {
        let stream = &self.dev.stream;
        let at = fault.word..fault.word + 1;
        if fault.word >= buffer.len() {
            return Err(fault.out_of_range(buffer.len()));
        }
        let mut word = [0f32];
        stream
            .memcpy_dtoh(&view(buffer, at.clone(), "the word to flip")?, &mut word)
            .map_err(gpu_err("reading the word to flip"))?;
        word[0] = fault.apply(word[0]);
        stream
            .memcpy_htod(&word, &mut view_mut(buffer, at, "the word to flip")?)
            .map_err(gpu_err("writing the flipped word"))
    }

    /// The transforms (batch indices from `first`) whose records in `check` (from
    /// [`CudaFft::enqueue_checked`] of `transforms`) fail; waits for the run. Keeps the buffer.
    fn failures(
        &self,
        check: CudaSlice<f32>,
        transforms: usize,
        first: usize,
    ) -> Result<Vec<usize>> {
        let mut words = vec![0f32; check.len()];
        let read = self.dev.stream.memcpy_dtoh(&check, &mut words);
        self.keep([(CHECK_SLOT, check)]);
        read.map_err(gpu_err("reading the checksums"))?;
        Ok(failures(&self.plan, &words, transforms, first))
    }

    /// Buffers for `transforms` transforms: as many as `routing` uses, less the first `have`
    /// the caller brings.
    fn alloc_slots(
        &self,
        transforms: usize,
        routing: &[(usize, usize)],
        have: usize,
    ) -> Result<Vec<CudaSlice<f32>>> {
        let result = Plan::result_slot(routing);
        // SAFETY: every slot is written (upload or kernel) before it is read.
        self.plan
            .slot_lens(routing)
            .into_iter()
            .enumerate()
            .skip(have)
            .map(|(slot, len)| {
                let count = self.slot_transforms(slot, result, transforms);
                self.take_slot(slot, self.words * count * len)
            })
            .collect()
    }

    /// The kept array of `slot` if it holds `floats` words, else a new one.
    fn take_slot(&self, slot: usize, floats: usize) -> Result<CudaSlice<f32>> {
        let kept = match self.scratch.lock() {
            Ok(mut kept) => kept.get_mut(slot).and_then(Option::take),
            // A call panicked while putting arrays back: make new ones.
            Err(_) => None,
        };
        match kept {
            Some(s) if s.len() == floats => Ok(s),
            // SAFETY: every slot is written (upload or kernel) before it is read.
            _ => unsafe { self.dev.alloc_f32(floats, false) },
        }
    }

    /// Keeps `slots` (routing slot, array) for the next call. Work queued on them runs
    /// before any later call's, on the same stream.
    fn keep(&self, slots: impl IntoIterator<Item = (usize, CudaSlice<f32>)>) {
        if let Ok(mut kept) = self.scratch.lock() {
            for (slot, s) in slots {
                if kept.len() <= slot {
                    kept.resize_with(slot + 1, || None);
                }
                kept[slot] = Some(s);
            }
        }
    }

    /// Transforms slot `slot` holds for a run of `transforms`: all of them, except in a
    /// resident plan's intermediate slots (neither the input's nor the result's), which
    /// hold one chunk.
    fn slot_transforms(&self, slot: usize, result: usize, transforms: usize) -> usize {
        match self.holds_one_chunk(slot, result) {
            true => self.plan.transforms_per_dispatch.min(transforms),
            false => transforms,
        }
    }

    /// Whether `slot` is a resident plan's intermediate (neither the input's slot 0 nor the
    /// result's), which holds one chunk.
    fn holds_one_chunk(&self, slot: usize, result: usize) -> bool {
        self.plan.resident && slot != 0 && slot != result
    }

    /// Transforms chunk by chunk into `output`, reading `input`, or `output` itself when
    /// `input` is `None` (each chunk is uploaded before its result is written back).
    fn run(&self, input: Option<&[f32]>, output: &mut [f32]) -> Result<()> {
        let n = self.words * self.plan.spec.n;
        let routing = self.plan.routing(input.is_some());
        let total = output.len() / n;
        // Sized for a whole chunk; a shorter last chunk uses their start (launches index by
        // dispatch, not by array length).
        let mut slots = self.alloc_slots(self.chunk.min(total), &routing, 0)?;
        let mut failed = Vec::new();
        for first in (0..total).step_by(self.chunk) {
            let count = self.chunk.min(total - first);
            let r = first * n..(first + count) * n;
            let mut tries = 0;
            let result = loop {
                // (The chunk's input is still on the host: a retry uploads it again.)
                self.dev
                    .write_from_host(&input.unwrap_or(output)[r.clone()], &mut slots[0])?;
                let (result, check) =
                    self.enqueue_checked(&mut refs(&mut slots), count, &routing)?;
                let Some(check) = check else { break result };
                let bad = self.failures(check, count, first)?;
                tries += 1;
                if bad.is_empty() || !checksum::retry(&self.plan.spec, tries) {
                    failed.extend(bad);
                    break result;
                }
            };
            self.dev.read_to_host(&slots[result], &mut output[r])?;
        }
        self.keep(slots.into_iter().enumerate());
        self.dev
            .stream
            .synchronize()
            .map_err(gpu_err("running the transform"))?;
        verdict(failed, total)
    }

    /// Uploads `input` (words) into fresh device buffers for timed runs (input kept in
    /// slot 0).
    pub fn prepare(&self, input: &[f32]) -> Result<(Vec<CudaSlice<f32>>, Routing)> {
        let routing = self.plan.routing(true);
        let transforms = input.len() / (self.words * self.plan.spec.n);
        let mut slots = self.alloc_slots(transforms, &routing, 0)?;
        self.dev
            .stream
            .memcpy_htod(
                input,
                &mut view_mut(&mut slots[0], 0..input.len(), "the input")?,
            )
            .map_err(gpu_err("uploading"))?;
        Ok((slots, routing))
    }
}

/// The slots as the mutable references [`CudaFft::enqueue`] takes.
pub fn refs(slots: &mut [CudaSlice<f32>]) -> Vec<&mut CudaSlice<f32>> {
    slots.iter_mut().collect()
}

/// A kernel binding the launch has no buffer for (a generator bug, reported, not a panic).
pub(super) fn unbound(binding: &Binding) -> crate::Error {
    crate::Error::gpu(format!(
        "the kernel binds {:?}, which this launch does not provide",
        binding.mem
    ))
}

/// `held`'s device memory, when it lives on `dev`.
fn slice_of<'a>(held: &'a mut Held, dev: &Arc<CudaDevice>) -> Result<&'a mut CudaSlice<f32>> {
    CudaMemory::of_mut(held, dev).ok_or_else(|| elsewhere(&dev.name()))
}

/// A routing slot the launch has no buffer for (a planner bug, reported, not a panic).
fn unbound_slot(i: usize) -> crate::Error {
    crate::Error::gpu(format!(
        "the plan routes a pass through slot {i}, which has no buffer"
    ))
}

/// Distinct borrows of two slots, the second mutable.
fn two_slots<'a>(
    slots: &'a mut [&mut CudaSlice<f32>],
    a: usize,
    b: usize,
) -> Result<(&'a CudaSlice<f32>, &'a mut CudaSlice<f32>)> {
    if let Some(&i) = [a, b].iter().find(|&&i| i >= slots.len()) {
        return Err(unbound_slot(i));
    }
    Ok(match a.cmp(&b) {
        std::cmp::Ordering::Less => {
            let (lo, hi) = slots.split_at_mut(b);
            (&*lo[a], &mut *hi[0])
        }
        std::cmp::Ordering::Greater => {
            let (lo, hi) = slots.split_at_mut(a);
            (&*hi[0], &mut *lo[b])
        }
        std::cmp::Ordering::Equal => {
            return Err(crate::Error::gpu(format!(
                "an out-of-place pass reads and writes the same slot {a}"
            )));
        }
    })
}

impl Executor for CudaFft {
    fn process(&self, data: &mut [f32]) -> Result<()> {
        self.run(None, data)
    }

    fn process_out_of_place(&self, input: &[f32], output: &mut [f32]) -> Result<()> {
        self.run(Some(input), output)
    }

    fn process_buffer(&self, data: &mut Held) -> Result<()> {
        let name = self.dev.name();
        let Some(slice) = CudaMemory::of_mut(data, &self.dev) else {
            return Err(foreign(data, &name));
        };
        let routing = self.plan.routing(false);
        let transforms = slice.len() / (self.words * self.plan.spec.n);
        let mut scratch = self.alloc_slots(transforms, &routing, 1)?;
        let mut slots: Vec<&mut CudaSlice<f32>> =
            std::iter::once(slice).chain(scratch.iter_mut()).collect();
        let (result, check) = self.enqueue_checked(&mut slots, transforms, &routing)?;
        if result != 0 {
            let (data, rest) = slots.split_at_mut(1);
            let len = data[0].len();
            let from = rest.get(result - 1).ok_or_else(|| unbound_slot(result))?;
            self.dev
                .stream
                .memcpy_dtod(&view(from, 0..len, "the result")?, &mut *data[0])
                .map_err(gpu_err("copying the result back"))?;
        }
        drop(slots);
        self.keep((1..).zip(scratch));
        // A checksummed run waits for its records; the input is gone (in place): report.
        match check {
            Some(check) => verdict(self.failures(check, transforms, 0)?, transforms),
            None => Ok(()),
        }
    }

    fn process_between(&self, src: &mut Held, dst: &mut Held) -> Result<()> {
        let (src, dst) = (slice_of(src, &self.dev)?, slice_of(dst, &self.dev)?);
        let routing = self.plan.routing_into_caller();
        let result = Plan::result_slot(&routing);
        let transforms = src.len() / (self.words * self.plan.passes[0].src_len);
        // Slot 0 is `src`, the result's slot `dst` (never slot 0: the input is kept), any
        // other a scratch array.
        let lens = self.plan.slot_lens(&routing);
        let mut scratch = Vec::new();
        for (i, len) in lens
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != 0 && i != result)
        {
            let count = self.slot_transforms(i, result, transforms);
            scratch.push((i, self.take_slot(i, self.words * count * len)?));
        }
        let mut taken = scratch.iter_mut().map(|(_, s)| s);
        let mut dst = Some(dst);
        let mut slots = vec![src];
        for i in 1..lens.len() {
            let slot = if i == result {
                dst.take()
            } else {
                taken.next()
            };
            slots.push(slot.ok_or_else(|| unbound_slot(i))?);
        }
        let (_, check) = self.enqueue_checked(&mut slots, transforms, &routing)?;
        drop(slots);
        self.keep(scratch);
        match check {
            Some(check) => verdict(self.failures(check, transforms, 0)?, transforms),
            None => Ok(()),
        }
    }

    fn inject_fault(&self, fault: Fault) -> Result<()> {
        fault.check(&self.plan)?;
        self.fault.arm(fault)
    }

    fn measure(&self, input: &[f32], output: &mut [f32], reps: usize) -> Result<(Vec<f64>, Timer)> {
        let transforms = input.len() / (self.words * self.plan.spec.n);
        let (mut slots, routing) = self.prepare(input)?;
        let (result, check) = self.enqueue_checked(&mut refs(&mut slots), transforms, &routing)?;
        self.dev
            .stream
            .memcpy_dtoh(
                &view(&slots[result], 0..output.len(), "the result")?,
                output,
            )
            .map_err(gpu_err("downloading"))?;
        if let Some(check) = check {
            verdict(self.failures(check, transforms, 0)?, transforms)?;
        }
        let start = std::time::Instant::now();
        while start.elapsed() < crate::backend::WARM_UP {
            self.enqueue(&mut refs(&mut slots), transforms, &routing)?;
            self.dev
                .stream
                .synchronize()
                .map_err(gpu_err("waiting for the GPU"))?;
        }
        let seconds = time_events(&self.dev, reps, || {
            self.enqueue(&mut refs(&mut slots), transforms, &routing)
                .map(|_| ())
        })?;
        Ok((seconds, Timer::GpuTimestamps))
    }
}

/// Times `reps` runs of `work` on the device's stream with CUDA events, seconds each.
pub(crate) fn time_events(
    dev: &CudaDevice,
    reps: usize,
    mut work: impl FnMut() -> Result<()>,
) -> Result<Vec<f64>> {
    let timing = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
    let mut seconds = Vec::with_capacity(reps);
    for _ in 0..reps {
        let start = dev
            .stream
            .record_event(timing)
            .map_err(gpu_err("recording an event"))?;
        work()?;
        let end = dev
            .stream
            .record_event(timing)
            .map_err(gpu_err("recording an event"))?;
        end.synchronize().map_err(gpu_err("waiting for the GPU"))?;
        seconds.push(
            f64::from(
                start
                    .elapsed_ms(&end)
                    .map_err(gpu_err("reading an event"))?,
            ) * 1e-3,
        );
    }
    Ok(seconds)
}
