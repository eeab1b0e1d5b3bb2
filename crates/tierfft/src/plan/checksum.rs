//! Checksummed transforms (algorithm-based fault tolerance): every transform's output is
//! checked against a weighted sum of its input, so that a fault in the arithmetic or in
//! device memory between passes (a flipped bit) is reported, not returned as data.
//!
//! The DFT is linear, so for output weights `w_k` the sum `Σ_k w_k X_k` equals `Σ_j c_j x_j`
//! with `c_j = Σ_k w_k W^{jk}`: the DFT of `w`. tierfft takes `w_k = exp(2πi·φ_k)` with
//! pseudo-random phases `φ_k` (fixed, from the index): then `c` is dense too (its values
//! have mean square `n`), and so is the weight a fault between two passes meets: the later
//! passes' transform applied to `w`. (A chirp, whose DFT is flat, was tried first and
//! missed faults between passes: the four-step split turns it into one frequency per
//! line, so most of the intermediate weighed nothing.) `c` is scaled by `1/√n`; then
//! `Σ w_k X_k = √n · s · Σ c_j x_j`, `s` the normalisation (1 or 1/n).
//!
//! The sums are of the transform itself: its input after any fused load operations, its
//! output before any fused store operations. The GPU kernels compute the input sum as the
//! first pass loads and the output sum (with the output's energy `Σ|X_k|²`) as the last
//! pass stores, one record per line, and the host
//! adds the records of each transform ([`Plan::check_regions`](crate::plan::Plan::check_regions)); the CPU backend computes the
//! same sums around rustfft.

use std::sync::{Arc, Mutex, Weak};

use num_complex::Complex64;

use crate::base::precision::Precision;
use crate::error::{Error, Result};
use crate::plan::{Pass, Plan};
use crate::spec::{Direction, FftSpec};

/// Input and output weights, shared.
pub(crate) type Weights = (Arc<[Complex64]>, Arc<[Complex64]>);

/// The weights of a checksummed `n`-point transform in `direction` ([`computed_weights`]),
/// shared with any live plan of the same length and direction: plans of one transform (f32
/// and f64, several batches, one per device) hold one table, which at 2^27 points is 4 GiB
/// and seconds of work. Only weak references are kept: a table goes with its last plan.
pub(crate) fn weights(n: usize, direction: Direction) -> Weights {
    type Live = Vec<((usize, Direction), Weak<[Complex64]>, Weak<[Complex64]>)>;
    static LIVE: Mutex<Live> = Mutex::new(Vec::new());
    let held = LIVE.lock().ok().and_then(|mut live| {
        live.retain(|(_, input, output)| input.strong_count() > 0 && output.strong_count() > 0);
        let (_, input, output) = live.iter().find(|(key, ..)| *key == (n, direction))?;
        Some((input.upgrade()?, output.upgrade()?))
    });
    if let Some(weights) = held {
        return weights;
    }
    // Computed without the lock: plans of other lengths need not wait.
    let (input, output) = computed_weights(n, direction);
    let (input, output): Weights = (input.into(), output.into());
    if let Ok(mut live) = LIVE.lock() {
        live.push((
            (n, direction),
            Arc::downgrade(&input),
            Arc::downgrade(&output),
        ));
    }
    (input, output)
}

/// The weights of a checksummed `n`-point transform in `direction`, in f64: `input[j] =
/// c_j / √n` and `output[k] = w_k` (module docs).
fn computed_weights(n: usize, direction: Direction) -> (Vec<Complex64>, Vec<Complex64>) {
    let output: Vec<Complex64> = (0..n as u64)
        .map(|k| {
            // splitmix64 of the index: 53 bits of phase.
            let mut z = k.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            let phase = (z ^ (z >> 31)) >> 11;
            Complex64::from_polar(
                1.0,
                std::f64::consts::TAU * phase as f64 / (1u64 << 53) as f64,
            )
        })
        .collect();
    let mut input = output.clone();
    let mut planner = rustfft::FftPlanner::<f64>::new();
    // c_j = Σ_k w_k exp(sign·2πi·jk/n): the transform's own direction applied to w.
    match direction {
        Direction::Forward => planner.plan_fft_forward(n),
        Direction::Inverse => planner.plan_fft_inverse(n),
    }
    .process(&mut input);
    let scale = 1.0 / (n as f64).sqrt();
    input.iter_mut().for_each(|c| *c *= scale);
    (input, output)
}

