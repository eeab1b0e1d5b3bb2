//! Bluestein's chirp-z algorithm: a length `n` with a prime factor above 31 as a convolution
//! of length `m >= 2n - 1` (smooth), built from the planner's own parts.
//!
//! With `c[k] = exp(s·iπk²/n)` (`s` the direction's sign), `jk = (j² + k² − (j−k)²)/2` gives
//! `X[j] = c[j] · Σ_k (x[k]·c[k]) · conj(c[j−k])`: multiply by the chirp on load (zero past
//! `n`), transform `m` points, multiply by the spectrum of the conjugate chirp (with 1/m),
//! transform back, multiply by the chirp on store. That is an ordinary chained plan of the
//! `m`-point transform whose first pass reads the user's `n`-point rows and whose last pass
//! writes them: one kernel when `m` fits one pass, else the forward passes and the inverse's.
//! A chained spec (transform, multiply, transform back) is two such convolutions in one
//! plan, the user's filter fused into the first one's store.

use std::sync::Arc;

use num_complex::{Complex32, Complex64};

use super::{Plan, PlanOptions, shape};
use crate::base::precision::Precision;
use crate::base::values::Values;
use crate::error::{Error, Result};
use crate::plan::DeviceLimits;
use crate::spec::{FftSpec, Layout, MAX_LOG2_N, PointOp};

/// How a plan runs Bluestein's algorithm.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Bluestein {
    /// Length of the convolution's transforms (smooth, at least `2n − 1`).
    pub m: usize,
    /// The `m`-point transform the passes compute: its length, batch and layout. The chirps,
    /// filters and the user's operations are on the passes that fuse them. A chained spec
    /// runs two convolutions of it (the transform, then the one back, with the user's filter
    /// between them).
    pub transform: FftSpec,
}

/// Smooth candidates for `m` the planner compares, from the smallest up (`candidates`
/// documents the number: change both).
const CANDIDATES: usize = 8;

/// Plans `spec` (validated, `n` not smooth) by Bluestein's algorithm.
pub(super) fn plan(spec: &FftSpec, limits: &DeviceLimits, opts: &PlanOptions) -> Result<Plan> {
    if spec.chain_per_element() {
        return Err(Error::InvalidSpec(format!(
            "a chain whose filter varies by transform runs on 7-smooth lengths only ({} has a \
             larger prime factor): give one filter for every transform, or pad to a smooth \
             length",
            spec.n
        )));
    }
    let n = spec.n;
    if let Some(m) = opts.bluestein_m {
        // Longer only costs, and the chirp's spectrum is computed on the host at length m.
        let (least, most) = (2 * n - 1, 4 * (2 * n - 1));
        if !(least..=most).contains(&m) {
            return Err(Error::InvalidOptions(format!(
                "bluestein_m must be 2n − 1 = {least} to 4(2n − 1) = {most} for n = {n} (got {m})"
            )));
        }
        return plan_with(spec, m, limits, opts, true);
    }
    // The cheapest of the smallest smooth lengths from 2n − 1 and the next power of two: by
    // bytes moved (one fused pass beats two kernels), then length. Candidates are ranked by
    // their plans' shapes alone (placeholder chirps): the chirp spectrum is an m-point f64
    // FFT on the host, computed for the winner only (for every candidate, n = 5·10^7 took
    // 175 s and 11 GB to plan).
    let mut ranked: Vec<(u64, usize)> = Bluestein::candidates(n)
        .into_iter()
        .filter(|&m| m <= 1 << MAX_LOG2_N)
        .filter_map(|m| {
            Some((
                plan_with(spec, m, limits, opts, false).ok()?.bytes_moved(),
                m,
            ))
        })
        .collect();
    ranked.sort_unstable();
    ranked
        .iter()
        .find_map(|&(_, m)| plan_with(spec, m, limits, opts, true).ok())
        .ok_or_else(|| Error::TooLarge {
            what: format!("Bluestein's {n}-point FFT"),
            device: limits.name.clone(),
            detail: if 2 * n - 1 > 1 << MAX_LOG2_N {
                format!(
                    "its convolutions need at least 2n − 1 = {} points, past tierfft's longest \
                     transform (2^{MAX_LOG2_N})",
                    2 * n - 1
                )
            } else {
                format!(
                    "no convolution length from {} fits the device's buffers and workgroups",
                    2 * n - 1
                )
            },
        })
}

