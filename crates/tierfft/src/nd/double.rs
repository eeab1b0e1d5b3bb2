//! N-D and real transforms in double precision on the CPU backend (rustfft and realfft in
//! f64): NumPy's `fftn`, `rfftn` and `irfftn` for float64 and complex128 data, as the Python
//! package and `tierfft fft` run them on the CPU (5–8 times faster there than `NdFft`'s
//! CPU steps in f64). The short lengths rustfft rounds too coarsely (a factor 13, 19 or 23)
//! are transformed directly ([`super::direct`]).
//!
//! Only [`crate::Device::cpu()`] plans these; on any device (GPUs with f64 arithmetic
//! included) [`crate::Device::plan_nd`] of an [`NdSpec`] in
//! [`crate::Precision::F64`] runs the same transforms through [`crate::NdFft`].

use std::sync::Arc;

use num_complex::Complex64;
use rayon::prelude::*;
use realfft::{ComplexToReal, RealFftPlanner, RealToComplex};
use rustfft::{Fft, FftDirection, FftPlanner};

use super::direct::{DirectDft, DirectReal, direct};
use super::plan::around;
use super::{Kind, NdPlan, NdSpec, StepOp};
use crate::backend::{Device, DeviceKind};
use crate::error::{Error, Result};
use crate::plan::{Reshape, rounded_twiddles, trig_on_host};
use crate::spec::{Direction, PointOp};

/// The real-data transform of a real transform's halved axis (realfft: half the work of a
/// complex transform of the widened reals).
enum RealLines {
    Forward(Arc<dyn RealToComplex<f64>>),
    Inverse(Arc<dyn ComplexToReal<f64>>),
}

/// Columns of a non-last axis gathered into contiguous lines at a time: enough that each
/// gather reads runs of neighbouring elements, few enough that the lines stay in cache.
const TILE: usize = 16;
/// Points a task transforms at least (rows of the last axis are grouped up to this).
const MIN_TASK_POINTS: usize = 1 << 14;

/// An N-D or real transform in f64 on the host, planned once and reusable (`Send + Sync`).
///
/// ```
/// use num_complex::Complex64;
/// use tierfft::{Device, NdSpec};
///
/// # fn main() -> tierfft::Result<()> {
/// let fft = Device::cpu().plan_nd_f64(&NdSpec::new(&[3, 8]).real())?;
/// let signal: Vec<f64> = (0..24).map(|i| (i % 8) as f64).collect();
/// let mut bins = vec![Complex64::new(0.0, 0.0); 3 * 5];
/// fft.process_real_to_complex(&signal, &mut bins)?;
/// assert!((bins[0].re - 3.0 * 28.0).abs() < 1e-12); // the sum of every element
/// # Ok(())
/// # }
/// ```
pub struct NdFft64 {
    spec: NdSpec,
    /// One transform per entry of `spec.axes`, in order, with the axis it runs along (for
    /// a real transform, the complex ones of the other axes; its halved axis is `real`).
    ffts: Vec<(usize, Arc<dyn Fft<f64>>)>,
    /// A real transform's halved axis and its real-data transform.
    real: Option<(usize, RealLines)>,
    /// The product of the spec's scales (normalisation and `PointOp::Scale`s; for a DCT or
    /// DST, in its steps).
    scale: f64,
    /// A DCT or DST's steps ([`NdPlan`]): its passes to and from the complex work array,
    /// run on the host, around the transforms in `ffts`.
    trig: Option<NdPlan>,
    /// The twiddles of each of `trig`'s steps, made once (empty for its FFTs).
    trig_twiddles: Vec<Vec<Complex64>>,
}

