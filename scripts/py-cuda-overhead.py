"""Where the time of a tierfft call on CuPy arrays goes, against cupy.fft (run on a CUDA
machine with the package installed): the whole call with and without `out=`, the native
call alone (waiting, and with the stream handed over as the functions do), the DLPack
exports, CuPy's allocation, the plan cache's lookup and bookkeeping, a few CuPy attributes,
and cupy.fft itself. Median wall clock
of 200 calls in microseconds: until the call returns (the host's own time: the calls are
asynchronous), and until the GPU has finished too. Then the Python functions that take the
host's time in `plan(x, out=out)` (cProfile)."""

import time

import cupy
import numpy as np

import tierfft

stream = cupy.cuda.get_current_stream()


def micros(f, n=200):
    """Median microseconds until `f` returns, and until the GPU has finished."""
    f()
    stream.synchronize()
    returned, done = [], []
    for _ in range(n):
        t = time.perf_counter()
        f()
        returned.append(time.perf_counter() - t)
        stream.synchronize()
        done.append(time.perf_counter() - t)
    return np.median(returned) * 1e6, np.median(done) * 1e6


for shape, dtype in [((4096, 256), np.complex64), ((1024, 4096), np.complex64),
                     ((1024, 4096), np.complex128)]:
    x = cupy.asarray((np.random.rand(*shape) + 1j).astype(dtype))
    out = cupy.empty_like(x)
    plan = tierfft.Plan("fft", x.shape, dtype, device="cuda")
    st = plan.device.cuda_stream or 1
    tierfft.fft(x)
    cached = tierfft._plan.cached_plan("fft", x.shape, x.dtype, "cuda:0", n=None, axis=-1, norm=None)
    rows = {
        "tierfft.fft(x)": lambda: tierfft.fft(x),
        "plan(x)": lambda: plan(x),
        "plan(x, out=out)": lambda: plan(x, out=out),
        "native execute_dlpack": lambda: plan._transform.execute_dlpack(
            x.__dlpack__(stream=st), out.__dlpack__(stream=st)
        ),
        "native, stream handed": lambda: plan._transform.execute_dlpack(
            x.__dlpack__(stream=st), out.__dlpack__(stream=st), stream.ptr
        ),
        "two __dlpack__ exports": lambda: (x.__dlpack__(stream=st), out.__dlpack__(stream=st)),
        "cupy.empty_like": lambda: cupy.empty_like(x),
        "cupy.empty(shape, name)": lambda: cupy.empty(x.shape, x.dtype.name),
        "cupy.empty(shape, dtype)": lambda: cupy.empty(x.shape, x.dtype),
        "the plan cache's lookup": lambda: tierfft._plan.cached_plan(
            "fft", x.shape, x.dtype, "cuda:0", n=None, axis=-1, norm=None
        ),
        "settle(plan)": lambda: tierfft.config.settle(cached),
        "x.__dlpack_device__()": lambda: x.__dlpack_device__(),
        "x.flags.c_contiguous": lambda: x.flags.c_contiguous,
        "get_current_stream().ptr": lambda: cupy.cuda.get_current_stream().ptr,
        "cupy.fft.fft(x)": lambda: cupy.fft.fft(x),
    }
    print(f"{shape[0]}x{shape[1]} {x.dtype} ({x.nbytes >> 20} MiB), us:   returns   done")
    for name, f in rows.items():
        returned, done = micros(f)
        print(f"  {name:<24} {returned:9.1f} {done:9.1f}")

import cProfile
import pstats

x = cupy.asarray((np.random.rand(1024, 4096) + 1j).astype(np.complex128))
out = cupy.empty_like(x)
plan = tierfft.Plan("fft", x.shape, np.complex128, device="cuda")
for name, f in [("plan(x, out=out)", lambda: plan(x, out=out)), ("tierfft.fft(x)", lambda: tierfft.fft(x))]:
    f()
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(500):
        f()
    profile.disable()
    stream.synchronize()
    print(f"{name} x 500, host time by function:")
    pstats.Stats(profile).sort_stats("tottime").print_stats(25)
