//! `tierfft bench --gpus N --launcher env`: one process per rank, as a launcher starts them
//! (torchrun's, Open MPI's and Slurm's variables), meeting on loopback and exchanging over
//! TCP between CPU ranks, checked against the f64 reference; ranks that disagree fail
//! instead of waiting. And `--gpus N` over sizes: a batch split across devices.

use std::process::Output;
use std::time::{Duration, Instant};

use crate::common::TempDir;

/// A free TCP port on the loopback interface.
fn free_port() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener
        .local_addr()
        .expect("its address")
        .port()
        .to_string()
}

/// Runs one `tierfft` per set of variables in `ranks`, all at once, each with `args`, and
/// waits for every one (at most two minutes: a rank left waiting is a failure).
fn run_ranks(dir: &TempDir, args: &[&str], ranks: &[Vec<(&str, String)>]) -> Vec<Output> {
    let mut children: Vec<_> = ranks
        .iter()
        .map(|vars| {
            let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
            dir.spawn_with_vars(args, &vars)
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    while children
        .iter_mut()
        .any(|c| c.try_wait().expect("a rank's status").is_none())
    {
        if Instant::now() > deadline {
            for c in &mut children {
                let _ = c.kill();
            }
            panic!("a rank still waits after two minutes");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    children
        .into_iter()
        .map(|c| c.wait_with_output().expect("a rank's output"))
        .collect()
}

/// Rank 0's table: each shape's line must be checked against f64 and within f32 error.
fn assert_checked(out: &Output, shapes: &[&str]) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for shape in shapes {
        let line = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(shape))
            .unwrap_or_else(|| panic!("no line for {shape}:\n{stdout}"));
        let fields: Vec<&str> = line.split_whitespace().collect();
        let error: f64 = fields[fields.len() - 2].parse().expect("an error");
        assert!(error < 1e-6 && fields[fields.len() - 1] == "f64", "{line}");
    }
}

#[test]
fn ranks_in_processes_of_their_own() {
    let dir = TempDir::new("launcher");
    let args = [
        "bench",
        "--backend",
        "cpu",
        "--shapes",
        "12x10,8x6x10,40x32",
        "--gpus",
        "2",
        "--parts",
        "2",
        "--launcher",
        "env",
        "--reps",
        "2",
    ];
    // torchrun's variables.
    let port = free_port();
    let torchrun = |rank: usize| {
        vec![
            ("RANK", rank.to_string()),
            ("WORLD_SIZE", "2".to_string()),
            ("LOCAL_RANK", rank.to_string()),
            ("MASTER_ADDR", "127.0.0.1".to_string()),
            ("MASTER_PORT", port.clone()),
        ]
    };
    let outs = run_ranks(&dir, &args, &[torchrun(0), torchrun(1)]);
    assert_checked(&outs[0], &["12×10", "8×6×10", "40×32"]);
    assert!(outs[1].status.success() && outs[1].stdout.is_empty());
    // The slabs in two parts over sockets: the plans' parts in each row.
    let table = String::from_utf8_lossy(&outs[0].stdout);
    assert!(
        table
            .lines()
            .any(|l| l.contains("40×32") && l.contains(" sockets ") && l.contains(" 2 ")),
        "{table}"
    );

    // Open MPI's and Slurm's, with the rendezvous named by TIERFFT_RENDEZVOUS, pencils.
    let at = format!("localhost:{}", free_port());
    let mpi = vec![
        ("OMPI_COMM_WORLD_RANK", "0".to_string()),
        ("OMPI_COMM_WORLD_SIZE", "2".to_string()),
        ("TIERFFT_RENDEZVOUS", at.clone()),
    ];
    let slurm = vec![
        ("SLURM_PROCID", "1".to_string()),
        ("SLURM_NTASKS", "2".to_string()),
        ("TIERFFT_RENDEZVOUS", at.clone()),
    ];
    let pencils = [
        "bench",
        "--backend",
        "cpu",
        "--shapes",
        "8x6x10",
        "--gpus",
        "2",
        "--grid",
        "1x2",
        "--launcher",
        "env",
        "--reps",
        "2",
    ];
    let outs = run_ranks(&dir, &pencils, &[mpi, slurm]);
    assert_checked(&outs[0], &["8×6×10"]);
}

#[test]
fn ranks_that_disagree_fail_instead_of_waiting() {
    let dir = TempDir::new("launcher-disagree");
    let port = free_port();
    let rank = |rank: usize, ranks: usize| {
        vec![
            ("RANK", rank.to_string()),
            ("WORLD_SIZE", ranks.to_string()),
            ("MASTER_ADDR", "127.0.0.1".to_string()),
            ("MASTER_PORT", port.clone()),
        ]
    };
    let args = |gpus: &'static str| {
        [
            "bench",
            "--backend",
            "cpu",
            "--shapes",
            "12x10",
            "--gpus",
            gpus,
            "--launcher",
            "env",
        ]
    };
    // Rank 1 thinks there are three ranks: rank 0 refuses it, and rank 1 hears no answer.
    let dir_args = args("2");
    let mut first = dir.spawn_with_vars(
        &dir_args,
        &rank(0, 2)
            .iter()
            .map(|(k, v)| (*k, v.as_str()))
            .collect::<Vec<_>>(),
    );
    let second = run_ranks(&dir, &args("3"), &[rank(1, 3)]);
    let first_status = first.wait().expect("rank 0");
    assert!(!first_status.success() && !second[0].status.success());
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut first.stderr.take().expect("stderr"), &mut stderr)
        .expect("read");
    assert!(stderr.contains("same number of ranks"), "{stderr}");
    // --gpus that is not the launcher's number of ranks: refused before any rank waits.
    let out = &run_ranks(&dir, &args("3"), &[rank(0, 2)])[0];
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("--gpus 3 but the launcher"),
        "{stderr}"
    );
}