impl Device {
    /// Plans `spec` in double precision. Only the CPU backend has f64 transforms for now;
    /// the spec must be contiguous (no strides) and may carry `PointOp::Scale` operations
    /// only.
    pub fn plan_nd_f64(&self, spec: &NdSpec) -> Result<NdFft64> {
        if self.kind() != DeviceKind::Cpu {
            return Err(Error::Unsupported {
                what: "an f64 transform".into(),
                device: self.name(),
                detail: "NdFft64 runs on the CPU; on a GPU plan the NdSpec with \
                         .precision(Precision::F64) through Device::plan_nd"
                    .into(),
            });
        }
        spec.validate()?;
        if spec.checksum != crate::Checksum::Off {
            return Err(Error::InvalidSpec(
                "NdFft64 runs unchecked: plan a checksummed f64 transform through \
                 Device::plan_nd with .precision(Precision::F64)"
                    .into(),
            ));
        }
        if spec.input_strides.is_some() || spec.output_strides.is_some() {
            return Err(Error::InvalidSpec(
                "f64 transforms take contiguous row-major arrays (no strides)".into(),
            ));
        }
        let mut scale = 1.0;
        for op in spec.load.iter().chain(&spec.store) {
            match op {
                PointOp::Scale(s) => scale *= *s,
                other => {
                    return Err(Error::InvalidSpec(format!(
                        "f64 transforms take PointOp::Scale only, not {}",
                        other.name()
                    )));
                }
            }
        }
        if spec.trig.is_some() {
            return plan_trig(spec);
        }
        if spec.normalize {
            scale /= spec
                .axes
                .iter()
                .map(|&a| spec.shape[a] as f64)
                .product::<f64>();
        }
        let mut planner = FftPlanner::<f64>::new();
        let real = spec.real_axis().map(|a| {
            let n = spec.shape[a];
            let mut planner = RealFftPlanner::<f64>::new();
            let lines = match (spec.direction, direct(n)) {
                (Direction::Forward, true) => {
                    RealLines::Forward(Arc::new(DirectReal::new(n, FftDirection::Forward)))
                }
                (Direction::Inverse, true) => {
                    RealLines::Inverse(Arc::new(DirectReal::new(n, FftDirection::Inverse)))
                }
                (Direction::Forward, false) => RealLines::Forward(planner.plan_fft_forward(n)),
                (Direction::Inverse, false) => RealLines::Inverse(planner.plan_fft_inverse(n)),
            };
            (a, lines)
        });
        let complex_axes = match real {
            Some(_) => &spec.axes[..spec.axes.len() - 1],
            None => &spec.axes[..],
        };
        let ffts = complex_axes
            .iter()
            .map(|&a| (a, line_fft(&mut planner, spec.shape[a], spec.direction)))
            .collect();
        Ok(NdFft64 {
            spec: spec.clone(),
            ffts,
            real,
            scale,
            trig: None,
            trig_twiddles: Vec::new(),
        })
    }
}

/// The `n`-point transform in `direction`: computed directly where rustfft rounds too
/// coarsely ([`direct`]), else rustfft's plan.
fn line_fft(planner: &mut FftPlanner<f64>, n: usize, direction: Direction) -> Arc<dyn Fft<f64>> {
    match (direction, direct(n)) {
        (Direction::Forward, true) => Arc::new(DirectDft::new(n, FftDirection::Forward)),
        (Direction::Inverse, true) => Arc::new(DirectDft::new(n, FftDirection::Inverse)),
        (Direction::Forward, false) => planner.plan_fft_forward(n),
        (Direction::Inverse, false) => planner.plan_fft_inverse(n),
    }
}

/// A DCT or DST in f64: the N-D plan's steps, its transforms planned by rustfft.
fn plan_trig(spec: &NdSpec) -> Result<NdFft64> {
    let plan = NdPlan::new(spec)?;
    let mut planner = FftPlanner::<f64>::new();
    let ffts = plan
        .steps
        .iter()
        .filter_map(|step| match &step.op {
            StepOp::Fft { axis, spec } => {
                Some((*axis, line_fft(&mut planner, spec.n, spec.direction)))
            }
            StepOp::Reshape(_) => None,
        })
        .collect();
    Ok(NdFft64 {
        spec: spec.clone(),
        ffts,
        real: None,
        scale: 1.0,
        trig_twiddles: (plan.steps.iter())
            .map(|step| match &step.op {
                StepOp::Reshape(r) => rounded_twiddles(r),
                StepOp::Fft { .. } => Vec::new(),
            })
            .collect(),
        trig: Some(plan),
    })
}

