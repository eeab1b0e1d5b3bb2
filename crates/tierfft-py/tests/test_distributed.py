"""tierfft.distributed against numpy.fft on fresh random data: CPU ranks in this process
(slabs in both spectrum layouts and in parts, pencils, real transforms, every norm, round
trips), two processes placed by a launcher's environment meeting over TCP, and CuPy arrays
on CUDA ranks sharing one GPU through peer copies (skipped without them)."""

import os
import socket
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tierfft
import tierfft.distributed as td
from conftest import relative_error


def _complex(rng, shape):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


@pytest.mark.parametrize(
    "shape, ranks, options",
    [
        ((16, 12), 2, {}),
        ((9, 14), 3, {"spectrum": "natural"}),
        ((40, 32), 2, {"parts": 3}),
        ((8, 6, 10), 2, {}),
        ((6, 8, 4), 4, {"grid": (2, 2)}),
    ],
)
def test_cpu_ranks_match_numpy(rng, shape, ranks, options):
    x = _complex(rng, shape)
    plan = td.DistPlan(shape, ["cpu"] * ranks, **options)
    assert plan.ranks == ranks and plan.local_ranks == list(range(ranks))
    assert plan.rank is None and plan.link == "host memory"
    spectrum = plan.gather(plan(plan.scatter(x)))
    assert relative_error(spectrum, np.fft.fftn(x)) < 2e-6
    # The inverse of the same layout gives the data back.
    inverse = td.DistPlan(shape, ["cpu"] * ranks, inverse=True, **options)
    parts = [spectrum[inverse.input_slices(r)] for r in range(ranks)]
    back = inverse.gather(inverse(parts))
    assert relative_error(back, x) < 2e-6


@pytest.mark.parametrize("norm", [None, "forward", "ortho"])
def test_real_transforms_and_norms(rng, norm):
    shape = (12, 10, 6)
    x = rng.standard_normal(shape).astype(np.float32)
    plan = td.DistPlan(shape, ["cpu"] * 2, real=True, norm=norm)
    assert plan.output_shape == (12, 10, 4)
    spectrum = plan.gather(plan(plan.scatter(x)))
    assert relative_error(spectrum, np.fft.rfftn(x, norm=norm)) < 2e-6
    inverse = td.DistPlan(shape, ["cpu"] * 2, real=True, inverse=True, norm=norm)
    assert inverse.input_shape == (12, 10, 4)
    back = inverse.gather(inverse([spectrum[inverse.input_slices(r)] for r in range(2)]))
    assert back.dtype == np.float32
    assert relative_error(back, x) < 2e-6
    c = _complex(rng, shape)
    want = np.fft.ifftn(c, norm=norm)
    ifft = td.DistPlan(shape, ["cpu"] * 3, inverse=True, norm=norm, spectrum="natural")
    assert relative_error(ifft.gather(ifft(ifft.scatter(c))), want) < 2e-6


def test_conversions_and_mistakes(rng):
    plan = td.DistPlan((8, 8), ["cpu", "cpu"])
    x = rng.standard_normal((8, 8))
    with pytest.warns(tierfft.PrecisionWarning):
        got = plan.gather(plan(plan.scatter(x)))
    assert relative_error(got, np.fft.fftn(x)) < 2e-6
    with pytest.raises(ValueError, match="runs 2 rank"):
        plan([np.zeros((4, 8), np.complex64)])
    with pytest.raises(ValueError, match="shape"):
        plan([np.zeros((4, 7), np.complex64)] * 2)
    with pytest.raises(ValueError, match="shape"):
        plan.scatter(np.zeros((8, 9)))
    with pytest.raises(ValueError, match="norm"):
        td.DistPlan((8, 8), ["cpu"] * 2, norm="sideways")
    with pytest.raises(ValueError, match="spectrum"):
        td.DistPlan((8, 8), ["cpu"] * 2, spectrum="diagonal")
    with pytest.raises(ValueError, match="parts 0"):
        td.DistPlan((8, 8), ["cpu"] * 2, parts=0)
    with pytest.raises(ValueError, match="at least one index per rank"):
        td.DistPlan((8, 2), ["cpu"] * 3)
    real = td.DistPlan((8, 8), ["cpu"] * 2, real=True)
    with pytest.raises(TypeError, match="real parts"):
        real([np.zeros((4, 8), np.complex64)] * 2)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_processes_from_the_launchers_environment(tmp_path, rng):
    """Two processes started as torchrun starts them, CPU ranks meeting over TCP: each
    transforms its rows, and the columns they return make numpy's spectrum."""
    shape = (24, 16)
    x = _complex(rng, shape)
    np.save(tmp_path / "x.npy", x)
    script = tmp_path / "rank.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys
            import numpy as np
            import tierfft.distributed as td

            x = np.load(sys.argv[1])
            plan = td.DistPlan.from_env(x.shape, cpu=True, timeout=60)
            part = plan(np.ascontiguousarray(x[plan.input_slices(plan.rank)]))
            np.save(sys.argv[2] % plan.rank, part)
            print(plan.rank, plan.ranks, plan.link, part.shape)
            """
        )
    )
    port = str(_free_port())
    procs = []
    for rank in range(2):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2", LOCAL_RANK=str(rank),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=port)
        procs.append(subprocess.Popen(
            [sys.executable, str(script), str(tmp_path / "x.npy"), str(tmp_path / "out%d.npy")],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        ))
    outputs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    assert outputs[0].split()[:4] == ["0", "2", "sockets", "(24,"], outputs
    want = np.fft.fftn(x)
    local = td.DistPlan(shape, ["cpu"] * 2)
    for rank in range(2):
        part = np.load(tmp_path / f"out{rank}.npy")
        assert relative_error(part, want[local.output_slices(rank)]) < 2e-6


def test_cupy_parts_on_cuda_ranks_sharing_a_gpu(rng):
    cupy = pytest.importorskip("cupy")
    try:
        tierfft.open_device("cuda")
    except tierfft.DeviceError:
        pytest.skip("no CUDA GPU")
    shape = (256, 192)
    x = _complex(rng, shape)
    plan = td.DistPlan(shape, ["cuda:0", "cuda:0"], link="peer", parts=2)
    assert plan.link == "peer copies"
    parts = [cupy.asarray(p) for p in plan.scatter(x)]
    kept = [p.copy() for p in parts]
    out = plan(parts)
    assert all(isinstance(o, cupy.ndarray) for o in out)
    assert all(bool((p == k).all()) for p, k in zip(parts, kept)), "the input is left alone"
    assert relative_error(plan.gather(out), np.fft.fftn(x)) < 2e-6
    real = td.DistPlan(shape, ["cuda:0"] * 2, real=True, link="peer", norm="ortho")
    r = rng.standard_normal(shape).astype(np.float32)
    got = real.gather(real([cupy.asarray(p) for p in real.scatter(r)]))
    assert relative_error(got, np.fft.rfftn(r, norm="ortho")) < 2e-6
