//! `tierfft bench --shapes .. --gpus N`: complex N-D transforms spread over N GPUs (NCCL),
//! or N CPU ranks with `--backend cpu`, timed whole, as their all-to-all alone and as their
//! local transforms alone, beside the same transform on one device, and checked (against
//! the f64 reference where the array is small, else against the one-device result).

use tierfft::backend::median;
use tierfft::debug::reference::{NdInput, nd_f64, random, relative_l2_error};
use tierfft::distributed::{DistFft, DistSpec, Spectrum};
use tierfft::{Complex32, Device, NdSpec};

use super::CommandResult;

/// Arrays up to this many elements are checked against the f64 reference.
const REFERENCE_ELEMENTS: usize = 1 << 22;

/// What to time.
pub struct DistOptions<'a> {
    /// Global shapes, outermost axis first (two or more axes).
    pub shapes: &'a [Vec<usize>],
    /// Ranks: GPUs 0..ranks, or CPU ranks.
    pub ranks: usize,
    /// CPU ranks exchanging through memory instead of GPUs and NCCL.
    pub cpu: bool,
    /// Leave the spectrum in the natural layout (a second all-to-all).
    pub natural: bool,
    /// Pencils over this grid for 3-D shapes.
    pub grid: Option<[usize; 2]>,
    /// Timed runs per measurement.
    pub reps: usize,
}

/// Relative L2 distance of `a` from `b`.
fn relative_difference(a: &[Complex32], b: &[Complex32]) -> f64 {
    let (mut num, mut den) = (0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        num += f64::from((x - y).norm_sqr());
        den += f64::from(y.norm_sqr());
    }
    (num / den.max(f64::MIN_POSITIVE)).sqrt()
}

/// `tierfft bench --shapes .. --gpus N`.
pub fn run(opts: &DistOptions) -> CommandResult<()> {
    let (devices, gpus) = match opts.cpu {
        true => (vec![Device::cpu()], Vec::new()),
        false => crate::shared::open_gpus(opts.ranks)?,
    };
    let one = &devices[0];
    println!(
        "devices: {} × {} ({})",
        opts.ranks,
        one.name(),
        if opts.cpu {
            "CPU ranks, in-memory exchange"
        } else {
            "NCCL"
        }
    );
    println!(
        "complex forward transforms, {}; median of {} runs; host clock from a \
         common start until every device is done (one device: {})",
        match (opts.grid, opts.natural) {
            (Some([p0, p1]), _) => format!("3-D shapes as pencils over {p0} × {p1} ranks"),
            (None, true) => "slabs, spectrum natural (two all-to-alls)".into(),
            (None, false) => "slabs, spectrum transposed (one all-to-all)".into(),
        },
        opts.reps,
        if opts.cpu {
            "host clock"
        } else {
            "CUDA events"
        }
    );
    println!(
        "{:>16} {:>5} {:>10} {:>10} {:>10} {:>8} {:>9} {:>10} {:>8} {:>9} {:>9}",
        "shape",
        "ranks",
        "total ms",
        "a2a ms",
        "local ms",
        "(a+l)/t",
        "a2a GB/s",
        "1 dev ms",
        "scaling",
        "error",
        "vs"
    );
    for (k, shape) in opts.shapes.iter().enumerate() {
        let name = shape
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("×");
        let mut spec = DistSpec::new(shape);
        if opts.natural {
            spec = spec.spectrum(Spectrum::Natural);
        }
        if let (Some([p0, p1]), 3) = (opts.grid, shape.len()) {
            spec = spec.pencils(p0, p1);
        }
        let fft = match opts.cpu {
            true => DistFft::on_cpu(&spec, opts.ranks)?,
            false => DistFft::on_cuda(&spec, &gpus)?,
        };
        let elements: usize = shape.iter().product();
        // One run on random data, checked.
        let x = random(elements, 0x9e37_79b9_7f4a_7c15 ^ k as u64);
        let mut inputs = fft.scatter(&x)?;
        let (_, mut outputs) = fft.zeros::<Complex32, Complex32>()?;
        fft.process(&mut inputs, &mut outputs)?;
        let got = fft.gather(&outputs)?;
        drop((inputs, outputs));
        let nd = NdSpec::new(shape);
        let one_fft = one.plan_nd(&nd);
        let (error, against) = if elements <= REFERENCE_ELEMENTS {
            let want = nd_f64(&nd, &NdInput::Complex(&x));
            (relative_l2_error(&got, &want), "f64")
        } else {
            match &one_fft {
                Ok(f) => {
                    let mut want = x.clone();
                    f.process(&mut want)?;
                    (relative_difference(&got, &want), "1 dev")
                }
                Err(_) => (f64::NAN, "-"),
            }
        };
        drop((x, got));
        let times = fft.time(opts.reps)?;
        let (total, a2a, local) = times.medians();
        let bytes = fft
            .ranks()
            .iter()
            .map(|r| r.bytes_sent())
            .max()
            .unwrap_or(0);
        let single = match &one_fft {
            Ok(f) => f.time(opts.reps).map(|(s, _)| median(&s)).ok(),
            Err(_) => None,
        };
        let fmt_ms = |s: Option<f64>| s.map_or("-".into(), |s| format!("{:.3}", 1e3 * s));
        println!(
            "{:>16} {:>5} {:>10.3} {:>10.3} {:>10.3} {:>8.2} {:>9.1} {:>10} {:>8} {:>9.2e} {:>9}",
            name,
            opts.ranks,
            1e3 * total,
            1e3 * a2a,
            1e3 * local,
            (a2a + local) / total,
            bytes as f64 / a2a / 1e9,
            fmt_ms(single),
            single.map_or("-".into(), |s| format!(
                "{:.2}",
                s / (opts.ranks as f64 * total)
            )),
            error,
            against
        );
    }
    println!();
    println!(
        "a2a: the all-to-alls alone, without their packing copies (NCCL grouped send/recv on GPUs, same buffers and counts); local: \
         the local transforms alone; (a+l)/t: their sum over the \
         whole transform (1 = no cost beyond them); a2a GB/s: bytes each rank sends its \
         peers / a2a time; scaling: one device's time / (ranks × total)."
    );
    Ok(())
}
