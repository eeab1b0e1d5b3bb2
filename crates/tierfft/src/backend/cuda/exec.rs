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
use crate::backend::{Executor, KernelResources, Kernels, Timer, host_chunk};
use crate::checksum;
use crate::error::Result;
use crate::kernel::ir::{Binding, Kernel, Mem};
use crate::kernel::{cuda, pass_kernel};
use crate::plan::Plan;
use crate::plan::checksum::{failures, verdict};
use crate::plan::schedule::{Grid, PERSISTENT_WAVE, Route, Schedule};

/// One compiled pass.
struct Launchable {
    func: CudaFunction,
    threads: u32,
    shared_bytes: u32,
    /// The buffers the kernel binds, in parameter order.
    bindings: Vec<Binding>,
    /// Persistent kernels: blocks the whole GPU holds at once (the grid they loop over).
    resident_blocks: Option<u32>,
}

/// A plan's kernels compiled for a CUDA device.
pub(crate) struct CudaFft {
    dev: Arc<CudaDevice>,
    plan: Plan,
    kernels: Kernels<Launchable>,
    /// The twiddle table, in the plan's precision.
    twiddles: CudaSlice<f32>,
    /// The plan's vectors buffer (each vector at its place in [`Plan::vectors`]' layout), in
    /// the plan's precision; each launch binds its pass's span ([`Plan::aux_range`]).
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
    /// The schedule of the last out-of-place run between device buffers, kept so that
    /// repeated runs of one batch go from the call straight to the launches (timed runs
    /// between two events on the stream see no host work a precomputed schedule avoids).
    between_schedule: Mutex<Option<Schedule>>,
    /// A bit to flip during the next run (tests of the checksummed mode).
    fault: Armed,
}

/// The kept-array index of a checksummed plan's record buffer (past every routing slot).
const CHECK_SLOT: usize = 8;
/// The kept-array index of a merged plan's counters ([`Mem::Counters`]).
const COUNTER_SLOT: usize = 9;

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

