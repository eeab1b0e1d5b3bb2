//! Distributed transforms (slab decomposition over ranks) against the f64 N-D reference on
//! fresh random data, outputs poisoned beforehand: 1 to 5 ranks on the CPU exchanging
//! through memory (`DistFft::on_cpu`, the same plan and exchange interface as NCCL), 2-D,
//! 3-D and 4-D shapes with extents that do not divide by the ranks, C2C, R2C and C2R, both
//! spectrum layouts, round trips; on CUDA with NCCL when `TIERFFT_TEST_GPUS` names two or
//! more GPUs.

use num_complex::Complex32;
use rand::RngExt;
use rand::rngs::StdRng;
use std::time::Duration;
use tierfft::debug::reference::{NdInput, nd_f64, relative_l2_error};

use tierfft::distributed::{
    DistFft, DistSpec, Exchange, Launch, LocalExchange, Rendezvous, Spectrum, WholeFft,
};
use tierfft::{Element, NdSpec};

use crate::common::*;

/// Output slabs poisoned with NaNs on each rank's device.
fn poisoned_outputs<T: Element>(fft: &DistFft, nan: T) -> Vec<tierfft::DeviceBuffer<T>> {
    fft.ranks()
        .iter()
        .map(|r| {
            r.device()
                .upload(&vec![nan; r.output_len()])
                .expect("upload")
        })
        .collect()
}

/// Runs `fft` on a fresh random global array and returns its relative error against f64.
fn check(fft: &DistFft, rng: &mut StdRng) -> f64 {
    let spec = fft.spec();
    let nd = spec.one_device();
    let nan = Complex32::new(f32::NAN, f32::NAN);
    let what = format!("{spec:?} over {} ranks", fft.ranks().len());
    let (got, want) = match (spec.real, nd.kind()) {
        (false, _) => {
            let x = random(rng, nd.input_len());
            let mut inputs = fft.scatter(&x).expect("scatter");
            let mut outputs = poisoned_outputs(fft, nan);
            fft.process(&mut inputs, &mut outputs)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            (
                fft.gather(&outputs).expect("gather"),
                nd_f64(&nd, &NdInput::Complex(&x)),
            )
        }
        (true, tierfft::nd::Kind::RealToComplex) => {
            let x: Vec<f32> = (0..nd.input_len())
                .map(|_| rng.random_range(-1.0..1.0))
                .collect();
            let mut inputs = fft.scatter(&x).expect("scatter");
            let mut outputs = poisoned_outputs(fft, nan);
            fft.process_real_to_complex(&mut inputs, &mut outputs)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            (
                fft.gather(&outputs).expect("gather"),
                nd_f64(&nd, &NdInput::Real(&x)),
            )
        }
        (true, _) => {
            let x = random(rng, nd.input_len());
            let mut inputs = fft.scatter(&x).expect("scatter");
            let mut outputs = poisoned_outputs(fft, f32::NAN);
            fft.process_complex_to_real(&mut inputs, &mut outputs)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let reals = fft.gather(&outputs).expect("gather");
            let got = reals.iter().map(|&v| Complex32::new(v, 0.0)).collect();
            (got, nd_f64(&nd, &NdInput::Complex(&x)))
        }
    };
    let err = relative_l2_error(&got, &want);
    assert!(err < 1e-5, "{what}: relative L2 error {err:e}");
    err
}

fn specs(shape: &[usize]) -> Vec<DistSpec> {
    let mut out = Vec::new();
    for spectrum in [Spectrum::Transposed, Spectrum::Natural] {
        let c2c = DistSpec::new(shape).spectrum(spectrum);
        let r2c = DistSpec::new(shape).real().spectrum(spectrum);
        out.extend([
            c2c.clone(),
            c2c.inverse().normalized(),
            r2c.clone(),
            r2c.inverse(),
        ]);
    }
    out
}

