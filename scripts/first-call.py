"""First calls of new lengths on CuPy arrays: the wall clock of tierfft's first call of each
length in this process (planning, compiling or loading the kernels from the disk cache,
the run), then of its second call, against cupy.fft's first and second calls. Run it twice:
the first run fills the kernel cache (cold), the second finds it (warm). --background
turns tierfft.config.compile_in_background on: the functions' plans for small arrays
compile in the background and run on the CPU meanwhile.

    python3 scripts/first-call.py [--batch 16] [--background]
"""

import argparse
import statistics
import time

import cupy

import tierfft

LENGTHS = [96, 250, 384, 1000, 1536, 3000, 4096, 6000, 10000, 65536, 100000, 1 << 20]


def ms(f):
    t = time.perf_counter()
    f()
    cupy.cuda.get_current_stream().synchronize()
    return (time.perf_counter() - t) * 1e3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--background", action="store_true",
                        help="compile in the background, the CPU meanwhile")
    args = parser.parse_args()
    tierfft.config.compile_in_background = args.background
    # The CUDA context and the library's own start, outside the figures.
    warm = cupy.ones((4, 64), cupy.complex64)
    tierfft.fft(warm)
    cupy.fft.fft(warm)
    rows = []
    print(f"{'n':>8} {'ours 1st ms':>12} {'ours 2nd ms':>12} {'cupy 1st ms':>12} {'cupy 2nd ms':>12}")
    for n in LENGTHS:
        x = cupy.ones((args.batch, n), cupy.complex64)
        cupy.cuda.get_current_stream().synchronize()
        row = (n, ms(lambda: tierfft.fft(x)), ms(lambda: tierfft.fft(x)),
               ms(lambda: cupy.fft.fft(x)), ms(lambda: cupy.fft.fft(x)))
        rows.append(row)
        print(f"{row[0]:>8} {row[1]:>12.2f} {row[2]:>12.3f} {row[3]:>12.2f} {row[4]:>12.3f}")
    print(f"median first call: ours {statistics.median(r[1] for r in rows):.2f} ms, "
          f"cupy {statistics.median(r[3] for r in rows):.2f} ms")
    if args.background:
        # A process exits with its queued compiles dropped: wait for them (the worker takes
        # them in order, so a last, empty one marks the end), so that the next run finds every
        # kernel of these lengths in the disk cache.
        from tierfft import _background

        class Mark:
            pass

        mark = Mark()
        _background.submit(mark, lambda: None).result()


if __name__ == "__main__":
    main()
