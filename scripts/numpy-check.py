#!/usr/bin/env python3
"""`tierfft fft` against NumPy itself: fft/ifft, fftn/ifftn, rfft/irfft, rfftn/irfftn over
every ordered subset of axes of arrays of rank 1 to 4 (odd, even and prime extents), the
norms, NumPy's `n` and `s`, repeated axes, and the inputs NumPy takes (float64, complex128,
integers, bool, Fortran order, big-endian). Each case writes a .npy; one run of the binary
per device transforms them all (`tierfft fft --jobs`); each output is compared with NumPy's
in float64 (relative L2 error at most 2e-6, shapes equal; float64 and complex128 input on
the CPU is transformed in f64: float64 or complex128 out, within 1e-13).

Usage: scripts/numpy-check.py [--tierfft PATH] [--device cpu,lavapipe]
Exit status 1 when any case fails; each failure is printed with its arguments.
"""
import argparse
import itertools
import os
import subprocess
import sys
import tempfile

import numpy as np

BOUND = 2e-6
# Double-precision input on the CPU is transformed in f64.
BOUND_F64 = 1e-13


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tierfft", default="target/release/tierfft")
    parser.add_argument("--device", default="cpu,lavapipe")
    args = parser.parse_args()
    failures = 0
    cases = 0
    with tempfile.TemporaryDirectory() as tmp:
        for device in args.device.split(","):
            # Every case's input is written first, then one process runs them all
            # (`tierfft fft --jobs`), then each output is compared.
            jobs = []

            def run(x, flags, want, name):
                k = len(jobs)
                inp, out = os.path.join(tmp, f"x{k}.npy"), os.path.join(tmp, f"y{k}.npy")
                np.save(inp, x)
                jobs.append((x, flags, want, name, out,
                             ["-i", inp, "-o", out, "-d", device] + flags))

            cases_for(run, np.random.default_rng(7))
            listing = os.path.join(tmp, f"jobs-{device}.txt")
            with open(listing, "w") as f:
                f.writelines(" ".join(job[-1]) + "\n" for job in jobs)
            r = subprocess.run([args.tierfft, "fft", "--jobs", listing],
                               capture_output=True, text=True)
            status = {}
            for line in r.stdout.splitlines():
                head, _, rest = line.partition(": ")
                if head.startswith("job "):
                    status[int(head[4:])] = rest
            for k, (x, flags, want, name, out, _) in enumerate(jobs, start=1):
                cases += 1
                said = status.get(k, f"no result (exit status {r.returncode}: "
                                     f"{r.stderr.strip()[-300:]})")
                if said != "ok":
                    print(f"FAIL {device} {name} {flags}: {said[:300]}")
                    failures += 1
                    continue
                got = np.load(out)
                err = np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)
                # float64 and complex128 input: transformed in f64 on the CPU.
                dt = np.asarray(x).dtype
                double = device == "cpu" and (dt.kind, dt.itemsize) in (("f", 8), ("c", 16))
                bound = BOUND_F64 if double else BOUND
                dtype_ok = not double or got.dtype in (np.float64, np.complex128)
                if got.shape != want.shape or not err <= bound or not dtype_ok:
                    print(f"FAIL {device} {name} {flags}: shape {got.shape} "
                          f"(NumPy {want.shape}), {got.dtype}, relative L2 error {err:.2e}")
                    failures += 1
    print(f"numpy-check: {cases - failures} of {cases} cases match NumPy {np.__version__}")
    return 1 if failures else 0


