//! Bluestein's chirp-z algorithm: a length `n` with a prime factor above 13 as a convolution
//! of length `m >= 2n - 1` (smooth), built from the planner's own parts.
//!
//! With `c[k] = exp(s·iπk²/n)` (`s` the direction's sign), `jk = (j² + k² − (j−k)²)/2` gives
//! `X[j] = c[j] · Σ_k (x[k]·c[k]) · conj(c[j−k])`: multiply by the chirp on load (zero past
//! `n`), transform `m` points, multiply by the spectrum of the conjugate chirp (with 1/m),
//! transform back, multiply by the chirp on store. That is an ordinary chained plan of the
//! `m`-point transform whose first pass reads the user's `n`-point rows and whose last pass
//! writes them: one kernel when `m` fits one pass, else the forward passes and the inverse's.

use std::sync::Arc;

use num_complex::{Complex32, Complex64};

use super::{Plan, PlanOptions, shape};
use crate::error::{Error, Result};
use crate::plan::DeviceLimits;
use crate::spec::{FftSpec, Layout, PointOp};

/// How a plan runs Bluestein's algorithm.
#[derive(Clone, Debug, PartialEq)]
pub struct Bluestein {
    /// Length of the convolution's transforms (smooth, at least `2n − 1`).
    pub m: usize,
    /// The chained `m`-point transform the passes compute: the user's load operations and
    /// the chirp on load, the chirp's spectrum as the chain's filter, the chirp (with the
    /// spec's scaling) and the user's store operations on store.
    pub transform: FftSpec,
}

/// Smooth candidates for `m` the planner compares, from the smallest up.
const CANDIDATES: usize = 8;

/// Plans `spec` (validated, `n` not smooth) by Bluestein's algorithm.
pub(super) fn plan(spec: &FftSpec, limits: &DeviceLimits, opts: &PlanOptions) -> Result<Plan> {
    let n = spec.n;
    let unsupported = |what: &str| Error::Unsupported {
        what: format!("{what} on a {n}-point FFT"),
        device: limits.name.clone(),
        detail: format!(
            "{n} has a prime factor above 13, which the GPU runs by Bluestein's algorithm, and \
             that does not combine with it yet; the CPU backend (--device cpu) does"
        ),
    };
    if spec.chain.is_some() {
        return Err(unsupported("a chained multiply and inverse FFT"));
    }
    if spec
        .load
        .iter()
        .chain(&spec.store)
        .any(|o| matches!(o, PointOp::MultiplyEach(_)))
    {
        return Err(unsupported("a per-element multiply (MultiplyEach)"));
    }
    // The cheapest of the smallest smooth lengths from 2n − 1 and the next power of two: by
    // bytes moved (one fused pass beats two kernels), then length.
    let mut best: Option<(u64, Plan)> = None;
    for m in candidates(2 * n - 1) {
        let Ok(plan) = inner_plan(spec, m, limits, opts) else {
            continue;
        };
        let cost = plan.bytes_moved();
        if best.as_ref().is_none_or(|(c, _)| cost < *c) {
            best = Some((cost, plan));
        }
    }
    best.map(|(_, p)| p).ok_or_else(|| Error::TooLarge {
        what: format!("Bluestein's {n}-point FFT"),
        device: limits.name.clone(),
        detail: format!(
            "no convolution length from {} fits the device's buffers and workgroups",
            2 * n - 1
        ),
    })
}

/// The first [`CANDIDATES`] smooth lengths from `from` (factors 2, 3, 5 and 7, which make
/// the cheapest stages), and the next power of two.
fn candidates(from: usize) -> Vec<usize> {
    let mut c: Vec<usize> = (from..)
        .filter(|&m| {
            let mut r = m;
            for p in [2, 3, 5, 7] {
                while r.is_multiple_of(p) {
                    r /= p;
                }
            }
            r == 1
        })
        .take(CANDIDATES)
        .collect();
    c.push(from.next_power_of_two());
    c.dedup();
    c
}