impl std::fmt::Debug for NdFft64 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NdFft64")
            .field("spec", &self.spec)
            .finish_non_exhaustive()
    }
}

impl NdFft64 {
    /// What this transform computes.
    pub fn spec(&self) -> &NdSpec {
        &self.spec
    }

    /// A complex transform of `data` (the spec's shape, row-major) in place.
    pub fn process(&self, data: &mut [Complex64]) -> Result<()> {
        self.expect(Kind::ComplexToComplex)?;
        check_len("array", data.len(), self.spec.input_len())?;
        for (axis, fft) in &self.ffts {
            along(data, &self.spec.shape, *axis, fft.as_ref());
        }
        self.scale_all(data);
        Ok(())
    }

    /// R2C: `input` ([`NdSpec::input_len`] reals) into `output` ([`NdSpec::output_len`]
    /// complex values; the last transformed axis holds `n/2 + 1` bins).
    pub fn process_real_to_complex(&self, input: &[f64], output: &mut [Complex64]) -> Result<()> {
        self.expect(Kind::RealToComplex)?;
        check_len("input", input.len(), self.spec.input_len())?;
        check_len("output", output.len(), self.spec.output_len())?;
        let (axis, RealLines::Forward(fft)) = self.real_lines()? else {
            return Err(Error::InvalidSpec("this transform is not R2C".into()));
        };
        // The real axis first (n reals to n/2 + 1 bins per line), then the others on the
        // half-size array: transforms along different axes commute.
        let (outer, n, inner) = around(&self.spec.shape, axis);
        let scratch = || vec![Complex64::default(); fft.get_scratch_len()];
        lines_between(
            input,
            output,
            (outer, inner),
            (n, n / 2 + 1),
            scratch,
            |s, x, y| {
                // Lengths match by construction; realfft checks them again.
                let _ = fft.process_with_scratch(x, y, s);
            },
        );
        let half = self.spec.complex_shape();
        for (axis, fft) in &self.ffts {
            along(output, &half, *axis, fft.as_ref());
        }
        self.scale_all(output);
        Ok(())
    }

    /// C2R: `input` ([`NdSpec::input_len`] complex values, the last transformed axis holding
    /// `n/2 + 1` bins; left unchanged) into `output` ([`NdSpec::output_len`] reals). The
    /// imaginary parts of bin 0 and, for even n, bin n/2 along that axis are ignored, as
    /// NumPy's `irfftn` ignores them.
    pub fn process_complex_to_real(&self, input: &[Complex64], output: &mut [f64]) -> Result<()> {
        self.expect(Kind::ComplexToReal)?;
        check_len("input", input.len(), self.spec.input_len())?;
        check_len("output", output.len(), self.spec.output_len())?;
        let (axis, RealLines::Inverse(fft)) = self.real_lines()? else {
            return Err(Error::InvalidSpec("this transform is not C2R".into()));
        };
        let mut half = input.to_vec();
        let half_shape = self.spec.complex_shape();
        for (axis, fft) in &self.ffts {
            along(&mut half, &half_shape, *axis, fft.as_ref());
        }
        // Then the real axis, n/2 + 1 bins to n reals per line; the imaginary parts a real
        // signal's spectrum cannot have are set aside first, as NumPy ignores them.
        let (outer, n, inner) = around(&self.spec.shape, axis);
        let scratch = || vec![Complex64::default(); fft.get_scratch_len()];
        lines_between(
            &half,
            output,
            (outer, inner),
            (n / 2 + 1, n),
            scratch,
            |s, x, y| {
                x[0].im = 0.0;
                if n % 2 == 0 {
                    x[n / 2].im = 0.0;
                }
                let _ = fft.process_with_scratch(x, y, s);
            },
        );
        if self.scale != 1.0 {
            output.iter_mut().for_each(|x| *x *= self.scale);
        }
        Ok(())
    }

