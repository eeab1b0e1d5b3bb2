#!/usr/bin/env python3
"""Writes the test pattern docs/images/pattern.png (512 x 512, 8-bit grey) that the
`tierfft fft2d` examples in docs/CLI.md use: a disc, a square, a patch of oriented stripes
(two sharp peaks in the spectrum), a fine grid (a lattice of peaks) and a little noise.
Needs numpy only. Usage: scripts/test-pattern.py [OUT.png]"""
import struct
import sys
import zlib

import numpy as np

n = 512
y, x = np.mgrid[0:n, 0:n].astype(np.float64)
img = np.full((n, n), 0.25)
img[(x - 150) ** 2 + (y - 160) ** 2 < 90 ** 2] = 0.9
img[330:450, 60:180] = 0.6
stripes = (x >= 280) & (x < 480) & (y >= 280) & (y < 480)
img[stripes] = 0.5 + 0.4 * np.cos(2 * np.pi * (40 * x + 24 * y) / n)[stripes]
grid = (x >= 300) & (x < 460) & (y >= 40) & (y < 200)
img[grid & ((x % 16 < 2) | (y % 16 < 2))] = 0.95
img += np.random.default_rng(7).normal(0, 0.02, img.shape)
pixels = (np.clip(img, 0, 1) * 255).round().astype(np.uint8)

def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

raw = b"".join(b"\x00" + row.tobytes() for row in pixels)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", n, n, 8, 0, 0, 0, 0))
png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
out = sys.argv[1] if len(sys.argv) > 1 else "docs/images/pattern.png"
open(out, "wb").write(png)
print(f"wrote {out}")
