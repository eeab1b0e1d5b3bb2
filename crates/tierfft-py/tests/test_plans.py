"""Plan objects, the plan cache, threads, and errors: every bad input gives a Python
exception with a clear message."""

import subprocess
import sys
import textwrap
import threading
import warnings

import numpy as np
import pytest

import tierfft
from conftest import relative_error, tolerance


def test_plan_reused_and_into_out(device, rng):
    plan = tierfft.Plan("rfft2", (16, 30), np.float32, device=device)
    out = np.full(plan.output_shape, np.nan, np.complex64)
    for _ in range(3):
        x = rng.standard_normal((16, 30)).astype(np.float32)
        assert plan(x, out=out) is out
        assert relative_error(out, np.fft.rfft2(x.astype(np.float64))) < 2e-6
    assert plan.output_shape == (16, 16)
    assert "rfft2" in repr(plan)


def test_plan_checks_its_input(device):
    plan = tierfft.Plan("fft", (8,), np.complex64, device=device)
    with pytest.raises(ValueError, match=r"shape \(8,\)"):
        plan(np.zeros(9, np.complex64))
    with pytest.raises(TypeError, match="single precision"):
        plan(np.zeros(8, np.complex128))
    with pytest.raises(TypeError, match="numeric"):
        plan(np.array(["a"] * 8))
    with pytest.raises(ValueError, match="func must be one of"):
        tierfft.Plan("dct", (8,))
    with pytest.raises(TypeError, match="n and axis"):
        tierfft.Plan("fft", (8, 8), axes=(0,))


