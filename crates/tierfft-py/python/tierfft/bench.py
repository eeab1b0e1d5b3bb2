"""``python -m tierfft.bench``: tierfft's transforms against numpy.fft, scipy.fft (with
every core), pyFFTW and cupy.fft where they are installed, on the same arrays; its DCTs
against scipy.fft's and cupyx.scipy.fft's.

Each library transforms the same input; the time is the median wall clock of ``--reps``
calls after a warm-up call (plans made beforehand where the library has plans), with the
GPU synchronised after each call. Host (NumPy) arrays include tierfft's copies to and from
the device; CuPy arrays stay on the GPU for both tierfft and cupy.fft. Each result's
relative L2 error against NumPy (SciPy for the DCTs) in double precision is printed beside
its time, and its speed against NumPy's (SciPy's).

``--gpu`` compares CuPy arrays instead: tierfft's and cupy.fft's calls on the same array,
interleaved in one process, timed by CUDA events (GPU time) and by the wall clock (the
host's costs too); CuPy's time over tierfft's is printed, above 1 where tierfft is faster.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from typing import Callable, Dict, List, Optional

import numpy as np

import tierfft

#: (function, shape, dtype) of each case: batches of 1-D complex transforms of several
#: lengths (one not a power of two), real transforms, 2-D images, and double precision.
CASES = [
    ("fft", (4096, 256), "complex64"),
    ("fft", (1024, 4096), "complex64"),
    ("fft", (64, 65536), "complex64"),
    ("fft", (4, 1 << 20), "complex64"),
    ("fft", (1024, 1000), "complex64"),
    ("rfft", (1024, 4096), "float32"),
    ("fft2", (2048, 2048), "complex64"),
    ("rfft2", (2048, 2048), "float32"),
    ("fft", (1024, 4096), "complex128"),
    ("rfftn", (128, 128, 128), "float64"),
    ("dct", (1024, 4096), "float32"),
    ("dctn", (2048, 2048), "float32"),
    ("dctn", (128, 128, 128), "float64"),
]

#: (function, shape, dtype, keyword arguments) of the CUDA-array cases (``--gpu``): CuPy's
#: arrays transformed where they lie by tierfft and by cupy.fft (cupyx.scipy.fft for the DCT).
GPU_CASES = [
    ("fft", (1000, 4099), "complex64", {}),
    ("fft", (4096, 4096), "complex64", {"axis": 0}),
    ("fftn", (512, 512, 16), "complex64", {"axes": (0, 1)}),
    ("fft2", (4096, 4096), "complex64", {}),
    ("rfft", (256, 65536), "float32", {}),
    ("irfft", (256, 32769), "complex64", {}),
    ("fft", (1 << 24,), "complex64", {}),
    ("fft", (65536, 16), "complex64", {}),
    ("fft", (4096, 256), "complex64", {}),
    ("ifft", (64, 65536), "complex64", {}),
    ("rfft2", (2048, 2048), "float32", {}),
    ("fft", (1024, 4096), "complex128", {}),
    ("rfftn", (128, 128, 128), "float64", {}),
    ("fft", (1024, 4096), "complex64", {"norm": "ortho"}),
    ("dctn", (2048, 2048), "float32", {}),
    ("dct", (1024, 4096), "float64", {}),
]

#: The real-to-real cases, run against SciPy (NumPy has none).
_TRIG = {"dct", "dctn"}


def _median_seconds(call: Callable[[], object], reps: int, sync: Callable[[], None]) -> float:
    call()
    sync()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        call()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _error(got, want) -> float:
    got = np.asarray(got, dtype=np.complex128)
    return float(np.linalg.norm((got - want).ravel()) / np.linalg.norm(want.ravel()))


def _competitors(func: str, x: np.ndarray) -> Dict[str, Callable[[], object]]:
    """Host libraries' calls of ``func`` on ``x``, those installed."""
    calls: Dict[str, Callable[[], object]] = {}
    if func not in _TRIG:
        calls["numpy.fft"] = lambda: getattr(np.fft, func)(x)
    try:
        import scipy.fft

        workers = os.cpu_count() or 1
        calls[f"scipy.fft (workers={workers})"] = lambda: getattr(scipy.fft, func)(
            x, workers=workers
        )
    except ImportError:
        pass
    if func in _TRIG:
        return calls
    try:
        import pyfftw.builders

        threads = os.cpu_count() or 1
        built = getattr(pyfftw.builders, func)(x.copy(), threads=threads)
        calls[f"pyfftw ({threads} threads)"] = lambda: built(x)
    except ImportError:
        pass
    return calls