impl Bluestein {
    /// The convolution lengths the planner compares for `n`: the first eight
    /// 7-smooth lengths from `2n − 1` (factors 2, 3, 5 and 7 make the cheapest stages), and
    /// the next power of two.
    pub fn candidates(n: usize) -> Vec<usize> {
        let from = 2 * n.max(1) - 1;
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
        let pow2 = from.next_power_of_two();
        if !c.contains(&pow2) {
            c.push(pow2);
        }
        c
    }
}

/// The plan of `spec` through `m`-point convolutions: one, or for a chained spec two, the
/// first storing `chirp · filter · chirp'` (its own output chirp, the user's filter and the
/// second convolution's input chirp are all pointwise on the same `n` points) into `n`-point
/// rows the second reads. Unless `exact`, the chirps and the chirp spectra are placeholders
/// (ones and zeros), which give the plan's shape at no cost.
fn plan_with(
    spec: &FftSpec,
    m: usize,
    limits: &DeviceLimits,
    opts: &PlanOptions,
    exact: bool,
) -> Result<Plan> {
    debug_assert!(shape::is_smooth(m));
    let n = spec.n;
    let sign = spec.direction.sign();
    let scale = if spec.normalize { 1.0 / n as f64 } else { 1.0 };
    let precision = spec.precision;
    let mut geometry = FftSpec::new(m).batch(spec.batch).precision(precision);
    if let Layout::Columns { matrices } = spec.layout {
        geometry = geometry.stacked_columns(matrices);
    }
    let padded = |ops: &[PointOp]| -> Vec<PointOp> {
        ops.iter()
            .map(|op| match op {
                PointOp::Multiply(v) => PointOp::Multiply(pad(v, m)),
                PointOp::Multiply64(v) => PointOp::Multiply64(pad(v, m)),
                other => other.clone(),
            })
            .collect()
    };
    let chirp = |sign: f64| {
        if exact {
            chirp(n, sign)
        } else {
            vec![Complex64::new(1.0, 0.0); n]
        }
    };
    let chirp_in = chirp(sign);
    let mut load = padded(&spec.load);
    load.push(multiply(chirp_in.iter().copied(), m, precision));
    let user_store = padded(&spec.store);
    let mut plan = match &spec.chain {
        None => {
            let mut store = vec![multiply(chirp_in.iter().map(|&c| c * scale), m, precision)];
            store.extend(user_store);
            convolution(&geometry, n, &chirp_in, load, store, limits, opts, exact)?
        }
        Some(h) => {
            // The chain runs back in the opposite direction: the second convolution's chirp
            // has the opposite sign.
            let chirp_back = chirp(-sign);
            let between = chirp_in
                .iter()
                .zip(h.iter())
                .zip(&chirp_back)
                .map(|((&c, h), &b)| c * h * b);
            let store = vec![multiply(between, m, precision)];
            let mut first = convolution(&geometry, n, &chirp_in, load, store, limits, opts, exact)?;
            let mut store = vec![multiply(
                chirp_back.iter().map(|&c| c * scale),
                m,
                precision,
            )];
            store.extend(user_store);
            let second = convolution(
                &geometry,
                n,
                &chirp_back,
                vec![],
                store,
                limits,
                opts,
                exact,
            )?;
            first.passes.extend(second.passes);
            first
        }
    };
    // Chunks of the batch start at aligned offsets in both row lengths.
    let tpd = super::transforms_per_binding(
        limits,
        &[n, m],
        spec.precision.complex_bytes(),
        spec.whole_batch(),
        spec.batch,
    )?;
    plan.transforms_per_dispatch = if spec.whole_batch() {
        spec.batch
    } else {
        tpd.min(spec.batch)
    };
    plan.spec = spec.clone();
    // (The convolutions' own chains say nothing of the user's.)
    plan.split_chain = false;
    plan.bluestein = Some(Bluestein {
        m,
        transform: geometry,
    });
    Ok(plan)
}

