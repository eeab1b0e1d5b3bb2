//! `tierfft bench --shapes .. --gpus N`: complex N-D transforms spread over N GPUs (NCCL),
//! or N CPU ranks with `--backend cpu`, timed whole, as their all-to-all alone and as their
//! local transforms alone, beside the same transform on one device, and checked (against
//! the f64 reference where the array is small, else against the one-device result). With
//! `--launcher env` this process is one rank of N that a launcher started (torchrun, mpirun,
//! srun), meeting the others at the rendezvous address; rank 0 prints the table.

use num_complex::Complex64;
use tierfft::backend::median;
use tierfft::debug::reference::{NdInput, nd_f64, random, relative_l2_error};
use tierfft::distributed::{
    Bandwidths, DistFft, DistSpec, DistTimes, Estimate, Launch, Link, RankFft, Rendezvous, Spectrum,
};
use tierfft::{Complex32, Device, NdSpec};

use super::CommandResult;
use crate::cufft_mgpu::MultiGpuPlan;

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
    /// Parts each slab's change of layout is cut into (`None`: the planner's choice).
    pub parts: Option<usize>,
    /// How the GPUs of this process exchange.
    pub link: Link,
    /// Timed runs per measurement.
    pub reps: usize,
    /// This process is one rank of `ranks`, started by a launcher ([`Launch::from_env`]).
    pub launched: bool,
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
    if opts.launched {
        return run_launched(opts);
    }
    let (devices, gpus) = match opts.cpu {
        true => (vec![Device::cpu()], Vec::new()),
        false => crate::shared::open_gpus(opts.ranks)?,
    };
    let one = &devices[0];
    // The planner's bandwidths, for its estimate of one device against the ranks.
    let bandwidths = match gpus.len() {
        2.. => Some(Bandwidths::measure(&gpus)?),
        _ => None,
    };
    for (k, shape) in opts.shapes.iter().enumerate() {
        let spec = dist_spec(shape, opts.natural, opts.grid, opts.parts);
        let fft = match opts.cpu {
            true => DistFft::on_cpu(&spec, opts.ranks)?,
            false => DistFft::on_cuda_with(&spec, &gpus, opts.link)?,
        };
        if k == 0 {
            print_header(opts, one);
        }
        let elements: usize = shape.iter().product();
        // One run on random data, checked.
        let x = random(elements, seed(k));
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
        let times = fft.time(opts.reps)?;
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
        let how = (fft.link(), fft.ranks()[0].parts());
        let ranks = fft.ranks().len();
        let estimate = (one_fft.as_ref().ok())
            .zip(bandwidths)
            .and_then(|(f, b)| Estimate::new(f, fft.ranks(), b));
        drop(fft);
        // cuFFT over the same GPUs, from the same data, once tierfft's arrays are freed.
        let xt = match (gpus.len() >= 2, shape.len()) {
            (true, 2 | 3) => Some(cufft_xt(shape, &gpus[..ranks], &x, &got, opts.reps)),
            _ => None,
        };
        drop((x, got));
        let xt_time = match &xt {
            Some(Ok((t, _))) => Some(*t),
            _ => None,
        };
        let peers = (single, xt_time);
        print_row(opts, shape, how, &times, bytes, peers, (error, against));
        match xt {
            Some(Ok((_, diff))) if diff > 1e-4 => println!(
                "{:>16} cuFFT's multi-GPU result differs from tierfft's by {diff:.2e}",
                ""
            ),
            Some(Err(e)) => println!("{:>16} cuFFT over the GPUs: {e}", ""),
            _ => {}
        }
        if let (Some(e), Some(single)) = (estimate, single) {
            let (picked, time) = match e.spread_is_faster() {
                true => (format!("{} ranks", opts.ranks), times.medians().0),
                false => ("one device".to_string(), single),
            };
            println!(
                "{:>16} {e}; the planner would run on {picked}: {:.3} ms measured",
                "",
                1e3 * time
            );
        }
    }
    print_footer();
    Ok(())
}