def _cupy():
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
        return cupy
    except Exception:
        return None


def run(device: Optional[str], reps: int, cases=CASES) -> List[dict]:
    """Times every case; returns one row per (case, library)."""
    rng = np.random.default_rng(1)
    rows = []
    cupy = _cupy()
    for func, shape, dtype in cases:
        dtype = np.dtype(dtype)
        x = rng.standard_normal(shape).astype(dtype)
        if dtype.kind == "c":
            x = x + 1j * rng.standard_normal(shape).astype(dtype)
        x = np.ascontiguousarray(x)
        label = f"{func} {'x'.join(map(str, shape))} {dtype.name}"
        trig = func in _TRIG
        if trig:
            import scipy.fft

            base = "scipy.fft (workers=1)"
            want = getattr(scipy.fft, func)(x.astype(np.float64))
        else:
            base = "numpy.fft"
            want = getattr(np.fft, func)(x.astype(np.complex128 if dtype.kind == "c" else np.float64))
        calls = _competitors(func, x)
        if trig:
            calls = {base: lambda: getattr(scipy.fft, func)(x), **calls}
        single = dtype in (np.complex64, np.float32)
        # Host arrays of double precision: on the CPU ("auto"), which spares the copies.
        host_device = device if single else None
        if trig:
            name = tierfft.open_device(host_device if host_device else ("auto" if single else "cpu")).name
            calls[f"tierfft ({name}, host arrays)"] = lambda: getattr(tierfft, func)(x, device=host_device)
        else:
            plan = tierfft.Plan(func, shape, dtype, device=host_device)
            calls[f"tierfft ({plan.device.name}, host arrays)"] = lambda: plan(x)
        syncs = {name: (lambda: None) for name in calls}
        if cupy is not None and single:
            xg = cupy.asarray(x)
            sync = cupy.cuda.get_current_stream().synchronize
            if trig:
                import cupyx.scipy.fft

                calls["cupyx.scipy.fft (GPU arrays)"] = lambda: getattr(cupyx.scipy.fft, func)(xg)
                syncs["cupyx.scipy.fft (GPU arrays)"] = sync
                calls["tierfft (cuda, GPU arrays)"] = lambda: getattr(tierfft, func)(xg)
            else:
                calls["cupy.fft (GPU arrays)"] = lambda: getattr(cupy.fft, func)(xg)
                syncs["cupy.fft (GPU arrays)"] = sync
                gpu_plan = tierfft.Plan(func, shape, dtype, device="cuda")
                calls["tierfft (cuda, GPU arrays)"] = lambda: gpu_plan(xg)
            syncs["tierfft (cuda, GPU arrays)"] = sync
        for name, call in calls.items():
            got = call()
            got = cupy.asnumpy(got) if cupy is not None and not isinstance(got, np.ndarray) else got
            rows.append(
                {
                    "case": label,
                    "library": name,
                    "seconds": _median_seconds(call, reps, syncs[name]),
                    "relative_error": _error(got, want),
                }
            )
        base_s = next(r["seconds"] for r in rows if r["case"] == label and r["library"] == base)
        for r in rows:
            if r["case"] == label:
                r["speedup_vs_numpy"] = base_s / r["seconds"]
        _print_case(label, [r for r in rows if r["case"] == label])
    return rows


