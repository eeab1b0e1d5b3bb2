#!/usr/bin/env python3
"""Range compression of a NISAR Level-0B product with NumPy and h5py, written apart from
tierfft's reader and filters, against what `tierfft sar --l0b` wrote.

Reads the echoes of frequency A, polarisation HH itself (the BFPQ codes through the table,
samples outside each pulse's valid window zeroed), builds the transmitted chirp from the
product's own chirpSlope and chirpDuration at the sampling rate of its slant-range spacing,
starting at sample 0 (a sample's slant range is its delay's), and compresses every line
without wrap-around (zero-padded by the pulse's length) with the filter docs/SAR.md describes:
within the band |f| <= B/2, conj(H)/|H|^2 times the mean of |H|^2 over the band (|H|^2
floored at 1 % of that mean), zero outside. Prints the relative L2 difference from
OUT/range_compressed.npy as JSON.

usage: scripts/independent-l0b.py PRODUCT.h5 OUT
"""

import json
import sys

import h5py
import numpy as np

C = 299_792_458.0


def echoes(f, swath):
    codes = f[swath + "/rxH/HH"][()]
    lut = f[swath + "/rxH/BFPQLUT"][()].astype(np.float64)
    z = lut[codes["r"]] + 1j * lut[codes["i"]]
    fill = f[swath + "/rxH/HH"].attrs.get("_FillValue")
    if fill is not None:
        z[(codes["r"] == fill) | (codes["i"] == fill)] = 0.0
    windows = f[swath + "/validSamplesSubSwath1"][()]
    samples = z.shape[1]
    k = np.arange(samples)
    for line, (start, end) in enumerate(windows):
        z[line, (k < start) | (k >= end)] = 0.0
    return z


def main():
    path, out = sys.argv[1], sys.argv[2]
    swath = "science/LSAR/RRSD/swaths/frequencyA/txH"
    with h5py.File(path, "r") as f:
        raw = echoes(f, swath)
        slope = float(f[swath + "/chirpSlope"][()])
        duration = float(f[swath + "/chirpDuration"][()])
        bandwidth = float(f[swath + "/rangeBandwidth"][()])
        ranges = f[swath + "/slantRange"][()]
    fs = C / (2.0 * (ranges[-1] - ranges[0]) / (len(ranges) - 1))
    lines, samples = raw.shape
    pulse = int(np.ceil(duration * fs))
    n = samples + pulse
    k = np.arange(int(np.floor(duration * fs)) + 1)
    t = k / fs - duration / 2.0
    replica = np.zeros(n, complex)
    replica[k] = np.exp(1j * np.pi * slope * t**2)
    h = np.fft.fft(replica)
    band = np.abs(np.fft.fftfreq(n, 1.0 / fs)) <= bandwidth / 2.0
    gain = np.mean(np.abs(h[band]) ** 2)
    power = np.maximum(np.abs(h) ** 2, 1e-2 * gain)
    g = np.where(band, np.conj(h) * gain / power, 0.0)
    padded = np.zeros((lines, n), complex)
    padded[:, :samples] = raw
    want = np.fft.ifft(np.fft.fft(padded, axis=1) * g, axis=1)[:, :samples]
    got = np.load(out + "/range_compressed.npy").astype(complex)
    rel = float(np.linalg.norm(got - want) / np.linalg.norm(want))
    print(json.dumps({"relative_l2": rel, "lines": lines, "samples": samples, "padded": n}))


if __name__ == "__main__":
    main()
