"""f64 round trips as NumPy's own test_identity_long_short makes them: x (real and imaginary
parts uniform in [0, 1)) through fft then ifft, and xr through rfft then irfft, at every
length n from 1 to --max, cropped or zero-padded from 16 points as NumPy's test does. Prints
the largest error of each length in ulp of 1.0 (NumPy allows 5 below 32 points), the worst
over --trials inputs.

    python3 scripts/roundtrip-ulp.py --device lavapipe [--max 64] [--trials 5]
"""

import argparse

import numpy as np

import tierfft

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--device", default="cpu")
parser.add_argument("--max", type=int, default=31, help="longest length (default 31)")
parser.add_argument("--trials", type=int, default=5)
args = parser.parse_args()

rng = np.random.default_rng(0)
worst = np.zeros(args.max + 1)
for _ in range(args.trials):
    x = rng.random(16) + 1j * rng.random(16)
    xr = rng.random(16)
    padded = np.concatenate([x, np.zeros(max(0, args.max - 16))])
    padded_r = np.concatenate([xr, np.zeros(max(0, args.max - 16))])
    for n in range(1, args.max + 1):
        c = tierfft.ifft(tierfft.fft(x, n=n, device=args.device), n=n, device=args.device)
        r = tierfft.irfft(tierfft.rfft(xr, n=n, device=args.device), n=n, device=args.device)
        err = max(np.abs(c - padded[:n]).max(), np.abs(r - padded_r[:n]).max())
        worst[n] = max(worst[n], err / np.spacing(1.0))
print(f"f64 round trips on {tierfft.open_device(args.device).name}, worst of {args.trials} inputs, ulp:")
for n in range(1, args.max + 1):
    print(f"{n:4d} {worst[n]:5.1f}")
print(f"largest: {worst.max():.1f} ulp at n = {int(worst.argmax())}")