/// The plan of `spec` through an `m`-point convolution.
fn inner_plan(spec: &FftSpec, m: usize, limits: &DeviceLimits, opts: &PlanOptions) -> Result<Plan> {
    debug_assert!(shape::is_smooth(m));
    let transform = transform(spec, m);
    let mut plan = Plan::smooth(&transform, limits, opts)?;
    let n = spec.n;
    // The first pass reads the user's rows, the last writes them: no tiles staged through
    // workgroup memory or prefetched, which assume rows of the transform's length.
    let last = plan.passes.len() - 1;
    for (i, p) in plan.passes.iter_mut().enumerate() {
        if i == 0 {
            p.src_len = n;
            p.staged_load = false;
            p.prefetch = false;
            p.tables_in_shared = 0;
        }
        if i == last {
            p.dst_len = n;
            p.staged_store = false;
        }
    }
    // Chunks of the batch start at aligned offsets in both row lengths.
    let tpd = super::transforms_per_binding(limits, &[n, m], spec.whole_batch(), spec.batch)?;
    plan.transforms_per_dispatch = if spec.whole_batch() {
        spec.batch
    } else {
        tpd.min(spec.batch)
    };
    plan.spec = spec.clone();
    plan.bluestein = Some(Bluestein { m, transform });
    Ok(plan)
}

/// The chained `m`-point transform of Bluestein's algorithm for `spec`.
fn transform(spec: &FftSpec, m: usize) -> FftSpec {
    let n = spec.n;
    let sign = spec.direction.sign();
    let chirp: Vec<Complex64> = (0..n).map(|k| chirp(k, n, sign)).collect();
    let pad = |v: &[Complex32]| -> Arc<[Complex32]> {
        let mut p = v.to_vec();
        p.resize(m, Complex32::new(0.0, 0.0));
        p.into()
    };
    let padded = |op: &PointOp| match op {
        PointOp::Multiply(v) => PointOp::Multiply(pad(v)),
        other => other.clone(),
    };
    let on_load: Vec<Complex32> = chirp.iter().map(|&c| to32(c)).collect();
    let scale = if spec.normalize { 1.0 / n as f64 } else { 1.0 };
    let on_store: Vec<Complex32> = chirp.iter().map(|&c| to32(c * scale)).collect();
    let mut t = FftSpec::new(m).batch(spec.batch);
    if spec.layout == Layout::Columns {
        t = t.columns();
    }
    for op in &spec.load {
        t = t.on_load(padded(op));
    }
    t = t
        .on_load(PointOp::Multiply(pad(&on_load)))
        .then_multiply_and_invert(filter(&chirp, m).into())
        .on_store(PointOp::Multiply(pad(&on_store)));
    for op in &spec.store {
        t = t.on_store(padded(op));
    }
    t
}

/// `exp(sign·iπk²/n)`, with `k² mod 2n` reduced exactly so the angle is accurate for any `k`.
fn chirp(k: usize, n: usize, sign: f64) -> Complex64 {
    let k2 = (k as u128 * k as u128 % (2 * n as u128)) as f64;
    Complex64::from_polar(1.0, sign * std::f64::consts::PI * k2 / n as f64)
}

/// The chain's filter: the forward `m`-point spectrum of the conjugate chirp laid out
/// circularly (`b[k] = b[m − k] = conj(c[k])`), divided by `m` for the unnormalised inverse.
fn filter(chirp: &[Complex64], m: usize) -> Vec<Complex32> {
    let mut b = vec![Complex64::new(0.0, 0.0); m];
    for (k, c) in chirp.iter().enumerate() {
        b[k] = c.conj();
        if k > 0 {
            b[m - k] = c.conj();
        }
    }
    rustfft::FftPlanner::new()
        .plan_fft_forward(m)
        .process(&mut b);
    b.iter().map(|&z| to32(z / m as f64)).collect()
}

fn to32(z: Complex64) -> Complex32 {
    Complex32::new(z.re as f32, z.im as f32)
}