#[test]
fn cpu_ranks_match_the_reference() {
    let mut rng = rng();
    for (shape, ranks) in [
        (&[16, 16][..], 1),
        (&[16, 16][..], 2),
        (&[12, 10][..], 3),
        (&[9, 14][..], 4),
        (&[8, 6, 10][..], 2),
        (&[7, 9, 5][..], 3),
        (&[6, 5, 4, 3][..], 5),
        (&[64, 128][..], 4),
    ] {
        for spec in specs(shape) {
            let fft = DistFft::on_cpu(&spec, ranks).unwrap_or_else(|e| panic!("{spec:?}: {e}"));
            // Twice: the second run reuses the scratch arrays the first made.
            check(&fft, &mut rng);
            check(&fft, &mut rng);
        }
    }
}

/// An exchange through host memory that moves contiguous messages only, as NCCL and sockets
/// do: plans pack what they send.
struct Packed(LocalExchange);

impl Exchange for Packed {
    fn rank(&self) -> usize {
        self.0.rank()
    }

    fn ranks(&self) -> usize {
        self.0.ranks()
    }

    fn all_to_all(
        &mut self,
        send: &tierfft::DeviceBuffer,
        sends: &[std::ops::Range<usize>],
        recv: &mut tierfft::DeviceBuffer,
        recvs: &[std::ops::Range<usize>],
    ) -> tierfft::Result<()> {
        self.0.all_to_all(send, sends, recv, recvs)
    }

    fn abort(&mut self) {
        self.0.abort();
    }
}

/// Slabs whose change of layout goes in parts (each part's all-to-all beside the next
/// part's transform where the exchange allows; here in turn through host memory), its
/// messages read and written in place (`LocalExchange` moves blocks) or packed: parts of
/// uneven sizes, more parts than rows, parts aligned to 32 rows by an odd complex width.
#[test]
fn cpu_ranks_in_parts_match_the_reference() {
    let mut rng = rng();
    for (shape, ranks, parts) in [
        (&[40, 32][..], 2, 3),
        (&[23, 64][..], 3, 2),
        (&[9, 32][..], 2, 7),
        (&[24, 8, 4][..], 2, 4),
        (&[130, 64][..], 2, 3),
    ] {
        for spec in specs(shape) {
            let spec = spec.parts(parts);
            let fft = DistFft::on_cpu(&spec, ranks).unwrap_or_else(|e| panic!("{spec:?}: {e}"));
            let plan = fft.ranks()[0].to_string();
            assert!(plan.contains(&format!("in {parts} parts")), "{plan}");
            assert!(plan.contains("read and written in place"), "{plan}");
            check(&fft, &mut rng);
            check(&fft, &mut rng);
            let packed = LocalExchange::group(ranks)
                .into_iter()
                .map(|e| Box::new(Packed(e)) as Box<dyn Exchange>)
                .collect();
            let fft = DistFft::new(&spec, vec![tierfft::Device::cpu(); ranks], packed)
                .unwrap_or_else(|e| panic!("{spec:?}: {e}"));
            let plan = fft.ranks()[0].to_string();
            assert!(!plan.contains("read and written in place"), "{plan}");
            check(&fft, &mut rng);
        }
    }
    let refused = DistFft::on_cpu(&DistSpec::new(&[8, 8]).parts(0), 2);
    assert!(
        refused
            .err()
            .expect("parts 0")
            .to_string()
            .contains("parts 0")
    );
    let pencils = DistFft::on_cpu(&DistSpec::new(&[4, 4, 4]).pencils(2, 1).parts(2), 2);
    assert!(
        pencils
            .err()
            .expect("pencils in parts")
            .to_string()
            .contains("parts")
    );
}

/// Pencils over grids of 1 × 3, 2 × 2, 3 × 2 and 2 × 1 CPU ranks, extents that do not
/// divide, C2C and real, both directions.
#[test]
fn cpu_pencils_match_the_reference() {
    let mut rng = rng();
    for (shape, [p0, p1]) in [
        ([8, 6, 10], [1, 3]),
        ([8, 6, 10], [2, 2]),
        ([7, 9, 11], [3, 2]),
        ([6, 4, 5], [2, 1]),
    ] {
        let pencils = |s: DistSpec| s.pencils(p0, p1);
        for spec in [
            pencils(DistSpec::new(&shape)),
            pencils(DistSpec::new(&shape).inverse().normalized()),
            pencils(DistSpec::new(&shape).real()),
            pencils(DistSpec::new(&shape).real().inverse()),
        ] {
            let fft = DistFft::on_cpu(&spec, p0 * p1).unwrap_or_else(|e| panic!("{spec:?}: {e}"));
            check(&fft, &mut rng);
            check(&fft, &mut rng);
        }
    }
    // A grid that does not match the ranks, a 2-D array, a natural spectrum: errors.
    let cube = DistSpec::new(&[8, 8, 8]);
    assert!(DistFft::on_cpu(&cube.clone().pencils(2, 2), 3).is_err());
    assert!(DistFft::on_cpu(&DistSpec::new(&[8, 8]).pencils(2, 1), 2).is_err());
    assert!(DistFft::on_cpu(&cube.clone().pencils(2, 1).spectrum(Spectrum::Natural), 2).is_err());
    // Axis 2 of the complex side (3 bins of 4 reals) is too short for a grid row of 4.
    assert!(DistFft::on_cpu(&DistSpec::new(&[8, 8, 4]).real().pencils(1, 4), 4).is_err());
}

