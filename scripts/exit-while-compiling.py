"""A process that exits while kernels compile in the background (CUDA): new lengths queued
for compiling, the calls answered on the CPU meanwhile, then the interpreter exits at once.
The exit must wait for the compile running and drop the rest, not crash.

    TIERFFT_CACHE_DIR=$(mktemp -d) python3 scripts/exit-while-compiling.py [first length]
"""

import sys
import time

import cupy

import tierfft

tierfft.config.compile_in_background = True
first = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
for n in range(first, first + 6):
    tierfft.fft(cupy.ones((16, n), cupy.complex64))
cupy.cuda.get_current_stream().synchronize()
keys = [("fft", (16, n), cupy.dtype(cupy.complex64), "cuda:0", None, -1, None)
        for n in range(first, first + 6)]
pending = sum(1 for key in keys if getattr(tierfft.config.kept(key), "compiling", False))
print(f"exiting with {pending} of 6 plans still compiling at {time.perf_counter():.3f} s", flush=True)