def test_threads_share_a_plan(device, rng):
    plan = tierfft.Plan("fft", (64, 256), np.complex64, device=device)
    inputs = [(rng.standard_normal((64, 256)) + 1j).astype(np.complex64) for _ in range(4)]
    results = [None] * 4

    def work(i):
        for _ in range(3):
            results[i] = plan(inputs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for x, y in zip(inputs, results):
        assert relative_error(y, np.fft.fft(x.astype(np.complex128))) < 2e-6


def test_the_gil_is_released_while_a_transform_runs(device):
    plan = tierfft.Plan("fft", (16, 1 << 18), np.complex64, device=device)
    x = np.ones((16, 1 << 18), np.complex64)
    plan(x)  # compiled and warm
    done = threading.Event()
    worker = threading.Thread(target=lambda: (plan(x), plan(x), done.set()))
    ticks = 0
    worker.start()
    while not done.is_set():
        ticks += 1  # runs only while the worker does not hold the GIL
    worker.join()
    assert ticks > 1000, f"the main thread ran {ticks} times during two transforms"


def test_bad_arguments_raise_numpys_errors(device):
    x = np.ones(8)
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        tierfft.fft(x, n=0, device=device)
    with pytest.raises(ValueError, match="Invalid norm value"):
        tierfft.fft(x, norm="sideways", device=device)
    with pytest.raises(np.exceptions.AxisError if hasattr(np, "exceptions") else ValueError):
        tierfft.fft(x, axis=1, device=device)
    with pytest.raises(ValueError, match="different lengths"):
        tierfft.fftn(np.ones((4, 4)), s=[4], axes=[0, 1], device=device)
    with pytest.raises(TypeError, match="real input"):
        tierfft.rfft(np.ones(8, np.complex64), device=device)
    with pytest.raises(TypeError, match="numeric"):
        tierfft.fft(np.array(["a", "b"]), device=device)
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        tierfft.irfft(np.ones(1), device=device)


def test_devices_by_name():
    with pytest.raises(tierfft.DeviceError, match="no device"):
        tierfft.fft(np.ones(4), device="no-such-gpu")
    with pytest.raises(TypeError, match="device must be a name"):
        tierfft.fft(np.ones(4), device=3)
    assert tierfft.open_device("cpu").backend == "cpu"


def test_double_precision_on_a_named_gpu(device, rng):
    """A GPU with f64 arithmetic (lavapipe, CUDA, most Vulkan GPUs) transforms double data
    in f64; one without (Metal) in f32, with a PrecisionWarning; the result keeps NumPy's
    type either way."""
    dev = tierfft.open_device(device)
    if dev.backend == "cpu":
        pytest.skip("the CPU has f64 transforms")
    x = rng.standard_normal((4, 100)) + 1j * rng.standard_normal((4, 100))
    if dev.has_f64:
        with warnings.catch_warnings():
            warnings.simplefilter("error", tierfft.PrecisionWarning)
            got = tierfft.ifft(x, device=device, norm="ortho")
            back = tierfft.irfft(np.fft.rfft(x.real), n=100, device=device)
            spectrum = tierfft.rfft2(x.real, device=device)
        bound = 1e-14
        assert tierfft.Transform(dev, [8], [0], "c2c", double=True).double
    else:
        with pytest.warns(tierfft.PrecisionWarning, match="single precision"):
            got = tierfft.ifft(x, device=device, norm="ortho")
        with pytest.warns(tierfft.PrecisionWarning):
            back = tierfft.irfft(np.fft.rfft(x.real), n=100, device=device)
        with pytest.warns(tierfft.PrecisionWarning):
            spectrum = tierfft.rfft2(x.real, device=device)
        bound = 2e-6
        # The native transform refuses f64 outright on such a GPU.
        with pytest.raises(ValueError, match="f64"):
            tierfft.Transform(dev, [8], [0], "c2c", double=True)
    assert got.dtype == np.complex128
    assert relative_error(got, np.fft.ifft(x, norm="ortho")) < bound
    assert back.dtype == np.float64 and relative_error(back, x.real) < bound
    assert spectrum.dtype == np.complex128
    assert relative_error(spectrum, np.fft.rfft2(x.real)) < bound
    # "auto" takes the CPU for double-precision data, in f64.
    assert tierfft.Plan("fft", (8,), np.complex128).device.backend == "cpu"


def test_transform_checks_arrays(device):
    t = tierfft.Transform(tierfft.open_device(device), [4, 6], [1], "c2c")
    a = np.zeros((4, 6), np.complex64)
    with pytest.raises(TypeError, match="complex64"):
        t.execute(np.zeros((4, 6), np.complex128), a)
    with pytest.raises(ValueError, match="C-contiguous"):
        t.execute(np.zeros((6, 4), np.complex64).T, a)
    with pytest.raises(ValueError, match="shape"):
        t.execute(np.zeros((4, 5), np.complex64), a)
    with pytest.raises(ValueError, match="written"):
        ro = np.zeros((4, 6), np.complex64)
        ro.flags.writeable = False
        t.execute(a, ro)
    with pytest.raises(ValueError, match="kind"):
        tierfft.Transform(tierfft.open_device(device), [4], [0], "dct")
    with pytest.raises(ValueError, match="axis 3 is out of range"):
        tierfft.Transform(tierfft.open_device(device), [4], [3], "c2c")
    with pytest.raises(ValueError, match="CUDA"):
        t.execute_dlpack(a.__dlpack__(), a.__dlpack__())


def test_cuda_array_of_another_library_is_refused():
    class Foreign:
        def __dlpack_device__(self):
            return (2, 0)

    with pytest.raises(TypeError, match="CuPy and PyTorch"):
        tierfft.fft(Foreign())


def test_new_lengths_run_on_the_cpu_while_their_kernels_compile(device, rng, monkeypatch):
    if device == "cpu":
        pytest.skip("the CPU compiles nothing")
    monkeypatch.setattr(tierfft.config, "compile_in_background", True)
    # The worker busy first, so that the new plan's kernels are still compiling at its
    # first call, which does not wait.
    busy = threading.Event()
    tierfft._background.submit(busy, lambda: busy.wait(30))
    monkeypatch.setattr(tierfft._background, "FIRST_CALL_WAIT", 0.0)
    x = (rng.standard_normal((3, 457)) + 1j * rng.standard_normal((3, 457))).astype(np.complex64)
    plan = tierfft._plan.cached_plan("fft", x.shape, x.dtype, device, n=None, axis=-1, norm=None)
    assert plan.compiling
    first = tierfft.fft(x, device=device)
    assert first.dtype == np.complex64
    assert relative_error(first, np.fft.fft(x.astype(np.complex128))) < tolerance(np.complex64)
    assert plan.compiling
    busy.set()
    plan._pending.result(timeout=120)
    again = tierfft.fft(x, device=device, norm=None)
    assert not plan.compiling
    assert relative_error(again, np.fft.fft(x.astype(np.complex128))) < tolerance(np.complex64)
    # Large arrays, plans made by hand and the setting off compile before the first call.
    assert not tierfft.Plan("fft", x.shape, x.dtype, device=device).compiling
    monkeypatch.setattr(tierfft.config, "compile_in_background", False)
    y = np.ones((2, 459), np.complex64)
    tierfft.fft(y, device=device)
    assert not tierfft._plan.cached_plan("fft", y.shape, y.dtype, device, n=None, axis=-1,
                                         norm=None).compiling


def test_an_exiting_process_waits_for_the_running_compile_and_drops_the_queued():
    """A compile left running at exit crashed a CUDA process as its devices closed: the
    exit now waits for it, and drops the ones queued."""
    script = textwrap.dedent("""
        import atexit, time

        def check():  # registered first, so run after the package's own exit handler
            from tierfft import _background
            alive = _background._worker.is_alive()
            print(f"running: {first.result() if first.done() else 'not done'}, "
                  f"queued cancelled: {queued.cancelled()}, worker alive: {alive}")

        atexit.register(check)
        import tierfft

        owner = type("Owner", (), {})()
        first = tierfft._background.submit(owner, lambda: time.sleep(0.5) or "compiled")
        queued = tierfft._background.submit(owner, lambda: "compiled too")
        time.sleep(0.1)  # the first one running
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "running: compiled, queued cancelled: True, worker alive: False" in done.stdout, (
        done.stdout + done.stderr
    )