/// Forward with a transposed spectrum, then the normalised inverse from it: the input back.
#[test]
fn round_trip_through_the_transposed_spectrum() {
    let mut rng = rng();
    let shape = [10, 12, 6];
    let forward = DistFft::on_cpu(&DistSpec::new(&shape), 3).expect("plan");
    let inverse = DistFft::on_cpu(&DistSpec::new(&shape).inverse().normalized(), 3).expect("plan");
    let x = random(&mut rng, shape.iter().product());
    let mut data = forward.scatter(&x).expect("scatter");
    let (_, mut spectrum) = forward.zeros::<Complex32, Complex32>().expect("zeros");
    forward.process(&mut data, &mut spectrum).expect("forward");
    let (_, mut back) = inverse.zeros::<Complex32, Complex32>().expect("zeros");
    inverse.process(&mut spectrum, &mut back).expect("inverse");
    let got = inverse.gather(&back).expect("gather");
    let err = relative_l2_error(&got, &tierfft::debug::reference::widen(&x));
    assert!(err < 1e-6, "round trip error {err:e}");
}

#[test]
fn refuses_what_it_cannot_cut() {
    let too_many = DistFft::on_cpu(&DistSpec::new(&[4, 64]), 5);
    assert!(
        matches!(&too_many, Err(e) if e.to_string().contains("at least one index per rank")),
        "{:?}",
        too_many.err()
    );
    assert!(DistFft::on_cpu(&DistSpec::new(&[64]), 2).is_err());
    // Axis 1 of a real 2-D transform is the halved one: 6 reals make 4 bins, too few for 5.
    assert!(DistFft::on_cpu(&DistSpec::new(&[8, 6]).real(), 5).is_err());
    // Wrong slab lengths are errors, not panics.
    let fft = DistFft::on_cpu(&DistSpec::new(&[8, 8]), 2).expect("plan");
    let (mut inputs, _) = fft.zeros::<Complex32, Complex32>().expect("zeros");
    let mut short: Vec<_> = (0..2)
        .map(|_| tierfft::Device::cpu().zeros(3).expect("zeros"))
        .collect();
    let err = fft
        .process(&mut inputs, &mut short)
        .expect_err("short outputs");
    assert!(err.to_string().contains("parts of"), "{err}");
}

/// Rank 0 of `fft` (two ranks) is given a short output: it fails before its first
/// all-to-all, and rank 1, waiting there, gets an error too instead of waiting forever.
fn short_output_fails_every_rank(fft: &DistFft) {
    let (mut inputs, mut outputs) = fft.zeros::<Complex32, Complex32>().expect("zeros");
    let (done, results) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        for (r, (i, o)) in inputs.iter_mut().zip(outputs.iter_mut()).enumerate() {
            let (rank, done) = (&fft.ranks()[r], done.clone());
            s.spawn(move || {
                let mut short = tierfft::Device::cpu().zeros(3).expect("zeros");
                let out = if r == 0 { &mut short } else { o };
                done.send(rank.process(i, out).is_err()).expect("send");
            });
        }
        for _ in 0..2 {
            let failed = results
                .recv_timeout(Duration::from_secs(60))
                .expect("a rank hangs after another failed");
            assert!(failed, "both ranks fail");
        }
    });
}

