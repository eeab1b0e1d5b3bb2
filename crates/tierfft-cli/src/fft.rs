//! `tierfft fft`: NumPy's `fft`, `fftn`, `rfftn` and `irfftn` on a `.npy` file, through
//! `NdSpec`, with NumPy's `n` and `s` as crops and zero-pads on the host, in f32 or (on the
//! CPU and GPUs with f64 arithmetic) f64; complex values given as real pairs (`--pairs`,
//! the only way NumPy holds complex half data) in f16 storage where `FftSpec` covers it.

use std::path::Path;
use std::time::{Duration, Instant};

use num_complex::Complex;
use tierfft::nd::Kind;
use tierfft::nd::NdTransform;
use tierfft::{Checksum, Device, DeviceKind, FftSpec, NdSpec, Precision, RealToReal, Trig, f16};

use crate::CliResult;
use crate::npy::{self, Input, Values};

/// How `tierfft fft` scales its result, with NumPy's names and meaning (`norm=` of
/// `np.fft.fft`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Norm {
    /// Forward unscaled, inverse scaled by 1/n (NumPy's default).
    Backward,
    /// Forward and inverse scaled by 1/√n.
    Ortho,
    /// Forward scaled by 1/n, inverse unscaled.
    Forward,
}

impl Norm {
    /// Whether the transform is scaled by 1/N (N: the product of the transformed extents).
    pub(crate) fn divides(self, inverse: bool) -> bool {
        matches!(
            (self, inverse),
            (Norm::Backward, true) | (Norm::Forward, false)
        )
    }

    /// What the summary line says about the scaling.
    pub(crate) fn describe(self, inverse: bool) -> &'static str {
        match (self, inverse) {
            (Norm::Backward, false) | (Norm::Forward, true) => "unscaled",
            (Norm::Backward, true) | (Norm::Forward, false) => "scaled by 1/n",
            (Norm::Ortho, _) => "scaled by 1/√n",
        }
    }
}

/// `tierfft fft --checksum`'s modes ([`Checksum`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ChecksumMode {
    /// Report the batch elements whose output failed its check.
    Detect,
    /// Run failed transforms again where the step still has their input, then report.
    Recompute,
}

impl From<ChecksumMode> for Checksum {
    fn from(mode: ChecksumMode) -> Checksum {
        match mode {
            ChecksumMode::Detect => Checksum::Detect,
            ChecksumMode::Recompute => Checksum::Recompute,
        }
    }
}

/// What `tierfft fft` was asked to do.
pub struct FftJob<'a> {
    /// The input `.npy` file.
    pub input: &'a Path,
    /// The output `.npy` file.
    pub output: &'a Path,
    /// Inverse transform.
    pub inverse: bool,
    /// Real data on one side: R2C forward, C2R inverse.
    pub real: bool,
    /// A DCT or DST along every transformed axis instead of an FFT (real in and out; SciPy's
    /// dctn and dstn, their inverses with `inverse`).
    pub trig: Option<Trig>,
    /// The axes to transform, NumPy style (negative counts from the end); `None`: the last.
    pub axes: Option<&'a [i64]>,
    /// NumPy's `n`: the length of the last transformed axis (C2R: the real length); the input
    /// is cropped or zero-padded there. `None`: the input's extent (C2R: 2(m - 1)).
    pub n: Option<usize>,
    /// NumPy's `s`: a length for each transformed axis, as `n` is for the last.
    pub s: Option<&'a [usize]>,
    /// The scaling.
    pub norm: Norm,
    /// The precision to transform in; `None`: the input's (f64 for float64 and complex128
    /// files where the device transforms in f64, f16 for float16 pairs, f32 otherwise).
    pub precision: Option<Precision>,
    /// The input's last axis (of length 2) holds real and imaginary parts, and the output
    /// is written the same way.
    pub pairs: bool,
    /// Whether and how every transform is checked against a checksum of its input.
    pub checksum: Checksum,
}

