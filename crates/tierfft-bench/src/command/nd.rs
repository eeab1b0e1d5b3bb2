//! `tierfft bench --shapes`: N-D and real transforms (C2C, R2C, C2R over the trailing axes of
//! row-major arrays) timed on any device, and with `--compare cufft` side by side with
//! cuFFT's `cufftPlanMany` on the same GPU, input and run.

use num_complex::{Complex, Complex64};
use rand::RngExt;
use tierfft::backend::median;

use tierfft::debug::reference::{NdInput, nd_dd, nd_f64, relative_l2_error64};
use tierfft::nd::FuseReal;
use tierfft::nd::Kind;
use tierfft::{Complex32, Device, Direction, Element, NdSpec, Precision};

use super::CommandResult;
use crate::compare_nd::{CufftReal, NdData, compare_nd};

/// Arrays up to this many elements are checked against the f64 reference; larger ones
/// against cuFFT (with `--compare`) or not at all.
const CHECKED_ELEMENTS: usize = 1 << 23;

/// What to time.
pub struct NdOptions<'a> {
    /// Shapes, outermost axis first.
    pub shapes: &'a [Vec<usize>],
    /// Trailing axes transformed (`None`: all).
    pub dims: Option<usize>,
    /// R2C (forward) or C2R (inverse).
    pub real: bool,
    /// Direction.
    pub direction: Direction,
    /// Timed calls per library and shape.
    pub reps: usize,
    /// Side by side with cuFFT (CUDA only).
    pub cufft: bool,
    /// Where a real axis' split and merge are fused.
    pub fuse: FuseReal,
    /// The planner variant each axis' transform is planned with.
    pub plan: tierfft::plan::PlanOptions,
    /// f32, or f64 (against cuFFT's Z2Z, D2Z and Z2D).
    pub precision: Precision,
}

/// A precision the N-D benchmark runs in: its random values and its reference.
trait BenchReal: CufftReal
where
    Complex<Self>: Element,
{
    fn from_f64(x: f64) -> Self;
    fn widen(z: Complex<Self>) -> Complex64;
    /// The input as the reference reads it.
    fn input<'a>(reals: &'a [Self], complex: &'a [Complex<Self>], real: bool) -> NdInput<'a>;
    /// The reference: f64 for f32 transforms, double-double for f64 ones.
    fn reference(spec: &NdSpec, input: &NdInput) -> Vec<Complex64>;
}

impl BenchReal for f32 {
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
    fn widen(z: Complex32) -> Complex64 {
        Complex64::new(z.re.into(), z.im.into())
    }
    fn input<'a>(reals: &'a [f32], complex: &'a [Complex32], real: bool) -> NdInput<'a> {
        match real {
            true => NdInput::Real(reals),
            false => NdInput::Complex(complex),
        }
    }
    fn reference(spec: &NdSpec, input: &NdInput) -> Vec<Complex64> {
        nd_f64(spec, input)
    }
}

impl BenchReal for f64 {
    fn from_f64(x: f64) -> f64 {
        x
    }
    fn widen(z: Complex64) -> Complex64 {
        z
    }
    fn input<'a>(reals: &'a [f64], complex: &'a [Complex64], real: bool) -> NdInput<'a> {
        match real {
            true => NdInput::Real64(reals),
            false => NdInput::Complex64(complex),
        }
    }
    fn reference(spec: &NdSpec, input: &NdInput) -> Vec<Complex64> {
        nd_dd(spec, input)
    }
}

fn shape_name(shape: &[usize]) -> String {
    shape
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("×")
}

/// C2R input: the spectrum of random reals (R2C on the device), so that it is what a real
/// signal's spectrum is. Random bins would not be: cuFFT and NumPy treat the imaginary parts
/// a real signal's spectrum cannot have differently, which is no measure of accuracy.
fn real_spectrum<T: BenchReal>(
    device: &Device,
    c2r: &NdSpec,
    rng: &mut impl rand::Rng,
) -> CommandResult<Vec<Complex<T>>>
where
    Complex<T>: Element,
{
    let mut r2c = c2r.clone();
    r2c.direction = Direction::Forward;
    r2c.normalize = false;
    let reals: Vec<T> = (0..r2c.input_len())
        .map(|_| T::from_f64(rng.random_range(-1.0..1.0)))
        .collect();
    let mut out = vec![Complex::<T>::default(); r2c.output_len()];
    device
        .plan_nd(&r2c)?
        .process_real_to_complex(&reals, &mut out)?;
    Ok(out)
}

/// `tierfft bench --shapes ...`.
pub fn run(device: &Device, opts: &NdOptions) -> CommandResult<()> {
    match opts.precision {
        Precision::F32 => run_in::<f32>(device, opts),
        Precision::F64 => run_in::<f64>(device, opts),
        other => Err(format!("--shapes benchmarks f32 or f64, not {other}").into()),
    }
}