/// A sum of f64 terms with Neumaier's compensation: its error stays near one rounding of the
/// total however many terms it adds. (The host adds up to `n` terms, or thousands of
/// records, per transform; plain addition in f64 rounds about `√terms` times more, which
/// at 2^16 points already exceeded the f64 tolerance.)
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Sum {
    hi: f64,
    lo: f64,
}

impl Sum {
    fn add(&mut self, x: f64) {
        let t = self.hi + x;
        self.lo += if self.hi.abs() >= x.abs() {
            (self.hi - t) + x
        } else {
            (x - t) + self.hi
        };
        self.hi = t;
    }

    fn value(&self) -> f64 {
        self.hi + self.lo
    }
}

/// One transform's sums: `Σ c_j x_j`, `Σ w_k X_k` and `Σ |X_k|²`, each compensated.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Sums {
    input: [Sum; 2],
    output: [Sum; 2],
    energy: Sum,
}

impl Sums {
    /// Adds `z` to the input sum.
    pub(crate) fn add_input(&mut self, z: Complex64) {
        self.input[0].add(z.re);
        self.input[1].add(z.im);
    }

    /// Adds `z` to the output sum and `e` to the energy.
    pub(crate) fn add_output(&mut self, z: Complex64, e: f64) {
        self.output[0].add(z.re);
        self.output[1].add(z.im);
        self.energy.add(e);
    }

    fn input(&self) -> Complex64 {
        Complex64::new(self.input[0].value(), self.input[1].value())
    }

    fn output(&self) -> Complex64 {
        Complex64::new(self.output[0].value(), self.output[1].value())
    }
}

/// Tolerance factor: a fault is flagged when it moves a transform's weighted output sum
/// by more than `TOLERANCE · eps · log2(2n) · √energy` (about `1e-5 · rms(X) · √n · log2 n`
/// in f32, under the change one exponent bit makes to a point of rms size).
const TOLERANCE: f64 = 8.0;

/// How a transform's sums are judged.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Judge {
    /// `√n · s`: the input sum times this predicts the output sum.
    gain: f64,
    /// `TOLERANCE · eps · log2(2n)`.
    relative: f64,
}

impl Judge {
    /// The judge of `spec`'s transforms.
    pub(crate) fn new(spec: &FftSpec) -> Judge {
        let n = spec.n as f64;
        let scale = if spec.normalize { 1.0 / n } else { 1.0 };
        let eps = match spec.precision {
            Precision::F64 => f64::EPSILON / 2.0,
            Precision::F16 => 2f64.powi(-11),
            Precision::Bf16 => 2f64.powi(-8),
            _ => 2f64.powi(-24),
        };
        Judge {
            gain: n.sqrt() * scale,
            relative: TOLERANCE * eps * (2.0 * n).log2(),
        }
    }

    /// Whether `sums` show a fault: the output sum misses its prediction by more than the
    /// rounding allows, or a sum is not finite (a NaN or infinity in or out, which no check
    /// can vouch for).
    pub(crate) fn fails(&self, sums: &Sums) -> bool {
        let energy = sums.energy.value();
        let miss = (sums.output() - sums.input() * self.gain).norm();
        let bound = self.relative * energy.sqrt();
        let within = miss <= bound && energy.is_finite();
        !within
    }

    /// The transforms of `sums` (batch indices, from `first`) that fail.
    #[cfg(any(feature = "cuda", feature = "wgpu", feature = "fuzzing", test))]
    pub(crate) fn failures(&self, sums: &[Sums], first: usize) -> Vec<usize> {
        (0..sums.len())
            .filter(|&t| self.fails(&sums[t]))
            .map(|t| first + t)
            .collect()
    }
}