/// `axes` (negative from the end) as indices into `rank` axes; the last axis when `None`.
pub(crate) fn resolve_axes(axes: Option<&[i64]>, rank: usize) -> CliResult<Vec<usize>> {
    let Some(axes) = axes else {
        return Ok(vec![rank - 1]);
    };
    axes.iter()
        .map(|&a| {
            let i = if a < 0 { a + rank as i64 } else { a };
            usize::try_from(i)
                .ok()
                .filter(|&i| i < rank)
                .ok_or_else(|| format!("axis {a} is out of range for a {rank}-d array").into())
        })
        .collect()
}

/// `values` (row-major, `shape`) cut or zero-padded at the end of each axis to `target`'s
/// extents, as NumPy's `s` and `n` do.
fn fit<T: Copy + Default>(mut values: Vec<T>, shape: &[usize], target: &[usize]) -> Vec<T> {
    let mut now = shape.to_vec();
    for (axis, &len) in target.iter().enumerate() {
        values = resize_axis(values, &now, axis, len);
        now[axis] = len;
    }
    values
}

/// `values` (row-major, `shape`) with axis `axis` cut or zero-padded at its end to `len`; the
/// values themselves when the axis is already `len` long.
fn resize_axis<T: Copy + Default>(
    values: Vec<T>,
    shape: &[usize],
    axis: usize,
    len: usize,
) -> Vec<T> {
    let have = shape[axis];
    if have == len || values.is_empty() {
        return values;
    }
    let inner: usize = shape[axis + 1..].iter().product();
    let keep = have.min(len) * inner;
    let mut out = Vec::with_capacity(values.len() / have.max(1) * len);
    for block in values.chunks(have * inner) {
        out.extend_from_slice(&block[..keep]);
        out.resize(out.len() + (len * inner - keep), T::default());
    }
    out
}

/// NumPy's `s` (a length per listed axis) or `n` (the last listed axis'): the real side's
/// shape of the transform of an input of `shape` over `axes`, and the shape it reads (the
/// input cropped or zero-padded to it; a C2R's bins along its last axis). A C2R's last
/// length is the real one, by default 2(m - 1) for m bins.
fn numpy_lengths(
    job: &FftJob,
    shape: &[usize],
    axes: &[usize],
) -> Result<(Vec<usize>, Vec<usize>), String> {
    let last = axes[axes.len() - 1];
    let c2r = job.real && job.inverse;
    let lengths: Vec<Option<usize>> = match (job.s, job.n) {
        (Some(_), Some(_)) => return Err("--s and --n both give lengths: give one".into()),
        (Some(s), None) if s.len() != axes.len() => {
            return Err(format!(
                "--s gives {} lengths for the {} axes transformed ({axes:?})",
                s.len(),
                axes.len()
            ));
        }
        (Some(s), None) => s.iter().copied().map(Some).collect(),
        (None, n) => (0..axes.len())
            .map(|i| n.filter(|_| i + 1 == axes.len()))
            .collect(),
    };
    if lengths.contains(&Some(0)) {
        return Err("transform lengths (--n, --s) must be at least 1".into());
    }
    let mut real_shape = shape.to_vec();
    for (i, (&a, &len)) in axes.iter().zip(&lengths).enumerate() {
        // A repeated axis keeps one length (NumPy would resize it between its transforms).
        let len = len.unwrap_or(shape[a]);
        let other = |(&b, &l): (&usize, &Option<usize>)| b == a && l.unwrap_or(shape[a]) != len;
        if axes[..i].iter().zip(&lengths).any(other) {
            return Err(format!(
                "axis {a} is listed twice with different lengths (--n, --s); NumPy would \
                 crop or pad it between its transforms, which tierfft does not"
            ));
        }
        real_shape[a] = len;
    }
    if c2r && lengths.last() == Some(&None) {
        if shape[last] < 2 {
            return Err(format!(
                "C2R of {} bin along axis {last} has no default length \
                 (NumPy's 2(m - 1) = 0): give --n",
                shape[last]
            ));
        }
        real_shape[last] = 2 * (shape[last] - 1);
    }
    // What the transform reads: the real side's shape, a C2R's bins along its last axis.
    let mut taken = real_shape.clone();
    if c2r {
        taken[last] = real_shape[last] / 2 + 1;
    }
    Ok((real_shape, taken))
}