def run_gpu(reps: int, cases=GPU_CASES) -> List[dict]:
    """Times every CUDA-array case: tierfft and cupy.fft (cupyx.scipy.fft) on the same CuPy
    array, in the same process, interleaved; one row per case. Both are timed by CUDA events
    on CuPy's current stream around each call (GPU time, tierfft's work ordered on that
    stream) and by the wall clock until the GPU has finished (the host's costs too)."""
    import cupy
    import cupyx.scipy.fft

    rng = np.random.default_rng(1)
    stream = cupy.cuda.get_current_stream()
    rows = []
    print(f"  {'case':<44} {'CuPy ms':>9} {'ours ms':>9} {'CuPy/ours':>9} "
          f"{'wall CuPy/ours':>14} {'rel. error':>10}")
    for func, shape, dtype, kwargs in cases:
        dtype = np.dtype(dtype)
        x = rng.standard_normal(shape)
        if func == "irfft":
            # A real signal's half spectrum (imaginary parts of 0 and n/2 are 0), which
            # every library reads alike.
            x = np.fft.rfft(rng.standard_normal(shape[:-1] + (2 * (shape[-1] - 1),)))
        elif dtype.kind == "c":
            x = x + 1j * rng.standard_normal(shape)
        xg = cupy.asarray(x.astype(dtype))
        theirs = getattr(cupyx.scipy.fft if func in _TRIG else cupy.fft, func)
        ours = getattr(tierfft, func)
        calls = {"cupy": lambda: theirs(xg, **kwargs), "tierfft": lambda: ours(xg, **kwargs)}
        results = {name: call() for name, call in calls.items()}
        want, got = (cupy.asnumpy(results[k]).astype(np.complex128) for k in ("cupy", "tierfft"))
        error = float(np.linalg.norm((got - want).ravel()) / np.linalg.norm(want.ravel()))
        gpu = {name: [] for name in calls}
        wall = {name: [] for name in calls}
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        for _ in range(reps):
            for name, call in calls.items():
                stream.synchronize()
                t = time.perf_counter()
                start.record(stream)
                call()
                end.record(stream)
                end.synchronize()
                wall[name].append(time.perf_counter() - t)
                gpu[name].append(cupy.cuda.get_elapsed_time(start, end) * 1e-3)
        gpu = {k: statistics.median(v) for k, v in gpu.items()}
        wall = {k: statistics.median(v) for k, v in wall.items()}
        extra = "".join(f" {k}={v}" for k, v in kwargs.items())
        label = f"{func} {'x'.join(map(str, shape))} {dtype.name}{extra}"
        row = {
            "case": label,
            "cupy_seconds": gpu["cupy"],
            "tierfft_seconds": gpu["tierfft"],
            "cupy_wall_seconds": wall["cupy"],
            "tierfft_wall_seconds": wall["tierfft"],
            "relative_difference": error,
        }
        rows.append(row)
        print(f"  {label:<44} {gpu['cupy'] * 1e3:>9.3f} {gpu['tierfft'] * 1e3:>9.3f} "
              f"{gpu['cupy'] / gpu['tierfft']:>9.2f} {wall['cupy'] / wall['tierfft']:>14.2f} "
              f"{error:>10.1e}")
        sys.stdout.flush()
        del xg, results
        cupy.get_default_memory_pool().free_all_blocks()
    return rows


def _print_case(label: str, rows: List[dict]) -> None:
    print(f"\n{label}")
    print(f"  {'library':<44} {'median ms':>10} {'x first':>8} {'rel. error':>11}")
    for r in rows:
        print(
            f"  {r['library']:<44} {r['seconds'] * 1e3:>10.3f} {r['speedup_vs_numpy']:>8.2f} "
            f"{r['relative_error']:>11.1e}"
        )
    sys.stdout.flush()


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tierfft.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default=None, help="tierfft's device for host arrays (default: auto)")
    parser.add_argument("--reps", type=int, default=20, help="timed calls per case (median)")
    parser.add_argument("--quick", action="store_true", help="only the first two cases, 3 calls each")
    parser.add_argument("--only", metavar="FUNC", help="only the cases of this function (e.g. dctn)")
    parser.add_argument("--gpu", action="store_true",
                        help="CuPy arrays on the GPU instead: tierfft against cupy.fft, same process")
    parser.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = parser.parse_args(argv)
    if args.gpu:
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.runtime.getDevice())
        print(f"tierfft {tierfft.__version__}, cupy {cupy.__version__} on "
              f"{props['name'].decode()}; median of {args.reps} calls each, interleaved")
        gpu_cases = [c for c in GPU_CASES if args.only in (None, c[0])]
        rows = run_gpu(args.reps, gpu_cases[:2] if args.quick else gpu_cases)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(rows, f, indent=1)
        return 0
    cases = [c for c in CASES if args.only in (None, c[0])]
    cases = cases[:2] if args.quick else cases
    reps = 3 if args.quick else args.reps
    print(
        f"tierfft {tierfft.__version__} on {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores; numpy {np.__version__}; median of {reps} calls"
    )
    rows = run(args.device, reps, cases)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
