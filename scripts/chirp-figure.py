#!/usr/bin/env python3
"""docs/images/chirp-conventions.png: the pulse conventions of `radar.chirp` and
`radar.pulse_reference` (docs/SAR.md). Each panel shows one pulse of an echo whose two-way
delay is t = 0: where the pulse lies (shaded) and its instantaneous frequency (the sweep),
for up and down chirps referenced at the pulse's centre or start.

Usage: python3 scripts/chirp-figure.py [OUT.png]   (needs NumPy and Matplotlib)
"""

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "docs/images/chirp-conventions.png"
T, B = 10e-6, 100e6  # the default radar's pulse and bandwidth
fig, axes = plt.subplots(2, 2, figsize=(10, 5.6), sharex=True, sharey=True)
for row, chirp in enumerate(("up", "down")):
    sign = 1 if chirp == "up" else -1
    for col, reference in enumerate(("centre", "start")):
        ax = axes[row, col]
        centre = 0.0 if reference == "centre" else T / 2  # the pulse's centre after the delay
        t = np.linspace(centre - T / 2, centre + T / 2, 2000)
        freq = sign * B / T * (t - centre)
        ax.axvspan(t[0] * 1e6, t[-1] * 1e6, color="tab:blue", alpha=0.12, label="the pulse")
        ax.plot(t * 1e6, freq / 1e6, color="tab:blue", lw=2, label="its frequency")
        ax.axvline(0, color="tab:red", lw=1.5)
        ax.text(0.2, 52, "delay 2R/c", color="tab:red", fontsize=9)
        ax.set_title(f'radar.chirp = "{chirp}", radar.pulse_reference = "{reference}"', fontsize=10)
        ax.set_xlim(-7, 13)
        ax.set_ylim(-60, 60)
        ax.grid(alpha=0.3)
        if row == 1:
            ax.set_xlabel("time from the echo's delay (µs)")
        if col == 0:
            ax.set_ylabel("frequency (MHz)")
axes[0, 0].legend(loc="lower right", fontsize=8)
fig.suptitle("Pulse conventions: 10 µs, 100 MHz (the default radar)", fontsize=11)
fig.tight_layout()
fig.savefig(out, dpi=90)
print(f"wrote {out}")