/// A rank that fails while the others wait in the exchange makes them fail too, not hang;
/// exchanges in any order make the same transform; a group that is not one is refused.
#[test]
fn one_failing_rank_does_not_hang_the_others() {
    let spec = DistSpec::new(&[8, 8]);
    let fft = DistFft::on_cpu(&spec, 2).expect("plan");
    short_output_fails_every_rank(&fft);
    // Reversed exchanges: the same result, ranks sorted by their exchange.
    let mut rng = rng();
    let mut reversed: Vec<Box<dyn Exchange>> = LocalExchange::group(3)
        .into_iter()
        .map(|e| Box::new(e) as Box<dyn Exchange>)
        .collect();
    reversed.reverse();
    let spec = DistSpec::new(&[9, 12]);
    let fft = DistFft::new(&spec, vec![tierfft::Device::cpu(); 3], reversed).expect("plan");
    check(&fft, &mut rng);
    // Two of a group of three, and a rank twice.
    let mut two = LocalExchange::group(3);
    two.truncate(2);
    let two: Vec<Box<dyn Exchange>> = two.into_iter().map(|e| Box::new(e) as _).collect();
    assert!(DistFft::new(&spec, vec![tierfft::Device::cpu(); 2], two).is_err());
    let mut twice: Vec<Box<dyn Exchange>> = Vec::new();
    for _ in 0..2 {
        let first = LocalExchange::group(2).into_iter().next().expect("rank 0");
        twice.push(Box::new(first));
    }
    assert!(DistFft::new(&spec, vec![tierfft::Device::cpu(); 2], twice).is_err());
}

/// A free TCP port on the loopback interface, as `127.0.0.1:port`.
fn free_loopback() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").to_string()
}

/// The exchanges of `ranks` ranks that meet at a rendezvous on loopback and connect over TCP
/// ([`Rendezvous::exchange`] on the CPU: `SocketExchange`), each made on a thread of its
/// own as each would be in a process of its own.
fn socket_group(ranks: usize) -> Vec<Box<dyn Exchange>> {
    let at = free_loopback();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..ranks)
            .map(|r| {
                let at = &at;
                s.spawn(move || {
                    let launch = Launch::new(r, ranks, 0, at).expect("launch");
                    let mut meet =
                        Rendezvous::join_within(&launch, Duration::from_secs(60)).expect("join");
                    assert_eq!(
                        meet.all_gather(&[r as u8; 3]).expect("all-gather"),
                        (0..ranks).map(|q| vec![q as u8; 3]).collect::<Vec<_>>()
                    );
                    meet.exchange(&tierfft::Device::cpu()).expect("exchange")
                })
            })
            .collect();
        (handles.into_iter())
            .map(|h| h.join().expect("a rank's thread"))
            .collect()
    })
}

/// Ranks that meet at a rendezvous and exchange over TCP, as ranks in processes of their own
/// do (here threads on loopback): the same plans as through memory against the f64
/// reference, a rank that fails makes the others fail instead of waiting, and timing runs.
#[test]
fn socket_ranks_match_the_reference() {
    let mut rng = rng();
    for (shape, ranks) in [(&[12, 10][..], 3), (&[8, 6, 10][..], 2), (&[16, 16][..], 1)] {
        for spec in specs(shape) {
            let fft = DistFft::new(
                &spec,
                vec![tierfft::Device::cpu(); ranks],
                socket_group(ranks),
            )
            .unwrap_or_else(|e| panic!("{spec:?}: {e}"));
            check(&fft, &mut rng);
            check(&fft, &mut rng);
        }
    }
    let spec = DistSpec::new(&[16, 12]);
    let fft = DistFft::new(&spec, vec![tierfft::Device::cpu(); 2], socket_group(2)).expect("plan");
    let t = fft.time(2).expect("time");
    assert_eq!(
        (t.total.len(), t.exchange.len(), t.transforms.len()),
        (2, 2, 2)
    );
    short_output_fails_every_rank(&fft);
    let (mut inputs, mut outputs) = fft.zeros::<Complex32, Complex32>().expect("zeros");
    // Every later all-to-all of the group fails at once.
    assert!(fft.process(&mut inputs, &mut outputs).is_err());
}