/// The passes of one `m`-point convolution with the chirp `chirp` (`n` values): a chained
/// transform whose first pass reads `n`-point rows and applies `load`, whose filter is the
/// chirp's spectrum (zeros unless `exact`) and whose last pass applies `store` and writes
/// `n`-point rows.
#[allow(clippy::too_many_arguments)]
fn convolution(
    geometry: &FftSpec,
    n: usize,
    chirp: &[Complex64],
    load: Vec<PointOp>,
    store: Vec<PointOp>,
    limits: &DeviceLimits,
    opts: &PlanOptions,
    exact: bool,
) -> Result<Plan> {
    let spectrum = if exact {
        filter(chirp, geometry.n, geometry.precision)
    } else {
        vec![Complex64::new(0.0, 0.0); geometry.n]
    };
    let spectrum: Values = match geometry.precision {
        Precision::F64 => spectrum.into(),
        _ => spectrum.into_iter().map(to32).collect::<Vec<_>>().into(),
    };
    let mut transform = geometry.clone().then_multiply_and_invert(spectrum);
    transform.load = load;
    transform.store = store;
    let mut plan = Plan::smooth(&transform, limits, opts)?;
    // The first pass reads the user's rows, the last writes them: no tiles staged through
    // workgroup memory or prefetched, which assume rows of the transform's length.
    let last = plan.passes.len() - 1;
    for (i, p) in plan.passes.iter_mut().enumerate() {
        if i == 0 {
            p.src_len = n;
            p.load.staged = false;
            p.persistent = None;
        }
        if i == last {
            p.dst_len = n;
            p.store.staged = false;
        }
    }
    Ok(plan)
}

/// `values` zero-padded to `m`, as a device vector.
fn pad<T: Copy + Default>(values: &[T], m: usize) -> Arc<[T]> {
    let mut p = values.to_vec();
    p.resize(m, T::default());
    p.into()
}

/// A multiply by `values` zero-padded to `m`, in `precision`: exact in f64, rounded to f32
/// otherwise.
fn multiply(values: impl Iterator<Item = Complex64>, m: usize, precision: Precision) -> PointOp {
    let values: Vec<Complex64> = values.collect();
    match precision {
        Precision::F64 => PointOp::Multiply64(pad(&values, m)),
        _ => PointOp::Multiply(pad(&values.into_iter().map(to32).collect::<Vec<_>>(), m)),
    }
}

/// The chirp `c[k] = exp(sign·iπk²/n)` for `k < n`, with `k² mod 2n` reduced exactly so the
/// angle is accurate for any `k`.
fn chirp(n: usize, sign: f64) -> Vec<Complex64> {
    (0..n)
        .map(|k| {
            let k2 = (k as u128 * k as u128 % (2 * n as u128)) as f64;
            Complex64::from_polar(1.0, sign * std::f64::consts::PI * k2 / n as f64)
        })
        .collect()
}

/// The chain's filter: the forward `m`-point spectrum of the conjugate chirp laid out
/// circularly (`b[k] = b[m − k] = conj(c[k])`), divided by `m` for the unnormalised inverse.
fn filter(chirp: &[Complex64], m: usize, precision: Precision) -> Vec<Complex64> {
    let mut b = vec![Complex64::new(0.0, 0.0); m];
    for (k, c) in chirp.iter().enumerate() {
        b[k] = c.conj();
        if k > 0 {
            b[m - k] = c.conj();
        }
    }
    if precision == Precision::F64 && m <= DD_FILTER_MAX {
        // In f64 the spectrum's own error (an f64 FFT's, some 3e-16) would be a third of
        // the transform's: in double-double it is only the final rounding.
        b = crate::base::dd::fft_dd(&b, m, -1.0);
    } else {
        rustfft::FftPlanner::new()
            .plan_fft_forward(m)
            .process(&mut b);
    }
    b.iter().map(|&z| z / m as f64).collect()
}

/// Longest convolution whose chirp spectrum an f64 plan computes in double-double (above,
/// an f64 FFT: about a second of planning per 2^20 points in double-double).
const DD_FILTER_MAX: usize = 1 << 20;

fn to32(z: Complex64) -> Complex32 {
    Complex32::new(z.re as f32, z.im as f32)
}