    /// A DCT or DST ([`NdSpec::trig`]): `input` into `output` ([`NdSpec::input_len`] reals
    /// each).
    pub fn process_real_to_real(&self, input: &[f64], output: &mut [f64]) -> Result<()> {
        self.expect(Kind::RealToReal)?;
        check_len("input", input.len(), self.spec.input_len())?;
        check_len("output", output.len(), self.spec.output_len())?;
        let plan = self
            .trig
            .as_ref()
            .ok_or_else(|| Error::InvalidSpec("this transform is not a DCT or DST".into()))?;
        output.copy_from_slice(input);
        let mut work = Vec::new();
        // The work array's lines: [outer][m][inner] of the last step into it.
        let mut lines = (1, 1);
        let mut ffts = self.ffts.iter();
        for (step, w) in plan.steps.iter().zip(&self.trig_twiddles) {
            match &step.op {
                StepOp::Reshape(
                    r @ Reshape::TrigLoad {
                        outer,
                        inner,
                        pairs,
                        ..
                    },
                ) => {
                    lines = pairs.fft_dims(*outer, *inner);
                    work.clear();
                    work.resize(r.outputs(), Complex64::default());
                    trig_on_host::<f64>(r, w, output, bytemuck::cast_slice_mut(&mut work));
                }
                StepOp::Reshape(r) => {
                    trig_on_host::<f64>(r, w, bytemuck::cast_slice(&work), output);
                }
                StepOp::Fft { .. } => {
                    let Some((_, fft)) = ffts.next() else {
                        return Err(Error::InvalidSpec("a step has no transform".into()));
                    };
                    let shape = [lines.0, fft.len(), lines.1];
                    along(&mut work, &shape, 1, fft.as_ref());
                }
            }
        }
        Ok(())
    }

    fn expect(&self, kind: Kind) -> Result<()> {
        match self.spec.kind() {
            k if k == kind => Ok(()),
            k => Err(Error::InvalidSpec(format!(
                "this transform is {}, not {}",
                k.abbreviation(),
                kind.abbreviation()
            ))),
        }
    }

    /// The halved axis of a real transform and its real-data transform.
    fn real_lines(&self) -> Result<(usize, &RealLines)> {
        self.real
            .as_ref()
            .map(|(axis, lines)| (*axis, lines))
            .ok_or_else(|| Error::InvalidSpec("this transform has no real axis".into()))
    }

    fn scale_all(&self, data: &mut [Complex64]) {
        if self.scale != 1.0 {
            data.iter_mut().for_each(|z| *z *= self.scale);
        }
    }
}

fn check_len(what: &str, got: usize, expected: usize) -> Result<()> {
    match got == expected {
        true => Ok(()),
        false => Err(Error::InvalidSpec(format!(
            "the {what} holds {got} elements, but the transform needs {expected}"
        ))),
    }
}

