//! The CPU backend: rustfft, batches spread over the machine's cores (rayon's pool).

use std::ops::Range;
use std::ptr::NonNull;
use std::sync::Arc;
use std::time::Instant;

use num_complex::{Complex, Complex64};
use rayon::prelude::*;
use rustfft::{Fft, FftPlanner};

use super::api::CPU_NAME;
use super::buffer::{Held, Memory, foreign};
use super::copy::Rows;
use super::fault::{Armed, Fault};
use super::{Executor, Timer};
use crate::base::layout::transpose;
use crate::base::precision::{Precision, pack_half, unpack_half};
use crate::base::words::{Real, with_values_mut};
use crate::checksum::Checksum;
use crate::error::{Error, Result};
use crate::plan::checksum::{Judge, Sums};
use crate::spec::{Direction, FftSpec, PointOp};

/// The CPU's memory: f32 values on the host, owned, or borrowed from another host memory
/// for a [`super::BufferView`].
pub(crate) enum HostMemory {
    Owned(Vec<f32>),
    /// `len` values from `ptr`, part of an owned memory that the view borrowing them keeps
    /// mutably borrowed (and so unused otherwise, and alive) while this lives.
    Borrowed {
        ptr: NonNull<f32>,
        len: usize,
    },
}

// SAFETY: borrowed values are reached only through this memory while it lives (see
// `HostMemory::Borrowed`), as through the `&mut [f32]` it stands for, which is Send + Sync.
unsafe impl Send for HostMemory {}
// SAFETY: as above; `&HostMemory` hands out only shared access.
unsafe impl Sync for HostMemory {}

impl HostMemory {
    /// `held`'s values, when they are on the host.
    pub(crate) fn of(held: &Held) -> Option<&[f32]> {
        held.get::<HostMemory>().map(HostMemory::values)
    }

    /// `held`'s values, mutable, when they are on the host.
    pub(crate) fn of_mut(held: &mut Held) -> Option<&mut [f32]> {
        held.get_mut::<HostMemory>().map(HostMemory::values_mut)
    }

    fn values(&self) -> &[f32] {
        match self {
            HostMemory::Owned(v) => v,
            // SAFETY: `len` values from `ptr` lie inside a live allocation that nothing else
            // reaches while this memory lives (see `HostMemory::Borrowed`).
            HostMemory::Borrowed { ptr, len } => unsafe {
                std::slice::from_raw_parts(ptr.as_ptr(), *len)
            },
        }
    }

    fn values_mut(&mut self) -> &mut [f32] {
        match self {
            HostMemory::Owned(v) => v,
            // SAFETY: as in `values`, and `&mut self` makes this the only access.
            HostMemory::Borrowed { ptr, len } => unsafe {
                std::slice::from_raw_parts_mut(ptr.as_ptr(), *len)
            },
        }
    }
}

impl Memory for HostMemory {
    fn floats(&self) -> usize {
        self.values().len()
    }

    fn device_name(&self) -> String {
        CPU_NAME.into()
    }

    fn read(&self, out: &mut [f32]) -> Result<()> {
        out.copy_from_slice(self.values());
        Ok(())
    }

    fn write(&mut self, data: &[f32]) -> Result<()> {
        self.values_mut().copy_from_slice(data);
        Ok(())
    }

    fn fill_zeros(&mut self) -> Result<()> {
        self.values_mut().fill(0.0);
        Ok(())
    }

    fn view(&mut self, floats: Range<usize>) -> Result<Held> {
        let part = &mut self.values_mut()[floats];
        Ok(Held::new(HostMemory::Borrowed {
            len: part.len(),
            ptr: NonNull::from(part).cast(),
        }))
    }

    fn read_range(&self, floats: Range<usize>) -> Result<Vec<f32>> {
        Ok(self.values()[floats].to_vec())
    }

    fn write_range(&mut self, floats: Range<usize>, values: &[f32]) -> Result<()> {
        self.values_mut()[floats].copy_from_slice(values);
        Ok(())
    }

    fn copy_rows(&self, dst: &mut Held, c: &Rows) -> Result<()> {
        let Some(into) = HostMemory::of_mut(dst) else {
            return Err(Error::InvalidSpec(
                "copying rows between buffers on two devices: both must be on one".into(),
            ));
        };
        let len = 2 * c.row_len;
        for row in 0..c.rows {
            let (a, b) = (
                2 * (c.src + row * c.src_pitch),
                2 * (c.dst + row * c.dst_pitch),
            );
            into[b..b + len].copy_from_slice(&self.values()[a..a + len]);
        }
        Ok(())
    }
}

/// A planned transform on the CPU, in f32 or f64 (`T`). Fused operations run unfused here:
/// pointwise loops around rustfft, the reference the GPU kernels' fusion is tested against.
/// Column layouts are transposed into rows and back.
pub(crate) struct CpuFft<T: Real> {
    /// The spec in rows layout ([`FftSpec::as_rows`]).
    spec: FftSpec,
    /// Column layouts: the matrices and their width.
    columns: Option<(usize, usize)>,
    fft: Arc<dyn Fft<T>>,
    /// The opposite direction, for chained transforms.
    back: Option<Arc<dyn Fft<T>>>,
    /// The spec's precision: f16 and bf16 words are converted to f32 (`T`) and back.
    storage: Precision,
    /// A checksummed spec's weights: input, output (see [`crate::Checksum`]).
    check: Option<crate::plan::checksum::Weights>,
    /// A bit to flip during the next run (tests of the checksummed mode).
    fault: Armed,
}