impl CudaFft {
    /// Compiles `plan`'s kernels (or takes them from the cache) and uploads its twiddles.
    pub(crate) fn new(dev: Arc<CudaDevice>, plan: &Plan) -> Result<CudaFft> {
        plan.check()?;
        let load = |i: usize, in_place: bool| -> Result<Launchable> {
            let mut kernel = pass_kernel(plan, i, in_place);
            let shared_bytes = plan.kernel_workgroup_bytes(i) as u32;
            let mut func = compile(&dev, &kernel, shared_bytes)?;
            // (Ticketed kernels too; prefetching ones keep the compiler's choice.)
            let trims = kernel.persistent.as_ref().is_none_or(|p| p.tickets);
            if kernel.groups_per_unit.is_none() && trims {
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
            })
        };
        let kernels = Kernels::build(plan, load)?;
        let twiddles = dev
            .stream
            .clone_htod(&plan.twiddle_words())
            .map_err(gpu_err("uploading twiddles"))?;
        let words = plan.aux_words();
        let aux = match words.len() {
            0 => dev
                .stream
                .clone_htod(&words)
                .map_err(gpu_err("uploading vectors"))?,
            // Through the pinned staging buffers: a filter as large as a scene (gigabytes)
            // uploads about four times faster than from pageable memory.
            len => {
                // SAFETY: the copy writes every value before any kernel reads it.
                let mut aux = unsafe { dev.alloc_f32(len, false) }?;
                dev.write_from_host(&words, &mut aux)?;
                aux
            }
        };
        let chunk = host_chunk(plan, dev.limits.max_buffer);
        Ok(CudaFft {
            dev,
            plan: plan.clone(),
            kernels,
            twiddles,
            aux,
            words: plan.spec.precision.complex_bytes() / 4,
            chunk,
            scratch: Mutex::default(),
            between_schedule: Mutex::default(),
            fault: Armed::default(),
        })
    }

    /// Enqueues the launches of `schedule` on the device's stream, the input in `slots[0]`;
    /// returns the slot holding the result.
    pub(crate) fn enqueue(
        &self,
        slots: &mut [&mut CudaSlice<f32>],
        schedule: &Schedule,
    ) -> Result<usize> {
        let check = self.enqueue_checked(slots, schedule)?;
        self.keep(check.map(|c| (CHECK_SLOT, c)));
        Ok(schedule.result)
    }

    /// [`CudaFft::enqueue`], returning a checksummed plan's record buffer for
    /// [`CudaFft::failures`].
    fn enqueue_checked(
        &self,
        slots: &mut [&mut CudaSlice<f32>],
        schedule: &Schedule,
    ) -> Result<Option<CudaSlice<f32>>> {
        let stream = &self.dev.stream;
        let check_words = self.plan.spec.precision.compute_bytes() / 2;
        let mut check = match schedule.check_len {
            0 => None,
            len => Some(self.take_slot(CHECK_SLOT, check_words * len)?),
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
        let aux_words = self.plan.aux_element_bytes() / 4;
        // A merged plan's counters (u32s in a word array), zeroed before each launch.
        let counters = schedule
            .launches
            .iter()
            .map(|l| l.grid.counters(l.count))
            .max()
            .unwrap_or(0);
        let mut counters = match counters {
            0 => None,
            len => Some(self.take_slot(COUNTER_SLOT, len)?),
        };
        for launch in &schedule.launches {
            let k = self.kernels.get(launch.pass, launch.in_place)?;
            // The pass's own vectors ([`Plan::aux_range`]).
            let aux = view(
                &self.aux,
                aux_words * launch.vectors.start..aux_words * launch.vectors.end,
                "the vectors",
            )?;
            let (x, y) = launch
                .grid
                .dims(k.resident_blocks.unwrap_or(PERSISTENT_WAVE));
            let rows = |slot: usize| {
                format!(
                    "pass {} of {} transforms, slot {slot}",
                    launch.pass, schedule.transforms
                )
            };
            let dst = launch.dst;
            let (src_view, mut dst_view) = match launch.src {
                None => {
                    let d = slots
                        .get_mut(dst.slot)
                        .ok_or_else(|| unbound_slot(dst.slot))?;
                    (None, view_mut(d, dst.scaled(self.words), &rows(dst.slot))?)
                }
                Some(src) => {
                    let (s, d) = two_slots(slots, src.slot, dst.slot)?;
                    (
                        Some(view(s, src.scaled(self.words), &rows(src.slot))?),
                        view_mut(d, dst.scaled(self.words), &rows(dst.slot))?,
                    )
                }
            };
            let mut check_view = match (&mut check, &launch.check) {
                (Some(c), Some(r)) => Some(view_mut(
                    c,
                    check_words * r.start..check_words * r.end,
                    "the checksum records",
                )?),
                _ => None,
            };
            if let Grid::Clusters { groups, blocks } = launch.grid {
                // Cluster kernels launch through the driver with the cluster size attached.
                let (dst_ptr, dst_record) = dst_view.device_ptr_mut(stream);
                let mut ptrs = Vec::with_capacity(k.bindings.len());
                let mut records = vec![dst_record];
                let mut cluster_check = check_view.as_mut();
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
                        Mem::Aux => aux.device_ptr(stream),
                        Mem::Check => cluster_check
                            .take()
                            .ok_or_else(|| unbound(binding))?
                            .device_ptr_mut(stream),
                        Mem::Shared | Mem::Counters => return Err(unbound(binding)),
                    };
                    ptrs.push(ptr);
                    records.push(record);
                }
                let mut lines = launch.lines;
                let mut args: Vec<*mut std::ffi::c_void> = ptrs
                    .iter_mut()
                    .map(|p| std::ptr::from_mut(p).cast())
                    .collect();
                args.push(std::ptr::from_mut(&mut lines).cast());
                let shape = ClusterLaunch {
                    grid: groups,
                    threads: k.threads,
                    shared: k.shared_bytes,
                    cluster: blocks,
                };
                // SAFETY: `args` point at the kernel's parameters in order (its bindings'
                // device pointers, then `lines`), all live until the launch returns; the
                // buffers outlive the stream's work (the records order later use after it).
                unsafe { shape.launch(&k.func, stream, &mut args) }?;
                drop(records);
            } else {
                let mut dst_arg = Some(&mut dst_view);
                let mut check_arg = check_view.as_mut();
                let mut counter_view = match (&mut counters, launch.grid.counters(launch.count)) {
                    (Some(c), len) if len > 0 => {
                        let mut v = view_mut(c, 0..len, "the counters")?;
                        stream
                            .memset_zeros(&mut v)
                            .map_err(gpu_err("zeroing the counters"))?;
                        Some(v)
                    }
                    _ => None,
                };
                let mut counter_arg = counter_view.as_mut();
                let mut b = stream.launch_builder(&k.func);
                // The arguments in the kernel's binding order, then `lines`.
                for binding in &k.bindings {
                    match binding.mem {
                        Mem::Src => b.arg(src_view.as_ref().ok_or_else(|| unbound(binding))?),
                        Mem::Dst => b.arg(dst_arg.take().ok_or_else(|| unbound(binding))?),
                        Mem::Twiddles => b.arg(&self.twiddles),
                        Mem::Aux => b.arg(&aux),
                        Mem::Check => b.arg(check_arg.take().ok_or_else(|| unbound(binding))?),
                        Mem::Counters => b.arg(counter_arg.take().ok_or_else(|| unbound(binding))?),
                        Mem::Shared => return Err(unbound(binding)),
                    };
                }
                b.arg(&launch.lines);
                let cfg = LaunchConfig {
                    grid_dim: (x, y, 1),
                    block_dim: (k.threads, 1, 1),
                    shared_mem_bytes: k.shared_bytes,
                };
                // SAFETY: the arguments follow the kernel's parameters (its bindings, all
                // `float2` arrays, then `unsigned lines`); it indexes within the launch's
                // transforms (checked by the tests and compute-sanitizer).
                unsafe { b.launch(cfg) }.map_err(gpu_err("launching a pass"))?;
            }
            if let Some(f) =
                fault.filter(|f| launch.passes.contains(&f.after_pass) && launch.ends_pass)
            {
                self.flip(slots[dst.slot], f)?;
            }
        }
        self.keep(counters.map(|c| (COUNTER_SLOT, c)));
        Ok(check)
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
    /// [`CudaFft::enqueue_checked`] of a run of `transforms`) fail; waits for the run. Keeps
    /// the buffer.
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

    /// Arrays for `schedule`'s slots, less the first `have` the caller brings.
    fn alloc_slots(&self, schedule: &Schedule, have: usize) -> Result<Vec<CudaSlice<f32>>> {
        (have..schedule.slots.len())
            .map(|i| self.take_slot(i, self.words * schedule.slots[i].len()))
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

    /// Transforms chunk by chunk into `output`, reading `input`, or `output` itself when
    /// `input` is `None` (each chunk is uploaded before its result is written back).
    fn run(&self, input: Option<&[f32]>, output: &mut [f32]) -> Result<()> {
        let n = self.words * self.plan.spec.n;
        let route = match input {
            Some(_) => Route::KeepInput,
            None => Route::InPlace,
        };
        let total = output.len() / n;
        // Sized for a whole chunk; a shorter last chunk uses their start.
        let whole = self.plan.schedule(self.chunk.min(total), route);
        let mut slots = self.alloc_slots(&whole, 0)?;
        let mut failed = Vec::new();
        for first in (0..total).step_by(self.chunk) {
            let count = self.chunk.min(total - first);
            let short;
            let schedule = match count == whole.transforms {
                true => &whole,
                false => {
                    short = self.plan.schedule(count, route);
                    &short
                }
            };
            let r = first * n..(first + count) * n;
            let mut tries = 0;
            let result = loop {
                // (The chunk's input is still on the host: a retry uploads it again.)
                self.dev
                    .write_from_host(&input.unwrap_or(output)[r.clone()], &mut slots[0])?;
                let check = self.enqueue_checked(&mut refs(&mut slots), schedule)?;
                let Some(check) = check else {
                    break schedule.result;
                };
                let bad = self.failures(check, count, first)?;
                tries += 1;
                if bad.is_empty() || !checksum::retry(&self.plan.spec, tries) {
                    failed.extend(bad);
                    break schedule.result;
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

    /// Uploads `input` (words) into device buffers for timed runs, and the schedule that
    /// runs them (the input kept in slot 0).
    pub(crate) fn prepare(&self, input: &[f32]) -> Result<(Vec<CudaSlice<f32>>, Schedule)> {
        let transforms = input.len() / (self.words * self.plan.spec.n);
        let schedule = self.plan.schedule(transforms, Route::KeepInput);
        let mut slots = self.alloc_slots(&schedule, 0)?;
        self.dev
            .stream
            .memcpy_htod(
                input,
                &mut view_mut(&mut slots[0], 0..input.len(), "the input")?,
            )
            .map_err(gpu_err("uploading"))?;
        Ok((slots, schedule))
    }

    /// Transforms `src` into `dst`, `src` intact. With `verify` a checksummed plan waits for
    /// its records and reports the transforms that fail; without, the records are written
    /// and kept unread, and nothing waits.
    fn between(&self, src: &mut Held, dst: &mut Held, verify: bool) -> Result<()> {
        let (src, dst) = (slice_of(src, &self.dev)?, slice_of(dst, &self.dev)?);
        let transforms = src.len() / (self.words * self.plan.passes[0].src_len);
        let kept = match self.between_schedule.lock() {
            Ok(mut kept) => kept.take(),
            // A call panicked while putting the schedule back: make a new one.
            Err(_) => None,
        };
        let schedule = match kept {
            Some(s) if s.transforms == transforms => s,
            _ => self.plan.schedule(transforms, Route::IntoCaller),
        };
        let result = schedule.result;
        // Slot 0 is `src`, the result's slot `dst` (never slot 0: the input is kept), any
        // other a scratch array.
        let mut scratch = Vec::new();
        for (i, slot) in schedule.slots.iter().enumerate() {
            if i != 0 && i != result {
                scratch.push((i, self.take_slot(i, self.words * slot.len())?));
            }
        }
        let mut taken = scratch.iter_mut().map(|(_, s)| s);
        let mut dst = Some(dst);
        let mut slots = vec![src];
        for i in 1..schedule.slots.len() {
            let slot = if i == result {
                dst.take()
            } else {
                taken.next()
            };
            slots.push(slot.ok_or_else(|| unbound_slot(i))?);
        }
        let check = self.enqueue_checked(&mut slots, &schedule);
        drop(slots);
        self.keep(scratch);
        if let Ok(mut kept) = self.between_schedule.lock() {
            *kept = Some(schedule);
        }
        match check? {
            Some(check) if !verify => {
                self.keep([(CHECK_SLOT, check)]);
                Ok(())
            }
            Some(check) => verdict(self.failures(check, transforms, 0)?, transforms),
            None => Ok(()),
        }
    }
}

/// The slots as the mutable references [`CudaFft::enqueue`] takes.
pub(crate) fn refs(slots: &mut [CudaSlice<f32>]) -> Vec<&mut CudaSlice<f32>> {
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
    fn held_bytes(&self) -> u64 {
        let kept: usize = self
            .scratch
            .lock()
            .map_or(0, |s| s.iter().flatten().map(|a| a.len()).sum());
        4 * (self.twiddles.len() + self.aux.len() + kept) as u64
    }

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
        let transforms = slice.len() / (self.words * self.plan.spec.n);
        let schedule = self.plan.schedule(transforms, Route::InPlace);
        let mut scratch = self.alloc_slots(&schedule, 1)?;
        let mut slots: Vec<&mut CudaSlice<f32>> =
            std::iter::once(slice).chain(scratch.iter_mut()).collect();
        let check = self.enqueue_checked(&mut slots, &schedule)?;
        let result = schedule.result;
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
        self.between(src, dst, true)
    }

    fn process_between_unverified(&self, src: &mut Held, dst: &mut Held) -> Result<()> {
        self.between(src, dst, false)
    }

    fn kernel_resources(&self) -> Result<Vec<KernelResources>> {
        self.kernels
            .per_pass()
            .map(|k| {
                Ok(KernelResources {
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

    fn inject_fault(&self, fault: Fault) -> Result<()> {
        fault.check(&self.plan)?;
        self.fault.arm(fault)
    }

    fn measure(&self, input: &[f32], output: &mut [f32], reps: usize) -> Result<(Vec<f64>, Timer)> {
        let transforms = input.len() / (self.words * self.plan.spec.n);
        let (mut slots, schedule) = self.prepare(input)?;
        let check = self.enqueue_checked(&mut refs(&mut slots), &schedule)?;
        let result = schedule.result;
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
            self.enqueue(&mut refs(&mut slots), &schedule)?;
            self.dev
                .stream
                .synchronize()
                .map_err(gpu_err("waiting for the GPU"))?;
        }
        let seconds = time_events(&self.dev, reps, || {
            self.enqueue(&mut refs(&mut slots), &schedule).map(|_| ())
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