def cases_for(run, rng):
    shapes = [(7,), (16,), (1,), (5, 6), (17, 9), (1, 8), (8, 1), (3, 4, 5), (2, 3, 4, 5)]
    for shape in shapes:
        x = rng.standard_normal(shape)
        c = x + 1j * rng.standard_normal(shape)
        rank = len(shape)
        run(c, [], np.fft.fft(c), "fft")
        run(c, ["--inverse"], np.fft.ifft(c), "ifft")
        run(x, ["--real"], np.fft.rfft(x), "rfft")
        for k in range(1, rank + 1):
            for axes in itertools.permutations(range(rank), k):
                a = ",".join(map(str, axes))
                run(c, ["--axes", a], np.fft.fftn(c, axes=axes), "fftn")
                run(x, ["--real", "--axes", a], np.fft.rfftn(x, axes=axes), "rfftn")
                bins = np.fft.rfftn(x, axes=axes)
                s = [shape[i] for i in axes]
                run(bins, ["--real", "--inverse", "--n", str(s[-1]), "--axes", a],
                    np.fft.irfftn(bins, s=s, axes=axes), "irfftn")
        run(c, ["--norm", "ortho"], np.fft.fft(c, norm="ortho"), "ortho")
        run(c, ["--norm", "forward", "--inverse"], np.fft.ifft(c, norm="forward"), "forward")
    # NumPy's n and s, irfft's default length, repeated axes.
    bins = np.fft.rfft(rng.standard_normal(10))
    run(bins, ["--real", "--inverse"], np.fft.irfft(bins), "irfft default n")
    run(bins, ["--real", "--inverse", "--n", "7"], np.fft.irfft(bins, n=7), "irfft n crops")
    run(bins, ["--real", "--inverse", "--n", "30"], np.fft.irfft(bins, n=30), "irfft n pads")
    x = rng.standard_normal((5, 6, 7))
    c = x + 1j * rng.standard_normal((5, 6, 7))
    run(c, ["--n", "4"], np.fft.fft(c, n=4), "fft n")
    run(c, ["--axes", "0,2", "--s", "3,9"], np.fft.fftn(c, s=(3, 9), axes=(0, 2)), "fftn s")
    run(c, ["--s", "4,9"], np.fft.fftn(c, s=(4, 9), axes=(1, 2)), "fftn s, the last axes")
    run(c, ["--axes", "2,0", "--s", "8,4", "--inverse"],
        np.fft.ifftn(c, s=(8, 4), axes=(2, 0)), "ifftn s")
    run(x, ["--real", "--axes", "0,1", "--s", "7,5"],
        np.fft.rfftn(x, s=(7, 5), axes=(0, 1)), "rfftn s")
    bins = np.fft.rfftn(x)
    run(bins, ["--real", "--inverse", "--axes", "0,1,2", "--s", "4,8,9"],
        np.fft.irfftn(bins, s=(4, 8, 9), axes=(0, 1, 2)), "irfftn s")
    run(c, ["--axes", "1,0,1"], np.fft.fftn(c, axes=(1, 0, 1)), "repeated axes")
    run(x, ["--real", "--axes", "0,0,2"], np.fft.rfftn(x, axes=(0, 0, 2)), "repeated rfftn")
    # The inputs NumPy takes.
    x = rng.standard_normal((6, 8))
    run(np.asfortranarray(x + 1j * x[::-1]), ["--axes", "0,1"],
        np.fft.fftn(x + 1j * x[::-1]), "Fortran order")
    run(np.asfortranarray(x), ["--real"], np.fft.rfft(x), "Fortran order, real")
    run(np.arange(16), [], np.fft.fft(np.arange(16)), "int64")
    run(np.arange(-8, 8, dtype=np.int16), ["--real"], np.fft.rfft(np.arange(-8, 8)), "int16")
    run(np.arange(16, dtype=np.uint8), [], np.fft.fft(np.arange(16)), "uint8")
    flags = np.array([True, False, True, True])
    run(flags, [], np.fft.fft(flags.astype(float)), "bool")
    run(np.arange(16).astype(">f8"), [], np.fft.fft(np.arange(16)), "big-endian float64")
    # Lengths past one pass and prime (Bluestein) ones.
    x = rng.standard_normal((3, 10007))
    run(x, ["--real"], np.fft.rfft(x), "rfft 10007")
    run(np.fft.rfft(x), ["--real", "--inverse", "--n", "10007"], x, "irfft 10007")
    x = rng.standard_normal((101, 130))
    run(x, ["--real", "--axes", "0,1"], np.fft.rfft2(x), "rfft2 101 x 130")


if __name__ == "__main__":
    sys.exit(main())