/// `--launcher env`: this process is one rank; the ranks meet at the launcher's rendezvous,
/// and every rank checks and times its part while rank 0 prints.
fn run_launched(opts: &DistOptions) -> CommandResult<()> {
    let launch = Launch::from_env()?;
    if launch.ranks != opts.ranks {
        return Err(format!(
            "--gpus {} but the launcher ({}) started {} ranks: give --gpus the launcher's \
             number of processes",
            opts.ranks, launch.launcher, launch.ranks
        )
        .into());
    }
    let device = match opts.cpu {
        true => Device::cpu(),
        false => {
            let gpu = launch.gpu_ordinal(tierfft::backend::cuda::CudaDevice::count()?);
            Device::cuda(gpu).map_err(|e| format!("rank {}: GPU {gpu}: {e}", launch.rank))?
        }
    };
    let mut meet = Rendezvous::join(&launch)?;
    let root = launch.rank == 0;
    if root {
        print_header(opts, &device);
        println!("one process per rank");
    }
    for (k, shape) in opts.shapes.iter().enumerate() {
        let spec = dist_spec(shape, opts.natural, opts.grid, opts.parts);
        let exchange = meet.exchange(&device)?;
        let fft = RankFft::new(&spec, device.clone(), exchange)?;
        let (squares, against) = launched_error((&fft, &spec), &mut meet, shape, k)?;
        let error = (squares[0] / squares[1].max(f64::MIN_POSITIVE)).sqrt();
        let times = fft.time(opts.reps, |ok| meet.end_round(ok))?;
        let times = meet.slowest(&times)?;
        let bytes = meet
            .all_gather(&(fft.bytes_sent() as u64).to_le_bytes())?
            .iter()
            .map(|b| {
                u64::from_le_bytes(b.get(..8).and_then(|b| b.try_into().ok()).unwrap_or([0; 8]))
            })
            .max()
            .unwrap_or(0);
        // The one-device run on rank 0's device, while the others wait for the next shape.
        if root {
            let single = device
                .plan_nd(&NdSpec::new(shape))
                .and_then(|f| f.time(opts.reps))
                .map(|(s, _)| median(&s))
                .ok();
            print_row(
                opts,
                shape,
                (fft.link(), fft.parts()),
                &times,
                bytes as usize,
                (single, None),
                (error, against),
            );
        }
        drop(fft);
        meet.barrier()?;
    }
    if root {
        print_footer();
    }
    Ok(())
}

/// Every rank's squared error and squared norm, summed over the ranks: a run of `fft` (of
/// `spec`) on
/// random data against the f64 reference where the array is small enough for each rank to
/// compute it, else a forward and normalised inverse round trip of the rank's own random
/// part.
fn launched_error(
    (fft, spec): (&RankFft, &DistSpec),
    meet: &mut Rendezvous,
    shape: &[usize],
    k: usize,
) -> CommandResult<([f64; 2], &'static str)> {
    let device = fft.device();
    let elements: usize = shape.iter().product();
    let nan = Complex32::new(f32::NAN, f32::NAN);
    let (got, want, against) = if elements <= REFERENCE_ELEMENTS {
        let x = random(elements, seed(k));
        let mut input = device.upload(&fft.input_box().cut(&x, shape)?)?;
        let mut output = device.upload(&vec![nan; fft.output_len()])?;
        fft.process(&mut input, &mut output)?;
        let want = nd_f64(&NdSpec::new(shape), &NdInput::Complex(&x));
        let want = fft.output_box().cut(&want, shape)?;
        (output.download()?, want, "f64")
    } else {
        let spec = spec.clone().inverse().normalized();
        let back = RankFft::new(&spec, device.clone(), meet.exchange(device)?)?;
        let x = random(fft.input_len(), seed(k) ^ (fft.rank() as u64 + 1));
        let mut input = device.upload(&x)?;
        let mut spectrum = device.upload(&vec![nan; fft.output_len()])?;
        let mut output = device.upload(&vec![nan; back.output_len()])?;
        fft.process(&mut input, &mut spectrum)?;
        back.process(&mut spectrum, &mut output)?;
        let want = x
            .iter()
            .map(|z| Complex64::new(z.re.into(), z.im.into()))
            .collect();
        (output.download()?, want, "round trip")
    };
    let mut squares = [0.0f64; 2];
    for (g, w) in got.iter().zip(&want) {
        let g = Complex64::new(g.re.into(), g.im.into());
        squares[0] += (g - w).norm_sqr();
        squares[1] += w.norm_sqr();
    }
    let bytes: Vec<u8> = squares.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut total = [0.0f64; 2];
    for b in meet.all_gather(&bytes)? {
        for (t, v) in total.iter_mut().zip(b.chunks_exact(8)) {
            *t += f64::from_le_bytes(v.try_into().unwrap_or([0; 8]));
        }
    }
    Ok((total, against))
}

/// The seed of shape `k`'s random data.
fn seed(k: usize) -> u64 {
    0x9e37_79b9_7f4a_7c15 ^ k as u64
}

