"""One DCT call of each case by tierfft and by cupyx.scipy.fft, on the same CuPy arrays,
for Nsight Compute to time each kernel (warm-up calls first, then a marker line before each
profiled call):

    ncu --metrics gpu__time_duration.sum python3 scripts/dct-profile.py

With --host, where the host's time goes in the same calls instead.
"""

import cupy
import cupyx.scipy.fft
import numpy as np

import tierfft

CASES = [("dct", (1024, 4096), "float64"), ("dctn", (2048, 2048), "float32")]



def kernels() -> None:
    """One profiled call of each case and library, after a warm-up call."""
    for func, shape, dtype in CASES:
        x = cupy.asarray(np.random.default_rng(1).standard_normal(shape).astype(dtype))
        for library in (tierfft, cupyx.scipy.fft):
            getattr(library, func)(x)
        cupy.cuda.runtime.deviceSynchronize()
        for library in (tierfft, cupyx.scipy.fft):
            print(f"== {library.__name__}.{func} {shape} {dtype}", flush=True)
            getattr(library, func)(x)
            cupy.cuda.runtime.deviceSynchronize()


def host_times() -> None:
    """With --host: where the host's time goes in the same calls (median microseconds until
    the call returns and until the GPU is done, then cProfile's top functions)."""
    import cProfile
    import pstats
    import time

    stream = cupy.cuda.get_current_stream()
    for func, shape, dtype in CASES:
        x = cupy.asarray(np.random.default_rng(1).standard_normal(shape).astype(dtype))
        for library in (tierfft, cupyx.scipy.fft):
            call = getattr(library, func)
            call(x)
            stream.synchronize()
            returned, done = [], []
            for _ in range(50):
                t = time.perf_counter()
                call(x)
                returned.append(time.perf_counter() - t)
                stream.synchronize()
                done.append(time.perf_counter() - t)
            print(f"{library.__name__}.{func} {shape} {dtype}: returns {np.median(returned) * 1e6:.1f} us, "
                  f"done {np.median(done) * 1e6:.1f} us", flush=True)
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(20):
            tierfft.__dict__[func](x)
        stream.synchronize()
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(8)


if __name__ == "__main__":
    import sys

    host_times() if "--host" in sys.argv else kernels()