/// One precision's readers, writers and plan, so that one [`transform`] serves both.
trait Float: tierfft::RealElement + Default
where
    Complex<Self>: tierfft::Element,
{
    /// The transform of `spec` on `device` in this precision.
    fn plan(device: &Device, spec: &NdSpec) -> tierfft::Result<Box<dyn NdTransform<Self>>> {
        let fft = device.plan_nd(&spec.clone().precision(Self::PRECISION))?;
        Ok(Box::new(fft))
    }
    fn read(input: Input) -> CliResult<Vec<Complex<Self>>>;
    fn read_real(input: Input) -> CliResult<Vec<Self>>;
    /// A value read as f64, rounded to this precision (for real pairs).
    fn from_f64(x: f64) -> Self;
    fn complex_values(data: &[Complex<Self>]) -> Values<'_>;
    fn real_values(data: &[Self]) -> Values<'_>;
    /// `self` times `scale` (1/√N for `--norm ortho`).
    fn times(self, scale: f64) -> Self;
}

impl Float for f32 {
    fn read(input: Input) -> CliResult<Vec<Complex<f32>>> {
        input.read()
    }
    fn read_real(input: Input) -> CliResult<Vec<f32>> {
        input.read_real()
    }
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
    fn complex_values(data: &[Complex<f32>]) -> Values<'_> {
        Values::Complex(data)
    }
    fn real_values(data: &[f32]) -> Values<'_> {
        Values::Real(data)
    }
    fn times(self, scale: f64) -> f32 {
        self * scale as f32
    }
}

impl Float for f64 {
    /// On the CPU through `NdFft64` (realfft, lines on rayon's pool): 5–8 times faster
    /// there than `NdFft`'s CPU steps in f64 (1024², 64 × 65536, 128³ on the 2-core build
    /// machine).
    fn plan(device: &Device, spec: &NdSpec) -> tierfft::Result<Box<dyn NdTransform<f64>>> {
        // NdFft64 runs unchecked: checksummed f64 goes through plan_nd there too.
        if device.kind() == DeviceKind::Cpu && spec.checksum == Checksum::Off {
            return Ok(Box::new(device.plan_nd_f64(spec)?));
        }
        let fft = device.plan_nd(&spec.clone().precision(Precision::F64))?;
        Ok(Box::new(fft))
    }
    fn read(input: Input) -> CliResult<Vec<Complex<f64>>> {
        input.read_f64()
    }
    fn read_real(input: Input) -> CliResult<Vec<f64>> {
        input.read_real_f64()
    }
    fn from_f64(x: f64) -> f64 {
        x
    }
    fn complex_values(data: &[Complex<f64>]) -> Values<'_> {
        Values::Complex128(data)
    }
    fn real_values(data: &[f64]) -> Values<'_> {
        Values::Real64(data)
    }
    fn times(self, scale: f64) -> f64 {
        self * scale
    }
}

/// What [`transform`] needs of the job, worked out by [`fft`].
struct Work<'a> {
    spec: &'a NdSpec,
    /// The input's shape, and the shape the transform reads (cropped or zero-padded).
    shape: &'a [usize],
    taken: &'a [usize],
    out_shape: &'a [u64],
    /// 1/√N for `--norm ortho`.
    ortho: Option<f64>,
    /// Complex values read and written as real pairs (`--pairs`).
    pairs: bool,
}

/// The shape of `pairs` written as real pairs: a last axis of 2 added.
fn pair_shape(shape: &[u64]) -> Vec<u64> {
    let mut s = shape.to_vec();
    s.push(2);
    s
}

/// The parts of complex values in order, as written for `--pairs`.
fn parts<T: Copy>(data: &[Complex<T>]) -> Vec<T> {
    data.iter().flat_map(|z| [z.re, z.im]).collect()
}