/// Transforms every line along `axis` of `data` (row-major, of `shape`) in place, on
/// rayon's pool: the rows of the last axis in groups, the columns of another through
/// contiguous tiles of lines (whole blocks per task where there are many blocks, else the
/// tiles of one block in parallel).
fn along(data: &mut [Complex64], shape: &[usize], axis: usize, fft: &dyn Fft<f64>) {
    let (outer, n, inner) = around(shape, axis);
    let scratch = || vec![Complex64::default(); fft.get_inplace_scratch_len()];
    if inner == 1 {
        let rows = (MIN_TASK_POINTS / n).max(1);
        data.par_chunks_mut(rows * n)
            .for_each_init(scratch, |s, chunk| fft.process_with_scratch(chunk, s));
        return;
    }
    if outer >= rayon::current_num_threads() {
        data.par_chunks_mut(n * inner)
            .for_each_init(scratch, |s, block| {
                let mut lines = vec![Complex64::default(); TILE.min(inner) * n];
                for c0 in (0..inner).step_by(TILE) {
                    let t = TILE.min(inner - c0);
                    let lines = &mut lines[..t * n];
                    gather(block, inner, c0, t, lines);
                    fft.process_with_scratch(lines, s);
                    for k in 0..n {
                        block[k * inner + c0..][..t]
                            .iter_mut()
                            .enumerate()
                            .for_each(|(j, z)| *z = lines[j * n + k]);
                    }
                }
            });
        return;
    }
    for block in data.chunks_mut(n * inner) {
        // Each tile's lines transformed apart, then written back row by row.
        let tiles: Vec<Vec<Complex64>> = (0..inner)
            .into_par_iter()
            .step_by(TILE)
            .map_init(scratch, |s, c0| {
                let t = TILE.min(inner - c0);
                let mut lines = vec![Complex64::default(); t * n];
                gather(block, inner, c0, t, &mut lines);
                fft.process_with_scratch(&mut lines, s);
                lines
            })
            .collect();
        block
            .par_chunks_mut(inner)
            .enumerate()
            .for_each(|(k, row)| {
                for (tile, lines) in tiles.iter().enumerate() {
                    let t = lines.len() / n;
                    row[tile * TILE..][..t]
                        .iter_mut()
                        .enumerate()
                        .for_each(|(j, z)| *z = lines[j * n + k]);
                }
            });
    }
}

/// Runs `line` over every line along an axis of `src` into the same line of `dst`, on
/// rayon's pool: `src` holds `outer` blocks of `lens.0` rows of `inner` elements, `dst` the
/// same blocks of `lens.1` rows. `line` gets a task's state (made by `init`), a copy of the
/// source line (which it may overwrite) and the destination line.
fn lines_between<S, D, St>(
    src: &[S],
    dst: &mut [D],
    (outer, inner): (usize, usize),
    (m, n): (usize, usize),
    init: impl Fn() -> St + Sync + Send,
    line: impl Fn(&mut St, &mut [S], &mut [D]) + Sync + Send,
) where
    S: Copy + Default + Send + Sync,
    D: Copy + Default + Send + Sync,
{
    if inner == 1 {
        let rows = (MIN_TASK_POINTS / m.max(n)).max(1);
        dst.par_chunks_mut(rows * n)
            .zip(src.par_chunks(rows * m))
            .for_each_init(
                || (init(), vec![S::default(); m]),
                |(state, x), (into, from)| {
                    for (y, row) in into.chunks_mut(n).zip(from.chunks(m)) {
                        x.copy_from_slice(row);
                        line(state, x, y);
                    }
                },
            );
        return;
    }
    // Columns `c0 .. c0 + t` of one block: gathered, transformed, as `t` output lines.
    let tile = |state: &mut St, block: &[S], c0: usize| -> Vec<D> {
        let t = TILE.min(inner - c0);
        let mut x = vec![S::default(); m];
        let mut lines = vec![D::default(); t * n];
        for (j, y) in lines.chunks_mut(n).enumerate() {
            x.iter_mut()
                .enumerate()
                .for_each(|(k, v)| *v = block[k * inner + c0 + j]);
            line(state, &mut x, y);
        }
        lines
    };
    let scatter = |into: &mut [D], tiles: &[Vec<D>]| {
        into.par_chunks_mut(inner).enumerate().for_each(|(k, row)| {
            for (i, lines) in tiles.iter().enumerate() {
                for (j, y) in lines.chunks(n).enumerate() {
                    row[i * TILE + j] = y[k];
                }
            }
        });
    };
    for (from, into) in src
        .chunks(m * inner)
        .zip(dst.chunks_mut(n * inner))
        .take(outer)
    {
        let tiles: Vec<Vec<D>> = (0..inner)
            .into_par_iter()
            .step_by(TILE)
            .map_init(&init, |state, c0| tile(state, from, c0))
            .collect();
        scatter(into, &tiles);
    }
}