/// `spec` planned on the CPU in its precision (f32 or f64; f16 and bf16 computed in f32).
pub(crate) fn cpu_fft(spec: &FftSpec) -> Box<dyn Executor> {
    match spec.precision {
        Precision::F64 => Box::new(CpuFft::<f64>::new(spec)),
        _ => Box::new(CpuFft::<f32>::new(spec)),
    }
}

impl<T: Real> CpuFft<T> {
    /// Plans `spec` with rustfft.
    pub(crate) fn new(spec: &FftSpec) -> Self {
        let mut planner = FftPlanner::<T>::new();
        let (fft, back) = match spec.direction {
            Direction::Forward => (
                planner.plan_fft_forward(spec.n),
                planner.plan_fft_inverse(spec.n),
            ),
            Direction::Inverse => (
                planner.plan_fft_inverse(spec.n),
                planner.plan_fft_forward(spec.n),
            ),
        };
        let back = spec.chain.as_ref().map(|_| back);
        CpuFft {
            spec: spec.as_rows(),
            columns: spec
                .layout
                .is_columns()
                .then(|| (spec.matrices(), spec.point_stride())),
            fft,
            back,
            storage: spec.precision,
            check: (spec.checksum != Checksum::Off)
                .then(|| crate::plan::checksum::weights(spec.n, spec.direction)),
            fault: Armed::default(),
        }
    }

    /// Applies `ops` to every point of `chunk` (whole transforms of n points, starting at
    /// element `first` of the buffer).
    fn pointwise(&self, ops: &[PointOp], chunk: &mut [Complex<T>], first: usize) {
        if ops.is_empty() {
            return;
        }
        for (i, z) in chunk.iter_mut().enumerate() {
            let k = i % self.spec.n;
            let v = ops
                .iter()
                .fold(Complex64::new(z.re.into(), z.im.into()), |v, op| {
                    op.apply(k, first + i, v)
                });
            *z = Complex::new(T::round(v.re), T::round(v.im));
        }
    }

    /// Transforms `words` (the values as 4-byte words) in place.
    fn run_words(&self, words: &mut [f32]) -> Result<()> {
        let fault = self.fault.take();
        let mut failed = Vec::new();
        if self.storage.is_half() {
            let mut parts = unpack_half(words, self.storage);
            with_values_mut::<T>(&mut parts, |v| {
                failed = self.run(bytemuck::cast_slice_mut(v), fault)
            });
            pack_half(&parts, self.storage, words);
        } else {
            with_values_mut::<T>(words, |v| {
                failed = self.run(bytemuck::cast_slice_mut(v), fault)
            });
        }
        crate::plan::checksum::verdict(failed, self.spec.batch)
    }

    /// Transforms `data`; returns the transforms that failed their checksums.
    fn run(&self, data: &mut [Complex<T>], fault: Option<Fault>) -> Vec<usize> {
        if let Some((m, w)) = self.columns {
            let mut rows = transpose(data, m, self.spec.n, w);
            let failed = self.run_rows(&mut rows, fault);
            data.copy_from_slice(&transpose(&rows, m, w, self.spec.n));
            failed
        } else {
            self.run_rows(data, fault)
        }
    }

    /// Transforms `one` (one transform, batch index `index`) checking it against its
    /// checksum: recomputed once on a mismatch where the spec asks; `fault` flips a word
    /// (index within `one`) after the input's sum is taken. `Some(index)` if it fails.
    fn run_checked(
        &self,
        one: &mut [Complex<T>],
        (input, output): &crate::plan::checksum::Weights,
        index: usize,
        mut fault: Option<(usize, Fault)>,
        transform: &dyn Fn(&mut [Complex<T>]),
    ) -> Option<usize> {
        let judge = Judge::new(&self.spec);
        let wide = |z: &Complex<T>| Complex64::new(z.re.into(), z.im.into());
        let kept = (self.spec.checksum == Checksum::Recompute).then(|| one.to_vec());
        let mut tries = 0;
        loop {
            let mut sums = Sums::default();
            for (x, c) in one.iter().zip(input.iter()) {
                sums.add_input(wide(x) * c);
            }
            if let Some((word, f)) = fault.take() {
                let words: &mut [f32] = bytemuck::cast_slice_mut(one);
                if let Some(x) = words.get_mut(word) {
                    *x = f.apply(*x);
                }
            }
            transform(one);
            for (x, w) in one.iter().zip(output.iter()) {
                let x = wide(x);
                sums.add_output(x * w, x.norm_sqr());
            }
            tries += 1;
            if !judge.fails(&sums) {
                return None;
            }
            match (&kept, crate::checksum::retry(&self.spec, tries)) {
                (Some(kept), true) => one.copy_from_slice(kept),
                _ => return Some(index),
            }
        }
    }

