//! `tierfft bench --shapes`: N-D and real transforms (C2C, R2C, C2R over the trailing axes of
//! row-major arrays) timed on any device, and with `--compare cufft` side by side with
//! cuFFT's `cufftPlanMany` on the same GPU, input and run.

use rand::RngExt;
use tierfft::backend::cuda::compare_nd::{NdData, compare_nd};
use tierfft::backend::median;
use tierfft::nd::FuseReal;
use tierfft::reference::{NdInput, nd_f64, relative_l2_error, widen};
use tierfft::{Complex32, Device, Direction, Kind, NdSpec};

use crate::CliResult;

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
}

/// Parses `1024x1024` (or `128x128x128`, `2^20`) into a shape.
pub fn parse_shape(s: &str) -> Result<Vec<usize>, String> {
    s.split(['x', 'X', '×'])
        .map(crate::parse_count)
        .collect::<Result<Vec<_>, _>>()
        .and_then(|v| {
            if v.contains(&0) {
                Err(format!("'{s}' has an extent of 0"))
            } else {
                Ok(v)
            }
        })
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
fn real_spectrum(
    device: &Device,
    c2r: &NdSpec,
    rng: &mut impl rand::Rng,
) -> CliResult<Vec<Complex32>> {
    let r2c = NdSpec {
        direction: Direction::Forward,
        normalize: false,
        ..c2r.clone()
    };
    let reals: Vec<f32> = (0..r2c.input_len())
        .map(|_| rng.random_range(-1.0..1.0))
        .collect();
    let mut out = vec![Complex32::new(0.0, 0.0); r2c.output_len()];
    device
        .plan_nd(&r2c)?
        .process_real_to_complex(&reals, &mut out)?;
    Ok(out)
}

/// `tierfft bench --shapes ...`.
pub fn run(device: &Device, opts: &NdOptions) -> CliResult<()> {
    let cuda = match (opts.cufft, device.cuda_device()) {
        (true, Some(d)) => Some(d),
        (true, None) => return Err("--compare cufft needs --backend cuda".into()),
        (false, _) => None,
    };
    println!("device: {}", device.name());
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
        let mut spec = NdSpec::new(shape).axes(&axes).direction(opts.direction);
        if opts.real {
            spec = spec.real();
        }
        spec.validate()?;
        let fft = device.plan_nd_with(&spec, opts.fuse, &opts.plan)?;
        let kind = spec.kind().abbreviation();
        let (reals, complex): (Vec<f32>, Vec<Complex32>) = match spec.kind() {
            Kind::RealToComplex => {
                let reals = (0..spec.input_len()).map(|_| rng.random_range(-1.0..1.0));
                (reals.collect(), Vec::new())
            }
            Kind::ComplexToReal => (Vec::new(), real_spectrum(device, &spec, &mut rng)?),
            Kind::ComplexToComplex => {
                let values = (0..spec.input_len()).map(|_| {
                    Complex32::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0))
                });
                (Vec::new(), values.collect())
            }
            other => return Err(format!("{other:?} transforms are not benchmarked").into()),
        };
        let input = if spec.kind() == Kind::RealToComplex {
            NdInput::Real(&reals)
        } else {
            NdInput::Complex(&complex)
        };
        let checked = shape.iter().product::<usize>() <= CHECKED_ELEMENTS;
        let want = checked.then(|| nd_f64(&spec, &input));
        let error = |out: &[Complex32]| want.as_ref().map(|w| relative_l2_error(out, w));
        // Bytes one run must move at least: the input read and the output written.
        let bytes = |len: usize, real: bool| (len * if real { 4 } else { 8 }) as f64;
        let moved = bytes(spec.input_len(), spec.kind() == Kind::RealToComplex)
            + bytes(spec.output_len(), spec.kind() == Kind::ComplexToReal);
        let (ours, cu, copy, err_ours, err_cu) = match &cuda {
            Some(dev) => {
                let data = match input {
                    NdInput::Real(x) => NdData::Real(x),
                    NdInput::Complex(x) => NdData::Complex(x),
                    _ => return Err("cuFFT is compared on real or complex input only".into()),
                };
                let c = compare_nd(dev, &fft, data, opts.reps)?;
                let (e_ours, e_cu) = match want {
                    Some(_) => (error(&c.ours.0), error(&c.cufft.0)),
                    // Too large to check in f64 here: ours against cuFFT.
                    None => (Some(relative_l2_error(&c.ours.0, &widen(&c.cufft.0))), None),
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
                let e = match input {
                    NdInput::Real(x) if checked => {
                        let mut out = vec![Complex32::new(0.0, 0.0); spec.output_len()];
                        fft.process_real_to_complex(x, &mut out)?;
                        error(&out)
                    }
                    NdInput::Complex(x) if checked => {
                        let out = match spec.kind() {
                            Kind::ComplexToReal => {
                                let mut out = vec![0.0; spec.output_len()];
                                fft.process_complex_to_real(x, &mut out)?;
                                out.iter().map(|&r| Complex32::new(r, 0.0)).collect()
                            }
                            _ => {
                                let mut out = x.to_vec();
                                fft.process(&mut out)?;
                                out
                            }
                        };
                        error(&out)
                    }
                    _ => None,
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
         written over our time; errors: relative L2 against f64 (arrays above 2^23 elements: \
         ours against cuFFT, in the 'err ours' column)",
        opts.reps
    );
    Ok(())
}