/// A rendezvous refuses ranks that disagree on their number, and gives up on ranks that do
/// not come, naming them.
#[test]
fn rendezvous_mistakes_are_errors() {
    let at = free_loopback();
    let short = Duration::from_secs(2);
    let alone = Launch::new(0, 3, 0, &at).expect("launch");
    let err = Rendezvous::join_within(&alone, short)
        .err()
        .expect("nobody came");
    assert!(err.to_string().contains("ranks 1, 2"), "{err}");
    let at = free_loopback();
    std::thread::scope(|s| {
        let root = s.spawn(|| {
            Rendezvous::join_within(&Launch::new(0, 2, 0, &at).expect("launch"), short)
                .err()
                .expect("a rank of another group")
        });
        let other = Rendezvous::join_within(&Launch::new(1, 3, 0, &at).expect("launch"), short);
        assert!(other.is_err());
        let err = root.join().expect("rank 0");
        assert!(err.to_string().contains("same number of ranks"), "{err}");
    });
}

/// The join's timeout bounds only the join: later waits for a slow rank last as long as it
/// takes.
#[test]
fn rendezvous_waits_for_slow_ranks_after_joining() {
    let at = free_loopback();
    let join = Duration::from_millis(500);
    std::thread::scope(|s| {
        let slow = s.spawn(|| {
            let mut meet =
                Rendezvous::join_within(&Launch::new(1, 2, 0, &at).expect("launch"), join)
                    .expect("join");
            std::thread::sleep(2 * join);
            meet.end_round(true)
        });
        let mut meet = Rendezvous::join_within(&Launch::new(0, 2, 0, &at).expect("launch"), join)
            .expect("join");
        meet.end_round(true).expect("rank 0 waits for rank 1");
        slow.join().expect("rank 1").expect("rank 1's round");
    });
}