/// `Ok` when no transform failed, else the error naming `failed` (batch indices) of `batch`.
pub(crate) fn verdict(mut failed: Vec<usize>, batch: usize) -> Result<()> {
    if failed.is_empty() {
        return Ok(());
    }
    failed.sort_unstable();
    failed.dedup();
    Err(Error::Checksum {
        transforms: failed,
        batch,
    })
}

/// The transforms (batch indices from `first`) of a run of `transforms` whose records fail,
/// the records being `words`: the check buffer as 4-byte words of the plan's arithmetic
/// precision.
#[cfg(any(feature = "cuda", feature = "wgpu", feature = "fuzzing", test))]
pub(crate) fn failures(plan: &Plan, words: &[f32], transforms: usize, first: usize) -> Vec<usize> {
    let records: Vec<Complex64> = match plan.spec.precision {
        Precision::F64 => crate::base::words::values::<f64>(words)
            .chunks_exact(2)
            .map(|z| Complex64::new(z[0], z[1]))
            .collect(),
        _ => words
            .chunks_exact(2)
            .map(|z| Complex64::new(z[0].into(), z[1].into()))
            .collect(),
    };
    Judge::new(&plan.spec).failures(&plan.check_sums(&records, transforms), first)
}

/// Where one dispatch's checksum records lie in the check buffer: [`Plan::check_records`]
/// records of [`Pass::check_record`] complex values per transform, in dispatch order.
// Read by the GPU backends only.
#[cfg_attr(not(any(feature = "cuda", feature = "wgpu")), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CheckRegion {
    /// The dispatch's index in [`Plan::dispatches`].
    pub dispatch: usize,
    /// First complex element of the region.
    pub offset: usize,
    /// Complex elements in the region (whole records).
    pub len: usize,
}

impl Plan {
    /// Threads per group whose checksum sums a [`crate::kernel::ir::Stmt::LaneSum`] adds, in
    /// a checksummed `pass`: a line's threads (at most a warp's 32) where the device has lane
    /// sums and a line's threads are consecutive whole warps or fractions of one; `None`
    /// where the kernel adds them through workgroup memory instead.
    pub fn lane_width(&self, pass: &Pass) -> Option<usize> {
        let t = pass.threads_per_line;
        let warp = self.limits.subgroup_size;
        (self.limits.lane_sums
            && warp == 32
            && pass.order == crate::plan::LineOrder::Contiguous
            && t.is_power_of_two()
            && pass.threads().is_multiple_of(warp))
        .then_some(t.min(warp))
    }

    /// Checksum records per line of `pass`: one per lane group ([`Plan::lane_width`]), else
    /// one.
    pub fn check_segments(&self, pass: &Pass) -> usize {
        self.lane_width(pass)
            .map_or(1, |w| pass.threads_per_line / w)
    }

    /// Checksum records per transform of `pass`: one per warp of each workgroup in a
    /// cluster pass (a cluster holds one transform; its head writes each record's input
    /// sum, its tail the output sum and energy), else [`Plan::check_segments`] per line.
    pub fn check_records(&self, pass: &Pass) -> usize {
        match &pass.cluster {
            Some(c) => c.blocks * pass.threads() / self.limits.subgroup_size,
            None => self.lines_per_transform(pass) * self.check_segments(pass),
        }
    }

    /// Whether this plan's kernels write checksum records.
    pub fn checksummed(&self) -> bool {
        self.passes.iter().any(|p| p.check_record() > 0)
    }