/// Plans, reads, transforms and writes in precision `T`; the planning time and the whole
/// time (planning, reading and the transform, its transfers included).
fn transform<T: Float>(
    device: &Device,
    input: Input,
    work: &Work,
    output: &Path,
) -> CliResult<(Duration, Duration)>
where
    Complex<T>: tierfft::Element,
{
    let start = Instant::now();
    let fft = T::plan(device, work.spec)?;
    let planned = start.elapsed();
    let scale = |v: T| work.ortho.map_or(v, |s| v.times(s));
    let scale_all = |z: &mut Complex<T>| *z = Complex::new(scale(z.re), scale(z.im));
    let zero = Complex::new(T::default(), T::default());
    let total = match work.spec.kind() {
        Kind::RealToComplex => {
            let x = fit(T::read_real(input)?, work.shape, work.taken);
            let mut out = vec![zero; work.spec.output_len()];
            fft.r2c(&x, &mut out)?;
            let total = start.elapsed();
            out.iter_mut().for_each(scale_all);
            npy::write_values(output, work.out_shape, T::complex_values(&out))?;
            total
        }
        Kind::RealToReal => {
            let x = fit(T::read_real(input)?, work.shape, work.taken);
            let mut out = vec![T::default(); work.spec.output_len()];
            fft.r2r(&x, &mut out)?;
            let total = start.elapsed();
            npy::write_values(output, work.out_shape, T::real_values(&out))?;
            total
        }
        Kind::ComplexToReal => {
            let x = fit(T::read(input)?, work.shape, work.taken);
            let mut out = vec![T::default(); work.spec.output_len()];
            fft.c2r(&x, &mut out)?;
            let total = start.elapsed();
            out.iter_mut().for_each(|v| *v = scale(*v));
            npy::write_values(output, work.out_shape, T::real_values(&out))?;
            total
        }
        Kind::ComplexToComplex => {
            let data = match work.pairs {
                true => input.read_pairs(T::from_f64)?,
                false => T::read(input)?,
            };
            let mut data = fit(data, work.shape, work.taken);
            fft.c2c(&mut data)?;
            let total = start.elapsed();
            data.iter_mut().for_each(scale_all);
            match work.pairs {
                true => {
                    let parts = parts(&data);
                    let shape = pair_shape(work.out_shape);
                    npy::write_values(output, &shape, T::real_values(&parts))?
                }
                false => npy::write_values(output, work.out_shape, T::complex_values(&data))?,
            }
            total
        }
        other => {
            return Err(format!("{other:?} transforms are not offered by `tierfft fft`").into());
        }
    };
    Ok((planned, total))
}

/// A 1-D complex transform of float16 pairs over the last axis in f16 storage
/// (`FftSpec::precision(Precision::F16)`: f32 arithmetic), written as float16 pairs; the
/// planning time and the whole time, as [`transform`].
fn transform_half(
    device: &Device,
    input: Input,
    work: &Work,
    inverse: bool,
    output: &Path,
) -> CliResult<(Duration, Duration)> {
    let start = Instant::now();
    let n = work.taken[work.taken.len() - 1];
    let len: usize = work.taken.iter().product();
    let direction = match inverse {
        true => tierfft::Direction::Inverse,
        false => tierfft::Direction::Forward,
    };
    let mut spec = FftSpec::new(n)
        .batch(len / n)
        .direction(direction)
        .precision(Precision::F16);
    spec.normalize = work.spec.normalize;
    spec.checksum = work.spec.checksum;
    // 1/√N in the kernel's f32 arithmetic, before the one rounding to f16.
    if let Some(scale) = work.ortho {
        spec = spec.on_store(tierfft::PointOp::Scale(scale));
    }
    let fft = device.plan(&spec)?;
    let planned = start.elapsed();
    let mut data = fit(input.read_pairs(f16::from_f64)?, work.shape, work.taken);
    fft.process(&mut data)?;
    let total = start.elapsed();
    npy::write_values(
        output,
        &pair_shape(work.out_shape),
        Values::Half(&parts(&data)),
    )?;
    Ok((planned, total))
}