/// A connection to the rendezvous port that is not a rank (a port scan, a stray client) is
/// dropped, and the ranks still meet.
#[test]
fn rendezvous_drops_strangers() {
    use std::io::Write;
    let at = free_loopback();
    std::thread::scope(|s| {
        let root = s.spawn(|| {
            Rendezvous::join_within(
                &Launch::new(0, 2, 0, &at).expect("launch"),
                Duration::from_secs(30),
            )
        });
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let mut stranger = loop {
            match std::net::TcpStream::connect(&at) {
                Ok(stream) => break stream,
                Err(e) if std::time::Instant::now() > deadline => panic!("{e}"),
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        };
        stranger
            .write_all(b"GET / HTTP/1.0\r\n\r\n")
            .expect("a stranger's request");
        drop(stranger);
        let mut rank1 = Rendezvous::join_within(
            &Launch::new(1, 2, 0, &at).expect("launch"),
            Duration::from_secs(30),
        )
        .expect("rank 1 joins");
        let mut rank0 = root.join().expect("rank 0").expect("rank 0 joins");
        let other = s.spawn(move || rank1.broadcast(b"ignored"));
        assert_eq!(rank0.broadcast(b"id").expect("broadcast"), b"id");
        assert_eq!(other.join().expect("rank 1").expect("broadcast"), b"id");
    });
}

/// `DistFft::time` for every layout (the all-to-alls alone send from the array each move
/// names) and pencils.
#[test]
fn timing_runs_every_layout() {
    for spec in [
        DistSpec::new(&[16, 12]),
        DistSpec::new(&[16, 12]).spectrum(Spectrum::Natural),
        DistSpec::new(&[8, 6, 10]).pencils(2, 2),
    ] {
        let ranks = spec.grid.map_or(3, |[a, b]| a * b);
        let fft = DistFft::on_cpu(&spec, ranks).expect("plan");
        let t = fft.time(3).unwrap_or_else(|e| panic!("{spec:?}: {e}"));
        assert_eq!(
            (t.total.len(), t.exchange.len(), t.transforms.len()),
            (3, 3, 3)
        );
        assert!(t.total.iter().chain(&t.exchange).all(|&s| s >= 0.0));
    }
}

/// Row copies refuse what does not fit their buffers, overflowing pitches included.
#[test]
fn row_copies_stay_inside_their_buffers() {
    use tierfft::distributed::{Rows, copy_rows};
    let dev = tierfft::Device::cpu();
    let src = dev.upload(&random(&mut rng(), 64)).expect("upload");
    let mut dst = dev.zeros(64).expect("zeros");
    let ok = Rows {
        rows: 4,
        row_len: 8,
        src: 0,
        src_pitch: 16,
        dst: 32,
        dst_pitch: 8,
    };
    copy_rows(&src, &mut dst, &ok).expect("fits");
    let (got, want) = (
        dst.download().expect("download"),
        src.download().expect("download"),
    );
    assert_eq!(got[32 + 8..32 + 16], want[16..24]);
    for bad in [
        Rows { rows: 5, ..ok },
        Rows {
            src_pitch: 1 << 62,
            ..ok
        },
        Rows {
            src_pitch: usize::MAX,
            ..ok
        },
        Rows { dst_pitch: 4, ..ok },
        Rows { dst: 60, ..ok },
    ] {
        assert!(copy_rows(&src, &mut dst, &bad).is_err(), "{bad:?}");
    }
}

/// The GPU steps (local transforms, packing copies) with 2 and 3 ranks sharing the test
/// device, exchanging through host memory: CUDA only (wgpu is refused, and checked to be).
#[test]
fn gpu_ranks_through_host_memory() {
    let dev = gpu();
    let plan = |spec: &DistSpec, ranks: usize| {
        let exchanges = LocalExchange::group(ranks)
            .into_iter()
            .map(|e| Box::new(e) as Box<dyn Exchange>)
            .collect();
        DistFft::new(spec, vec![dev.clone(); ranks], exchanges)
    };
    if dev.kind() != tierfft::DeviceKind::Cuda {
        let err = plan(&DistSpec::new(&[16, 16]), 2)
            .err()
            .expect("wgpu refused");
        assert!(err.to_string().contains("CUDA GPUs"), "{err}");
        eprintln!("{}: refused as expected ({err})", dev.name());
        return;
    }
    let mut rng = rng();
    for (shape, ranks) in [
        (&[256, 256][..], 2),
        (&[100, 90][..], 3),
        (&[64, 48, 40][..], 2),
    ] {
        for spec in specs(shape) {
            let fft = plan(&spec, ranks).unwrap_or_else(|e| panic!("{spec:?}: {e}"));
            check(&fft, &mut rng);
            check(&fft, &mut rng);
        }
    }
}

/// Runs `whole` on a fresh random global array, its output poisoned, and returns its
/// relative error against f64.
fn check_whole(whole: &WholeFft, rng: &mut StdRng) -> f64 {
    let spec = whole.spec().one_device();
    let what = format!("{:?} {whole}", whole.spec());
    let nan = Complex32::new(f32::NAN, f32::NAN);
    let (got, want) = match spec.kind() {
        tierfft::nd::Kind::ComplexToComplex => {
            let x = random(rng, spec.input_len());
            let mut y = x.clone();
            whole
                .process(&mut y)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            (y, nd_f64(&spec, &NdInput::Complex(&x)))
        }
        tierfft::nd::Kind::RealToComplex => {
            let x: Vec<f32> = (0..spec.input_len())
                .map(|_| rng.random_range(-1.0..1.0))
                .collect();
            let mut y = vec![nan; spec.output_len()];
            whole
                .process_real_to_complex(&x, &mut y)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            (y, nd_f64(&spec, &NdInput::Real(&x)))
        }
        _ => {
            let x = random(rng, spec.input_len());
            let mut y = vec![f32::NAN; spec.output_len()];
            whole
                .process_complex_to_real(&x, &mut y)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let y = y.iter().map(|&r| Complex32::new(r, 0.0)).collect();
            (y, nd_f64(&spec, &NdInput::Complex(&x)))
        }
    };
    let error = relative_l2_error(&got, &want);
    assert!(error < 1e-5, "{what}: relative error {error:.2e}");
    error
}

/// Whole host arrays through CPU ranks: spread without an estimate, every kind against the
/// f64 reference (global arrays in and out whatever the spectrum's layout); the wrong call,
/// length or one-device plan refused before any work.
#[test]
fn whole_arrays_through_cpu_ranks() {
    let mut rng = rng();
    let cpu = tierfft::Device::cpu();
    let whole = |spec: &DistSpec, ranks: usize| {
        let spread = DistFft::on_cpu(spec, ranks).expect("plan ranks");
        let one = cpu.plan_nd(&spec.one_device()).expect("plan one device");
        WholeFft::choose(spread, one, None).expect("choose")
    };
    for (shape, ranks) in [(&[12, 10][..], 3), (&[9, 6, 8][..], 2)] {
        for spec in specs(shape) {
            let w = whole(&spec, ranks);
            assert_eq!(w.devices(), ranks, "{w}");
            assert!(w.spread().is_some() && w.estimate().is_none());
            check_whole(&w, &mut rng);
        }
    }
    let c2c = whole(&DistSpec::new(&[8, 8]), 2);
    let mut short = vec![Complex32::default(); 63];
    let err = c2c.process(&mut short).expect_err("short array");
    assert!(err.to_string().contains("63 elements"), "{err}");
    let err = c2c
        .process_real_to_complex(&[0.0; 64], &mut [Complex32::default(); 40])
        .expect_err("wrong kind");
    assert!(
        err.to_string().contains("complex transform (process)"),
        "{err}"
    );
    let spec = DistSpec::new(&[8, 8]);
    let other = cpu.plan_nd(&NdSpec::new(&[8, 8]).inverse()).expect("plan");
    let err = WholeFft::choose(DistFft::on_cpu(&spec, 2).expect("plan"), other, None)
        .err()
        .expect("mismatched one-device plan");
    assert!(err.to_string().contains("DistSpec::one_device"), "{err}");
}

/// Whole host arrays over the test GPU twice (peer copies): the planner measures the
/// bandwidths, estimates both sides with the host copies, and whichever it keeps matches
/// the f64 reference; skipped on other devices.
#[cfg(feature = "cuda")]
#[test]
fn whole_arrays_on_cuda_choose_by_estimate() {
    use tierfft::distributed::Link;
    let Some(cuda) = gpu().cuda_device() else {
        eprintln!("skipped: {} is not a CUDA GPU", gpu().name());
        return;
    };
    let mut rng = rng();
    for spec in specs(&[512, 384]) {
        let w = WholeFft::on_cuda(&spec, &[cuda.clone(), cuda.clone()], Link::Peer)
            .unwrap_or_else(|e| panic!("{spec:?}: {e}"));
        let e = w.estimate().expect("two ranks on CUDA are estimated");
        assert!(e.host.is_some(), "{e}");
        assert_eq!(w.devices() == 2, e.spread_is_faster(), "{w}");
        eprintln!("{spec:?}: {w}");
        check_whole(&w, &mut rng);
    }
    let alone = WholeFft::on_cuda(&DistSpec::new(&[64, 64]), &[cuda], Link::Peer).expect("one");
    assert_eq!(alone.devices(), 1);
    check_whole(&alone, &mut rng);
}

/// Peer copies between ranks on CUDA (2 and 3 ranks sharing the test GPU: the copies, the
/// events that order them beside the transforms, the plan's parts overlapping its
/// exchanges), against the f64 reference; skipped on other devices.
#[cfg(feature = "cuda")]
#[test]
fn gpu_ranks_through_peer_copies() {
    use tierfft::distributed::Link;
    let Some(cuda) = gpu().cuda_device() else {
        eprintln!("skipped: {} is not a CUDA GPU", gpu().name());
        return;
    };
    let mut rng = rng();
    for (shape, ranks, parts) in [
        (&[256, 256][..], 2, None),
        (&[100, 96][..], 3, Some(3)),
        (&[64, 48, 40][..], 2, Some(2)),
        (&[2048, 1024][..], 2, None),
    ] {
        for spec in specs(shape) {
            let spec = match parts {
                Some(p) => spec.parts(p),
                None => spec,
            };
            let gpus = vec![cuda.clone(); ranks];
            let fft = DistFft::on_cuda_with(&spec, &gpus, Link::Peer)
                .unwrap_or_else(|e| panic!("{spec:?}: {e}"));
            assert_eq!(fft.link(), "peer copies");
            check(&fft, &mut rng);
            check(&fft, &mut rng);
        }
    }
    // 2048 × 1024 over two ranks sends 4 MiB a rank: one part unless asked.
    let big = DistFft::on_cuda_with(
        &DistSpec::new(&[4096, 2048]),
        &[cuda.clone(), cuda.clone()],
        Link::Peer,
    )
    .expect("plan");
    assert!(
        big.ranks()[0].to_string().contains("in 2 parts"),
        "{}",
        big.ranks()[0]
    );
    check(&big, &mut rng);
    let times = big.time(3).expect("time");
    assert_eq!(times.total.len(), 3);
    // A rank that fails before its first all-to-all fails the other too.
    let spec = DistSpec::new(&[64, 64]).parts(2);
    let two = DistFft::on_cuda_with(&spec, &[cuda.clone(), cuda], Link::Peer).expect("plan");
    short_output_fails_every_rank(&two);
}

/// The NCCL path on `TIERFFT_TEST_GPUS` CUDA GPUs (one GPU runs one rank: NCCL is loaded
/// and the plan runs, but nothing is sent; skipped when unset).
#[cfg(feature = "cuda")]
#[test]
fn nccl_ranks_match_the_reference() {
    let gpus: usize = std::env::var("TIERFFT_TEST_GPUS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    if gpus == 0 {
        eprintln!("skipped: set TIERFFT_TEST_GPUS to the number of CUDA GPUs to use");
        return;
    }
    let devices: Vec<_> = (0..gpus)
        .map(|i| {
            std::sync::Arc::new(tierfft::backend::cuda::CudaDevice::open(i).expect("open GPU"))
        })
        .collect();
    let mut rng = rng();
    for (shape, ranks) in [
        (&[256, 256][..], gpus),
        (&[100, 90][..], gpus),
        (&[64, 48, 40][..], gpus),
        (&[1024, 2048][..], gpus.min(2)),
    ] {
        for spec in specs(shape) {
            let fft = DistFft::on_cuda(&spec, &devices[..ranks])
                .unwrap_or_else(|e| panic!("{spec:?}: {e}"));
            check(&fft, &mut rng);
            check(&fft, &mut rng);
        }
    }
}

/// A batch split across devices (three CPU devices; the test GPU twice, through host memory
/// and device-resident; in place) against the f64 reference, with a shared window fused;
/// batches smaller than the devices; what it cannot split is refused.
#[test]
fn batch_split_across_devices() {
    use tierfft::distributed::SplitBatch;
    use tierfft::{Device, FftSpec, PointOp};
    let mut rng = rng();
    let window: std::sync::Arc<[Complex32]> = random(&mut rng, 96).into();
    for (devices, batch) in [
        (vec![Device::cpu(); 3], 10),
        (vec![Device::cpu(); 4], 2),
        (vec![gpu().clone(); 2], 7),
    ] {
        let spec = FftSpec::new(96)
            .batch(batch)
            .on_load(PointOp::Multiply(window.clone()));
        let split = SplitBatch::new(&spec, &devices).expect("plan");
        assert_eq!(split.shares().len(), batch.min(devices.len()));
        let x = random(&mut rng, 96 * batch);
        let mut got = x.clone();
        split.process(&mut got).expect("process");
        assert_accurate("host shares", &spec, &x, &got);
        // Device-resident shares, each holding its rows of x.
        let mut buffers: Vec<_> = (split.shares().iter().zip(&devices))
            .map(|(share, d)| {
                d.upload(&x[share.start * 96..share.end * 96])
                    .expect("upload")
            })
            .collect();
        split.process_buffers(&mut buffers).expect("process");
        let got: Vec<Complex32> = buffers
            .iter()
            .flat_map(|b| b.download().expect("download"))
            .collect();
        assert_accurate("device shares", &spec, &x, &got);
        assert!(split.process_buffers(&mut buffers[..1]).is_err());
        assert_eq!(split.time(2).expect("time").len(), 2);
    }
    let cpus = [Device::cpu(), Device::cpu()];
    let each = FftSpec::new(8)
        .batch(4)
        .on_load(PointOp::MultiplyEach(random(&mut rng, 32).into()));
    let err = SplitBatch::new(&each, &cpus).err().expect("refused");
    assert!(err.to_string().contains("whole batch"), "{err}");
    assert!(SplitBatch::new(&FftSpec::new(8), &[]).is_err());
    assert!(SplitBatch::new(&FftSpec::new(8).batch(4).columns(), &cpus).is_err());
}
