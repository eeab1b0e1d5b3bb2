"""NumPy's and SciPy's own FFT tests, as installed with them, run against tierfft: NumPy's
test_pocketfft.py with numpy.fft's transforms replaced by tierfft's, and SciPy's
test_basic.py, test_real_transforms.py (the DCT and DST), test_multithreading.py (workers)
and test_fftlog.py (the fast Hankel transform, SciPy's own through this backend) with
tierfft.scipy_fft as scipy.fft's global backend (a plugin counts the calls it took, so a backend that passed
everything back to SciPy fails). Each runs in a
pytest of its own, on the CPU; on lavapipe too SciPy's DCT/DST suite, and NumPy's suite but
for its ``test_identity`` (every length 1..511, whose kernels lavapipe compiles for about
nine minutes with its shader cache empty).
TIERFFT_PY_SUITE_DEVICES=cpu,lavapipe runs every suite, whole, on both."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SUITE_DEVICES = [
    d for d in os.environ.get("TIERFFT_PY_SUITE_DEVICES", "cpu").split(",") if d
]
SCIPY_SUITES = [
    (suite, d)
    for suite in ("test_basic.py", "test_multithreading.py", "test_fftlog.py")
    for d in SUITE_DEVICES
] + [
    ("test_real_transforms.py", d) for d in dict.fromkeys(SUITE_DEVICES + ["lavapipe"])
]
# (device, tests left out): lavapipe's extra run leaves out the one that compiles hundreds
# of lengths; test_identity_long_short (lengths 1..31, f64 round trips within 5 ulp) stays.
NUMPY_RUNS = [(d, ()) for d in SUITE_DEVICES] + (
    [] if "lavapipe" in SUITE_DEVICES else [("lavapipe", ("TestFFT1D::test_identity",))]
)

NUMPY_PLUGIN = """
import numpy as np
import tierfft
for name in ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
             "irfft2", "fftn", "ifftn", "rfftn", "irfftn"]:
    setattr(np.fft, name, getattr(tierfft, name))
"""

SCIPY_PLUGIN = """
import numpy as np
import pytest
import scipy.fft
import tierfft.scipy_fft as backend

calls = {"taken": 0, "passed on": 0}
_entry = backend.__ua_function__


def counting(method, args, kwargs):
    result = _entry(method, args, kwargs)
    calls["passed on" if result is NotImplemented else "taken"] += 1
    return result


backend.__ua_function__ = counting
scipy.fft.set_global_backend(backend)


@pytest.fixture(params=[np], ids=["numpy"])
def xp(request):
    return request.param


def pytest_unconfigure():
    print(f"\\ntierfft.scipy_fft took {calls['taken']} calls, passed on {calls['passed on']}")
"""


def run_suite(
    tmp_path: Path, test_file: Path, plugin: str, device: str, left_out: tuple = ()
) -> str:
    """pytest on ``test_file`` (copied beside ``plugin``) with TIERFFT_DEVICE=``device``,
    but for the tests ``left_out`` names (``Class::test``); its report of every test's
    outcome."""
    (tmp_path / "tierfft_plugin.py").write_text(textwrap.dedent(plugin))
    (tmp_path / test_file.name).write_text(test_file.read_text())
    env = dict(os.environ, TIERFFT_DEVICE=device)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), *sys.path])
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-rA", "-q", "-p", "no:cacheprovider",
         "-p", "tierfft_plugin", test_file.name,
         *(f"--deselect={test_file.name}::{t}" for t in left_out)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1800,
    )
    return done.stdout + done.stderr


def outcomes(report: str, word: str) -> set:
    """The tests the report marks ``word`` (PASSED, FAILED, ERROR)."""
    return {
        line.split("::")[-1].split(" - ")[0].strip()
        for line in report.splitlines()
        if line.startswith(word + " ")
    }


@pytest.mark.parametrize("device, left_out", NUMPY_RUNS)
def test_numpys_own_fft_tests(device, left_out, tmp_path):
    np_tests = Path(__import__("numpy").fft.__file__).parent / "tests" / "test_pocketfft.py"
    if not np_tests.exists():
        pytest.skip(f"NumPy was installed without its tests ({np_tests})")
    report = run_suite(tmp_path, np_tests, NUMPY_PLUGIN, device, left_out)
    failed = outcomes(report, "FAILED") | outcomes(report, "ERROR")
    assert outcomes(report, "PASSED"), report[-3000:]
    assert not failed, report[-3000:]


@pytest.mark.parametrize("suite, device", SCIPY_SUITES)
def test_scipys_own_fft_tests_through_the_backend(suite, device, tmp_path):
    scipy = pytest.importorskip("scipy")
    sp_tests = Path(scipy.__file__).parent / "fft" / "tests" / suite
    if not sp_tests.exists():
        pytest.skip(f"SciPy was installed without its tests ({sp_tests})")
    report = run_suite(tmp_path, sp_tests, SCIPY_PLUGIN, device)
    failed = outcomes(report, "FAILED") | outcomes(report, "ERROR")
    assert not failed and outcomes(report, "PASSED"), report[-3000:]
    taken = [line for line in report.splitlines() if line.startswith("tierfft.scipy_fft took")]
    assert taken and "took 0 calls" not in taken[0], report[-3000:]