    /// The check buffer's regions for a run of `transforms` transforms, one per dispatch of
    /// a pass that writes records, each starting on a 256-byte boundary (bindings at an
    /// offset must), and the buffer's length in complex elements (at least 1).
    #[cfg_attr(not(any(feature = "cuda", feature = "wgpu")), allow(dead_code))]
    pub(crate) fn check_regions(&self, transforms: usize) -> (Vec<CheckRegion>, usize) {
        let complex_bytes = self.spec.precision.compute_bytes() * 2;
        let align = (256 / complex_bytes).max(1);
        let mut regions = Vec::new();
        let mut end = 0;
        for (d, (p, _, count)) in self.dispatches(transforms).into_iter().enumerate() {
            let pass = &self.passes[p];
            let rec = pass.check_record();
            if rec == 0 {
                continue;
            }
            let len = count * self.check_records(pass) * rec;
            regions.push(CheckRegion {
                dispatch: d,
                offset: end,
                len,
            });
            end = (end + len).next_multiple_of(align);
        }
        (regions, end.max(1))
    }

    /// Each transform's sums from the check buffer `records` (complex values, as
    /// [`Plan::check_regions`] lays them out) after a run of `transforms` transforms.
    #[cfg(any(feature = "cuda", feature = "wgpu", feature = "fuzzing", test))]
    pub(crate) fn check_sums(&self, records: &[Complex64], transforms: usize) -> Vec<Sums> {
        let mut sums = vec![Sums::default(); transforms];
        let dispatches = self.dispatches(transforms);
        let (regions, _) = self.check_regions(transforms);
        for r in regions {
            let (p, first, count) = dispatches[r.dispatch];
            let pass = &self.passes[p];
            let rec = pass.check_record();
            for record in 0..count * self.check_records(pass) {
                let at = r.offset + record * rec;
                let Some(values) = records.get(at..at + rec) else {
                    continue;
                };
                let t = first + self.record_transform(pass, record, count);
                let mut at = values.iter().copied();
                let Some(total) = sums.get_mut(t) else {
                    continue;
                };
                if pass.check_in().is_some() {
                    total.add_input(at.next().unwrap_or_default());
                }
                if pass.storing().check_out().is_some() {
                    let z = at.next().unwrap_or_default();
                    total.add_output(z, at.next().map_or(0.0, |e| e.re));
                }
            }
        }
        sums
    }

    /// The transform (within its dispatch of `count`) that record `record` of `pass`
    /// belongs to.
    #[cfg(any(feature = "cuda", feature = "wgpu", feature = "fuzzing", test))]
    fn record_transform(&self, pass: &Pass, record: usize, count: usize) -> usize {
        match self.spec.layout {
            crate::spec::Layout::Rows => record / self.check_records(pass),
            // Columns: line = j·columns + column, with the dispatch's columns.
            crate::spec::Layout::Columns { .. } => (record / self.check_segments(pass)) % count,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Σ w_k X_k = √n Σ c_j x_j for the DFT in both directions, odd and even n; the output
    /// weights have unit magnitude, the input weights unit mean square.
    #[test]
    fn weights_predict_the_output_sum() {
        for n in [1usize, 2, 3, 12, 15, 64, 360] {
            for direction in [Direction::Forward, Direction::Inverse] {
                let (c, w) = weights(n, direction);
                let x32 = crate::debug::reference::random(n, n as u64);
                let x = crate::debug::reference::widen(&x32);
                let big_x = crate::debug::reference::fft_f64(&x32, n, direction);
                let out: Complex64 = w.iter().zip(&big_x).map(|(w, x)| w * x).sum();
                let inp: Complex64 = c.iter().zip(&x).map(|(c, x)| c * x).sum();
                let diff = (out - inp * (n as f64).sqrt()).norm();
                assert!(diff < 1e-9 * n as f64, "n {n} {direction:?}: {diff}");
                for v in w.iter() {
                    assert!(
                        (v.norm() - 1.0).abs() < 1e-9,
                        "n {n}: |weight| {}",
                        v.norm()
                    );
                }
                let square = c.iter().map(|c| c.norm_sqr()).sum::<f64>() / n as f64;
                assert!((square - 1.0).abs() < 1e-9, "n {n}: mean square {square}");
            }
        }
    }
}