    fn run_rows(&self, data: &mut [Complex<T>], fault: Option<Fault>) -> Vec<usize> {
        let scale = self
            .spec
            .normalize
            .then(|| T::round(1.0 / self.spec.n as f64));
        let n = self.spec.n;
        // Complex values' 4-byte words: where the fault's word lies.
        let words = size_of::<Complex<T>>() / 4;
        let transform = |one: &mut [Complex<T>]| {
            self.fft.process(one);
            if let Some(scale) = scale {
                one.iter_mut().for_each(|z| *z = *z * scale);
            }
        };
        let work = |chunk: &mut [Complex<T>], first: usize| -> Vec<usize> {
            if let Some(check) = &self.check {
                // The check is of the transform: between the fused load and store operations
                // (a checksummed spec has no chain).
                return chunk
                    .chunks_mut(n)
                    .enumerate()
                    .filter_map(|(i, one)| {
                        let at = first + i * n;
                        self.pointwise(&self.spec.load, one, at);
                        let start = at * words;
                        let fault = fault
                            .filter(|f| (start..start + n * words).contains(&f.word))
                            .map(|f| (f.word - start, f));
                        let failed = self.run_checked(one, check, at / n, fault, &transform);
                        self.pointwise(&self.spec.store, one, at);
                        failed
                    })
                    .collect();
            }
            self.pointwise(&self.spec.load, chunk, first);
            self.fft.process(chunk);
            if let (Some(h), Some(back)) = (&self.spec.chain, &self.back) {
                // One value per point, or per element (`first` is the chunk's first element).
                chunk.iter_mut().enumerate().for_each(|(i, z)| {
                    let w = h.get((first + i) % h.len());
                    *z = *z * Complex::new(T::round(w.re), T::round(w.im));
                });
                back.process(chunk);
            }
            if let Some(scale) = scale {
                chunk.iter_mut().for_each(|z| *z = *z * scale);
            }
            self.pointwise(&self.spec.store, chunk, first);
            Vec::new()
        };
        // Tasks on rayon's pool only where there is enough to share: one per thread, each
        // with at least 2^16 points, a batch of transforms per call of `work` (rustfft's
        // scratch set up once per task).
        let tasks = rayon::current_num_threads()
            .min(self.spec.batch)
            .min(data.len().div_ceil(1 << 16))
            .max(1);
        if tasks == 1 {
            return work(data, 0);
        }
        let per_task = self.spec.batch.div_ceil(tasks) * self.spec.n;
        // The failed transforms' indices, in order. (A task's panic goes on to the caller.)
        let found: Vec<Vec<usize>> = data
            .par_chunks_mut(per_task)
            .enumerate()
            .map(|(i, chunk)| work(chunk, i * per_task))
            .collect();
        found.into_iter().flatten().collect()
    }
}

impl<T: Real> Executor for CpuFft<T> {
    fn process(&self, data: &mut [f32]) -> Result<()> {
        self.run_words(data)
    }

    fn process_out_of_place(&self, input: &[f32], output: &mut [f32]) -> Result<()> {
        output.copy_from_slice(input);
        self.run_words(output)
    }

    fn process_buffer(&self, data: &mut Held) -> Result<()> {
        match HostMemory::of_mut(data) {
            Some(v) => self.run_words(v),
            None => Err(foreign(data, CPU_NAME)),
        }
    }

    /// A complex transform from one host buffer into another of the same length (the CPU
    /// backend plans no fused real transforms, whose halves differ in length).
    fn process_between(&self, src: &mut Held, dst: &mut Held) -> Result<()> {
        match (HostMemory::of(src), HostMemory::of_mut(dst)) {
            (Some(from), Some(into)) if from.len() == into.len() => {
                self.process_out_of_place(from, into)
            }
            _ => Err(Error::Unsupported {
                what: "a transform between buffers of two lengths or devices".into(),
                device: CPU_NAME.into(),
                detail: "the CPU backend plans no fused real transforms".into(),
            }),
        }
    }

    fn inject_fault(&self, fault: Fault) -> Result<()> {
        if fault.after_pass != 0 || fault.bit >= 32 {
            return Err(Error::InvalidSpec(format!(
                "the CPU backend runs one step: a fault flips bit 0..32 of an input word after \
                 its checksum, 'after pass 0' (got bit {} after pass {})",
                fault.bit, fault.after_pass
            )));
        }
        self.fault.arm(fault)
    }

    fn measure(&self, input: &[f32], output: &mut [f32], reps: usize) -> Result<(Vec<f64>, Timer)> {
        self.process_out_of_place(input, output)?;
        let mut work = input.to_vec();
        let mut seconds = Vec::with_capacity(reps);
        for _ in 0..reps {
            work.copy_from_slice(input);
            let t = Instant::now();
            self.run_words(&mut work)?;
            seconds.push(t.elapsed().as_secs_f64());
        }
        Ok((seconds, Timer::WallClock))
    }
}