/// The complex forward transform of `shape` spread over ranks: the spectrum cut like the
/// input where `natural`, 3-D shapes as pencils over `grid`.
pub fn dist_spec(
    shape: &[usize],
    natural: bool,
    grid: Option<[usize; 2]>,
    parts: Option<usize>,
) -> DistSpec {
    let mut spec = DistSpec::new(shape);
    if let (Some(parts), None) = (parts, grid) {
        spec = spec.parts(parts);
    }
    if natural {
        spec = spec.spectrum(Spectrum::Natural);
    }
    if let (Some([p0, p1]), 3) = (grid, shape.len()) {
        spec = spec.pencils(p0, p1);
    }
    spec
}

fn print_header(opts: &DistOptions, one: &Device) {
    println!("devices: {} × {}", opts.ranks, one.name());
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
        "{:>16} {:>5} {:>12} {:>5} {:>10} {:>10} {:>10} {:>8} {:>9} {:>10} {:>8} {:>8} {:>9} {:>7} {:>9} {:>10}",
        "shape",
        "ranks",
        "link",
        "parts",
        "total ms",
        "a2a ms",
        "local ms",
        "(a+l)/t",
        "a2a GB/s",
        "1 dev ms",
        "speedup",
        "scaling",
        "Xt ms",
        "Xt/ours",
        "error",
        "vs"
    );
}

/// cuFFT's forward transform of `x` (`shape`) over `gpus`: its median time over `reps`
/// runs, and its result's relative distance from `ours`.
fn cufft_xt(
    shape: &[usize],
    gpus: &[std::sync::Arc<tierfft::backend::cuda::CudaDevice>],
    x: &[Complex32],
    ours: &[Complex32],
    reps: usize,
) -> tierfft::Result<(f64, f64)> {
    let mut plan = MultiGpuPlan::new(shape, gpus.len())?;
    plan.upload(x)?;
    let sync = || -> tierfft::Result<()> {
        for g in gpus {
            g.stream()
                .context()
                .synchronize()
                .map_err(|e| tierfft::Error::Gpu {
                    what: format!("waiting for cuFFT: {e:?}"),
                    source: None,
                })?;
        }
        Ok(())
    };
    plan.forward(&sync)?;
    let diff = relative_difference(&plan.download()?, ours);
    let seconds = plan.time(reps, &sync)?;
    Ok((median(&seconds), diff))
}

/// One shape's line: how the ranks exchange (link, parts), the group's `times`, the most
/// bytes a rank sent, one device's and cuFFT's multi-GPU median times, and the error
/// against what.
fn print_row(
    opts: &DistOptions,
    shape: &[usize],
    (link, parts): (&str, usize),
    times: &DistTimes,
    bytes: usize,
    (single, xt): (Option<f64>, Option<f64>),
    (error, against): (f64, &str),
) {
    let name = shape
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("×");
    let (total, a2a, local) = times.medians();
    let fmt_ms = |s: Option<f64>| s.map_or("-".into(), |s| format!("{:.3}", 1e3 * s));
    println!(
        "{:>16} {:>5} {:>12} {:>5} {:>10.3} {:>10.3} {:>10.3} {:>8.2} {:>9.1} {:>10} {:>8} {:>8} {:>9} {:>7} {:>9.2e} {:>10}",
        name,
        opts.ranks,
        link,
        parts,
        1e3 * total,
        1e3 * a2a,
        1e3 * local,
        (a2a + local) / total,
        bytes as f64 / a2a / 1e9,
        fmt_ms(single),
        single.map_or("-".into(), |s| format!("{:.2}", s / total)),
        single.map_or("-".into(), |s| format!(
            "{:.2}",
            s / (opts.ranks as f64 * total)
        )),
        fmt_ms(xt),
        xt.map_or("-".into(), |x| format!("{:.2}", x / total)),
        error,
        against
    );
}

fn print_footer() {
    println!();
    println!(
        "link: what carries the all-to-alls (NCCL, peer copies, host memory, sockets); \
         parts: each slab's change of layout cut into that many parts, the all-to-all of \
         one beside the transform of the next; a2a: the all-to-alls alone, without their \
         packing copies (same buffers and counts); local: the local transforms alone; \
         (a+l)/t: their sum over the whole transform (1 = no cost beyond them, above 1 = \
         the all-to-alls ran beside the transforms); a2a GB/s: bytes each rank sends its \
         peers / a2a time; speedup: one device's time / total; scaling: speedup / ranks; \
         Xt ms: cuFFT's own transform over the same GPUs (cufftXtExecDescriptorC2C, host \
         clock until every GPU is done), Xt/ours: its time / total; \
         vs: what the error \
         is against (f64: the reference; 1 dev: one device's result; round trip: the input \
         after a forward and normalised inverse transform)."
    );
}