/// `--gpus N` with sizes: each size's batch split across N devices (CPU devices here),
/// checked against f64, beside one device.
#[test]
fn batches_split_across_devices() {
    let dir = TempDir::new("split");
    let out = dir.run(&[
        "bench",
        "--backend",
        "cpu",
        "--gpus",
        "3",
        "--sizes",
        "64,1000",
        "--points",
        "2^12",
        "--reps",
        "2",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for n in ["64", "1000"] {
        let line = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(n))
            .unwrap_or_else(|| panic!("no line for {n}:\n{stdout}"));
        let error: f64 = line
            .split_whitespace()
            .last()
            .expect("error")
            .parse()
            .expect("a number");
        assert!(error < 1e-6, "{line}");
    }
    // The spreading options need N-D shapes.
    let out = dir.run(&[
        "bench",
        "--backend",
        "cpu",
        "--gpus",
        "2",
        "--sizes",
        "64",
        "--grid",
        "1x2",
    ]);
    assert!(!out.status.success());
}

/// `tierfft plan --shape .. --gpus N`: every rank's part and steps; profiles are refused
/// (each rank's transforms are planned on a device).
#[test]
fn plans_spread_over_ranks_print() {
    let dir = TempDir::new("plan-gpus");
    let out = dir.run(&[
        "plan", "--shape", "12x10", "--gpus", "3", "--device", "cpu", "--real",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for want in [
        "rank 0 on",
        "rank 2 on",
        "R2C over axes [1]",
        "all-to-all between",
        "scratch:",
    ] {
        assert!(stdout.contains(want), "{want}:\n{stdout}");
    }
    // In parts: each part's transform and send, then the receives.
    let out = dir.run(&[
        "plan", "--shape", "64x64", "--gpus", "2", "--device", "cpu", "--parts", "2",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    for want in [
        "in 2 parts",
        "(elements 1024..2048)",
        "send 1:",
        "receive 0:",
    ] {
        assert!(stdout.contains(want), "{want}:\n{stdout}");
    }
    let out = dir.run(&[
        "plan",
        "--shape",
        "12x10",
        "--gpus",
        "2",
        "--device",
        "h100-cuda",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--device cuda, gpu or cpu"));
}