/// Columns `c0 .. c0 + t` of `block` (rows of `inner` elements) as `t` contiguous lines.
fn gather(block: &[Complex64], inner: usize, c0: usize, t: usize, lines: &mut [Complex64]) {
    let n = lines.len() / t;
    for k in 0..n {
        for j in 0..t {
            lines[j * n + k] = block[k * inner + c0 + j];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::debug::reference::fftn_f64;

    /// A deterministic pseudo-random sequence in [-1, 1).
    fn values(len: usize, seed: u64) -> Vec<f64> {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 11) as f64 / (1u64 << 52) as f64 - 1.0
            })
            .collect()
    }

    fn worst(a: &[Complex64], b: &[Complex64]) -> f64 {
        let peak = b.iter().map(|z| z.norm()).fold(0.0, f64::max);
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).norm())
            .fold(0.0, f64::max)
            / peak
    }

    #[test]
    fn complex_matches_the_reference_along_every_axis_choice() {
        let shape = [3, 20, 7];
        for (seed, axes) in [vec![0], vec![1], vec![2], vec![2, 0], vec![0, 1, 2, 0]]
            .into_iter()
            .enumerate()
        {
            let len = 3 * 20 * 7;
            let (re, im) = (values(len, seed as u64), values(len, 99));
            let input: Vec<Complex64> = re
                .iter()
                .zip(&im)
                .map(|(&a, &b)| Complex64::new(a, b))
                .collect();
            for direction in [Direction::Forward, Direction::Inverse] {
                let spec = NdSpec::new(&shape).axes(&axes).direction(direction);
                let fft = Device::cpu().plan_nd_f64(&spec).expect("plans");
                let mut got = vec![Complex64::new(f64::NAN, f64::NAN); len];
                got.copy_from_slice(&input);
                fft.process(&mut got).expect("runs");
                let mut want = input.clone();
                fftn_f64(&mut want, &shape, &axes, direction);
                assert!(worst(&got, &want) < 1e-14, "axes {axes:?} {direction:?}");
            }
        }
    }

    #[test]
    fn real_round_trip_is_exact_to_double_precision() {
        let shape = [5, 6, 9];
        let input = values(5 * 6 * 9, 7);
        let forward = Device::cpu()
            .plan_nd_f64(&NdSpec::new(&shape).axes(&[0, 2]).real())
            .expect("plans");
        let inverse = Device::cpu()
            .plan_nd_f64(
                &NdSpec::new(&shape)
                    .axes(&[0, 2])
                    .real()
                    .inverse()
                    .normalized(),
            )
            .expect("plans");
        let mut bins = vec![Complex64::new(f64::NAN, 0.0); 5 * 6 * 5];
        forward
            .process_real_to_complex(&input, &mut bins)
            .expect("runs");
        // The bins against the complex reference cut to n/2 + 1 along axis 2.
        let mut full: Vec<Complex64> = input.iter().map(|&x| Complex64::new(x, 0.0)).collect();
        fftn_f64(&mut full, &shape, &[0, 2], Direction::Forward);
        let want: Vec<Complex64> = full.chunks(9).flat_map(|row| row[..5].to_vec()).collect();
        assert!(worst(&bins, &want) < 1e-14);
        let mut back = vec![f64::NAN; input.len()];
        inverse
            .process_complex_to_real(&bins, &mut back)
            .expect("runs");
        let err = back
            .iter()
            .zip(&input)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-14, "round trip error {err:e}");
    }

    #[test]
    fn refused_off_the_cpu_and_with_strides() {
        let spec = NdSpec::new(&[4, 4]).input_strides(&[8, 1]);
        assert!(matches!(
            Device::cpu().plan_nd_f64(&spec),
            Err(Error::InvalidSpec(_))
        ));
        let fft = Device::cpu()
            .plan_nd_f64(&NdSpec::new(&[4, 4]))
            .expect("plans");
        let mut short = vec![Complex64::default(); 15];
        assert!(fft.process(&mut short).is_err());
    }
}