/// Why f16 storage cannot run `spec` (over `axes` of an array whose transform reads
/// `taken`), or `None` when it can: `FftSpec` stores f16 for 1-D complex transforms of
/// lengths with no prime factor above 31.
fn half_refusal(spec: &NdSpec, axes: &[usize], taken: &[usize]) -> Option<String> {
    let last = taken.len() - 1;
    if axes != [last] || spec.kind() != Kind::ComplexToComplex {
        return Some("f16 storage covers complex transforms over the last axis only".into());
    }
    FftSpec::new(taken[last])
        .precision(Precision::F16)
        .validate()
        .err()
        .map(|e| e.to_string())
}

/// The precision to transform an input of `element` in on `device`: the one asked for, or
/// the input's (f16 for float16 pairs); and a note when the input is transformed in another
/// precision than its own (double precision on a device without f64; float16 pairs where
/// f16 storage does not cover the transform, per `half_refused`).
fn choose_precision(
    asked: Option<Precision>,
    element: npy::Element,
    pairs: bool,
    device: &Device,
    half_refused: Option<String>,
) -> CliResult<(Precision, Option<String>)> {
    let has_f64 = device.kind() == DeviceKind::Cpu || device.limits().is_some_and(|l| l.shader_f64);
    let gpu_f64 = " has no f64 arithmetic (no SHADER_F64)";
    match asked {
        Some(Precision::F64) if !has_f64 => Err(format!(
            "--precision f64: {}{gpu_f64}: use --device cpu, or --precision f32",
            device.name()
        )
        .into()),
        Some(Precision::F16) if !pairs => Err(
            "--precision f16 writes float16 pairs: give the input as real pairs (--pairs); \
             NumPy has no complex half type"
                .into(),
        ),
        Some(Precision::F16) => match half_refused {
            Some(why) => Err(format!("--precision f16: {why}").into()),
            None => Ok((Precision::F16, None)),
        },
        Some(p @ (Precision::F32 | Precision::F64)) => Ok((p, None)),
        Some(p) => Err(format!(
            "--precision {p}: tierfft fft transforms in f32, f64 or (with --pairs) f16; NumPy \
             has no {p} type"
        )
        .into()),
        None if element.is_double() && has_f64 => Ok((Precision::F64, None)),
        None if element.is_double() => Ok((
            Precision::F32,
            Some(format!(
                "{}{gpu_f64}: transformed in f32 (--device cpu for f64)",
                device.name()
            )),
        )),
        None if element.is_half() && pairs => match half_refused {
            None => Ok((Precision::F16, None)),
            Some(why) => Ok((
                Precision::F32,
                Some(format!(
                    "{why}: transformed in f32, written as float32 pairs"
                )),
            )),
        },
        None => Ok((Precision::F32, None)),
    }
}