/// [`run`] in precision `T`.
fn run_in<T: BenchReal>(device: &Device, opts: &NdOptions) -> CommandResult<()>
where
    Complex<T>: Element,
{
    let cuda = match (opts.cufft, device.cuda_device()) {
        (true, Some(_)) => Some(device),
        (true, None) => return Err("--compare cufft needs --backend cuda".into()),
        (false, _) => None,
    };
    println!("device: {}, {}", device.name(), opts.precision);
    println!(
        "{:>16} {:>5} {:>4} {:>10} {:>10} {:>7} {:>8} {:>8} {:>9} {:>9}",
        "shape",
        "axes",
        "kind",
        "ours",
        "cuFFT",
        "cu/ours",
        "GB/s",
        "copy",
        "err ours",
        "err cuFFT"
    );
    let mut rng = rand::rng();
    for shape in opts.shapes {
        let dims = opts.dims.unwrap_or(shape.len()).clamp(1, shape.len());
        let axes: Vec<usize> = (shape.len() - dims..shape.len()).collect();
        let mut spec = NdSpec::new(shape)
            .axes(&axes)
            .direction(opts.direction)
            .precision(opts.precision);
        if opts.real {
            spec = spec.real();
        }
        spec.validate()?;
        let fft = device.plan_nd_with(&spec, opts.fuse, &opts.plan)?;
        let kind = spec.kind().abbreviation();
        let mut random = || T::from_f64(rng.random_range(-1.0..1.0));
        let (reals, complex): (Vec<T>, Vec<Complex<T>>) = match spec.kind() {
            Kind::RealToComplex => (
                (0..spec.input_len()).map(|_| random()).collect(),
                Vec::new(),
            ),
            Kind::ComplexToReal => (Vec::new(), real_spectrum(device, &spec, &mut rng)?),
            Kind::ComplexToComplex => {
                let values = (0..spec.input_len()).map(|_| Complex::new(random(), random()));
                (Vec::new(), values.collect())
            }
            other => return Err(format!("{other:?} transforms are not benchmarked").into()),
        };
        let r2c = spec.kind() == Kind::RealToComplex;
        let input = T::input(&reals, &complex, r2c);
        // The double-double reference costs more: f64 arrays are checked to 2^21 elements.
        let limit = match opts.precision {
            Precision::F64 => CHECKED_ELEMENTS >> 2,
            _ => CHECKED_ELEMENTS,
        };
        let checked = shape.iter().product::<usize>() <= limit;
        let want = checked.then(|| T::reference(&spec, &input));
        let widen_all = |out: &[Complex<T>]| out.iter().map(|&z| T::widen(z)).collect::<Vec<_>>();
        let error = |out: &[Complex<T>]| {
            want.as_ref()
                .map(|w| relative_l2_error64(&widen_all(out), w))
        };
        // Bytes one run must move at least: the input read and the output written.
        let real_bytes = opts.precision.storage_bytes();
        let bytes = |len: usize, real: bool| (len * real_bytes * if real { 1 } else { 2 }) as f64;
        let moved = bytes(spec.input_len(), spec.kind() == Kind::RealToComplex)
            + bytes(spec.output_len(), spec.kind() == Kind::ComplexToReal);
        let (ours, cu, copy, err_ours, err_cu) = match &cuda {
            Some(device) => {
                let data = match r2c {
                    true => NdData::Real(&reals),
                    false => NdData::Complex(&complex),
                };
                let c = compare_nd(device, &fft, data, opts.reps)?;
                let (e_ours, e_cu) = match want {
                    Some(_) => (error(&c.ours.0), error(&c.cufft.0)),
                    // Too large to check in f64 here: ours against cuFFT.
                    None => (
                        Some(relative_l2_error64(
                            &widen_all(&c.ours.0),
                            &widen_all(&c.cufft.0),
                        )),
                        None,
                    ),
                };
                (
                    median(&c.ours.1),
                    Some(median(&c.cufft.1)),
                    Some(c.copy_gbps),
                    e_ours,
                    e_cu,
                )
            }
            None => {
                let (seconds, _) = fft.time(opts.reps)?;
                let e = match spec.kind() {
                    _ if !checked => None,
                    Kind::RealToComplex => {
                        let mut out = vec![Complex::<T>::default(); spec.output_len()];
                        fft.process_real_to_complex(&reals, &mut out)?;
                        error(&out)
                    }
                    Kind::ComplexToReal => {
                        let mut out = vec![T::default(); spec.output_len()];
                        fft.process_complex_to_real(&complex, &mut out)?;
                        let out: Vec<Complex<T>> =
                            out.iter().map(|&r| Complex::new(r, T::default())).collect();
                        error(&out)
                    }
                    _ => {
                        let mut out = complex.clone();
                        fft.process(&mut out)?;
                        error(&out)
                    }
                };
                (median(&seconds), None, None, e, None)
            }
        };
        let ms = |t: f64| format!("{:.3} ms", t * 1e3);
        let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
        println!(
            "{:>16} {:>5} {:>4} {:>10} {:>10} {:>7} {:>8.0} {:>8} {:>9} {:>9}",
            shape_name(shape),
            dims,
            kind,
            ms(ours),
            opt(cu.map(ms)),
            opt(cu.map(|c| format!("{:.2}", c / ours))),
            moved / ours / 1e9,
            opt(copy.map(|c| format!("{c:.0}"))),
            opt(err_ours.map(|e| format!("{e:.1e}"))),
            opt(err_cu.map(|e| format!("{e:.1e}"))),
        );
    }
    println!(
        "times: medians of {} runs on device-resident arrays; GB/s: input read + output \
         written over our time; errors: relative L2 against {} (arrays above 2^{} elements: \
         ours against cuFFT, in the 'err ours' column)",
        opts.reps,
        match opts.precision {
            Precision::F64 => "double-double",
            _ => "f64",
        },
        match opts.precision {
            Precision::F64 => 21,
            _ => 23,
        }
    );
    Ok(())
}