/// `tierfft fft` on `device`: reads, checks, transforms, and only then writes the output.
pub fn fft(job: &FftJob, device: &Device) -> CliResult<()> {
    let input = npy::open(job.input, npy::Expect::Rows)?;
    npy::check_output(job.output)?;
    let shown = job.input.display();
    let mut shape: Vec<usize> = input.header.shape.iter().map(|&d| d as usize).collect();
    let element = input.header.element;
    if job.pairs {
        if element.is_complex() {
            return Err(format!(
                "--pairs reads real arrays whose last axis holds (real, imaginary); '{shown}' \
                 is {} already: leave --pairs out",
                element.name()
            )
            .into());
        }
        if job.real {
            return Err("--pairs gives complex values; --real transforms real ones".into());
        }
        if shape.len() < 2 || shape.last() != Some(&2) {
            return Err(format!(
                "--pairs needs a last axis of length 2 (real, imaginary); '{shown}' has shape \
                 {shape:?}"
            )
            .into());
        }
        shape.pop();
    }
    // As NumPy's fftn: with `s` and no axes, the last len(s) axes.
    let axes = match (job.axes, job.s) {
        (None, Some(s)) if s.len() > shape.len() => {
            return Err(format!(
                "--s gives {} lengths for a {}-d array",
                s.len(),
                shape.len()
            )
            .into());
        }
        (None, Some(s)) => (shape.len() - s.len()..shape.len()).collect(),
        (axes, _) => resolve_axes(axes, shape.len())?,
    };
    if axes.is_empty() {
        return Err("--axes lists no axis".into());
    }
    let (real_shape, taken) =
        numpy_lengths(job, &shape, &axes).map_err(|e| format!("'{shown}': {e}"))?;
    let mut spec = NdSpec::new(&real_shape).axes(&axes);
    if job.real {
        spec = spec.real();
    }
    let mut ortho = (job.norm == Norm::Ortho).then(|| {
        let n: f64 = axes.iter().map(|&a| real_shape[a] as f64).product();
        n.sqrt().recip()
    });
    if let Some(t) = job.trig {
        if element.is_complex() {
            return Err(format!(
                "'{shown}' is {}: the {t} transforms reals; transform the real and imaginary \
                 parts apart",
                element.name()
            )
            .into());
        }
        // SciPy's norm: the extension's lengths, and "ortho" orthogonalised, in the spec.
        let r2r = match ortho.take() {
            Some(_) => {
                let n: f64 = axes
                    .iter()
                    .map(|&a| t.logical_len(real_shape[a]) as f64)
                    .product();
                RealToReal::new(t).orthogonalized().scaled(n.sqrt().recip())
            }
            None => RealToReal::new(t),
        };
        spec = spec.trig(r2r);
    }
    if job.inverse {
        spec = spec.inverse();
    }
    if job.norm.divides(job.inverse) {
        spec = spec.normalized();
    }
    spec = spec.checksum(job.checksum);
    spec.validate().map_err(|e| format!("'{shown}': {e}"))?;
    let half_refused = half_refusal(&spec, &axes, &taken);
    let (precision, note) =
        choose_precision(job.precision, element, job.pairs, device, half_refused)?;
    if let Some(note) = &note {
        eprintln!("tierfft: note: {} input: {note}", element.name());
    }
    let out_shape: Vec<u64> = match spec.kind() {
        Kind::RealToComplex => spec.complex_shape(),
        _ => real_shape.clone(),
    }
    .iter()
    .map(|&d| d as u64)
    .collect();
    let work = Work {
        spec: &spec,
        shape: &shape,
        taken: &taken,
        out_shape: &out_shape,
        ortho,
        pairs: job.pairs,
    };
    let (planned, total) = match precision {
        Precision::F64 => transform::<f64>(device, input, &work, job.output)?,
        Precision::F16 => transform_half(device, input, &work, job.inverse, job.output)?,
        _ => transform::<f32>(device, input, &work, job.output)?,
    };
    let direction = if job.inverse { "inverse" } else { "forward" };
    let kind = match job.trig {
        Some(t) => t.name(),
        None => format!("{} FFT", spec.kind().abbreviation()),
    };
    let read_as = match (precision, spec.kind(), job.pairs) {
        (Precision::F16, _, _) => "float16 pairs",
        (Precision::F64, _, true) => "float64 pairs",
        (_, _, true) => "float32 pairs",
        (Precision::F64, Kind::RealToComplex | Kind::RealToReal, _) => "float64",
        (Precision::F64, _, _) => "complex128",
        (_, Kind::RealToComplex | Kind::RealToReal, _) => "float32",
        (_, _, _) => "complex64",
    };
    let given = match job.pairs {
        true => format!("{} pairs", element.name()),
        false => element.name(),
    };
    let converted = match given == read_as {
        true => String::new(),
        false => format!(", {given} input read as {read_as}"),
    };
    let checked = match job.checksum {
        Checksum::Off => "",
        _ => ", checksums passed",
    };
    eprintln!(
        "tierfft: {direction} {kind} in {precision} ({}{converted}{checked}) over axes {axes:?} of {real_shape:?} on {}: {} ({} planning, {} transform incl. transfers) -> {} {out_shape:?}",
        job.norm.describe(job.inverse),
        device.name(),
        tierfft_bench::shared::format_seconds(total.as_secs_f64()),
        tierfft_bench::shared::format_seconds(planned.as_secs_f64()),
        tierfft_bench::shared::format_seconds((total - planned).as_secs_f64()),
        job.output.display()
    );
    Ok(())
}
