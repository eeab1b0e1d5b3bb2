#!/usr/bin/env python3
"""`tierfft sar --raw` on echoes from a simulator written apart from tierfft-sar's, measured
apart from it too.

Each scenario builds raw echoes with NumPy from the textbook point-target model (the
carrier phase exp(-i 4 pi R(eta) / lambda) and a linear chirp delayed by 2 R(eta) / c,
where the beam lights each target), in the convention the config then declares (up or
down chirp, delay at the pulse's centre or start, squint, any size, a uniformly lit or
a sinc^2 antenna pattern). It writes raw.npy and a config, runs the tierfft binary, reads
focused.npy, and measures every target itself: the peak's position against where the
target was placed (zero Doppler), and the range and azimuth cuts through the peak
(interpolated 16x by zero-padding the spectrum where it is emptiest): -3 dB width (IRW, in
samples and lines, against 0.886 fs/B and 0.886 PRF/B_D) and peak sidelobe ratio (against
-13.26 dB for the unweighted responses).

Usage: scripts/independent-sar.py [--tierfft PATH] [--device cpu] [--only NAME[,NAME]]
       [--keep DIR] [--algorithm rda,csa] [-- extra tierfft sar arguments]
Exit status 1 when a target is misplaced by more than 0.1 bin, or its IRW is off theory by
more than 3 % or its PSLR by more than 0.5 dB, or tierfft fails.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

C = 299_792_458.0

# Scenarios: radar, scene, targets (range m, azimuth m, amplitude). None of these are
# tierfft's defaults; each one exercises something a field recording has.
SCENARIOS = {
    # Spaceborne C band at an awkward size (3001 x 2503: neither even nor smooth), start
    # referenced up-chirp, fs / B = 1.2, unknown centroid near broadside.
    "cband-odd": dict(
        carrier=5.405e9, bandwidth=40e6, pulse=20e-6, fs=48e6, prf=1700.0, speed=7100.0,
        antenna=10.0, near=850e3, chirp="up", reference="start", centroid=12.0,
        give_centroid=False, beam="uniform", lines=3001, samples=2503, snr_db=10.0,
        targets=[(853e3, 0.0, 1.0), (854.3e3, -2500.0, 1.0), (851.2e3, 3000.0, 0.7)],
    ),
    # Airborne X band, down-chirp referenced at its start, squinted 230 Hz (not given).
    "x-squint-down": dict(
        carrier=9.65e9, bandwidth=150e6, pulse=5e-6, fs=180e6, prf=900.0, speed=120.0,
        antenna=2.0, near=4.0e3, chirp="down", reference="start", centroid=230.0,
        give_centroid=False, beam="uniform", lines=2600, samples=2200, snr_db=15.0,
        targets=[(4.3e3, 20.0, 1.0), (4.6e3, 80.0, 1.0), (4.95e3, 140.0, 1.0)],
    ),
    # L band, long aperture with a centroid varying with range (given as a table), centred
    # reference: SRC matters here.
    "l-table": dict(
        carrier=1.27e9, bandwidth=30e6, pulse=20e-6, fs=36e6, prf=400.0, speed=200.0,
        antenna=4.0, near=12.0e3, chirp="up", reference="centre",
        centroid=[(12.0e3, 40.0), (19.5e3, 60.0)], give_centroid=True, beam="uniform",
        lines=3999, samples=1800, snr_db=None,
        targets=[(13.6e3, 0.0, 1.0), (14.5e3, 100.0, 1.0), (15.8e3, 250.0, 1.0)],
    ),
    # A tapered (sinc^2 two-way) beam out to its first nulls: unweighted theory only once the
    # processor recognises the pattern and equalises it.
    "x-sinc2": dict(
        carrier=9.6e9, bandwidth=80e6, pulse=8e-6, fs=100e6, prf=600.0, speed=110.0,
        antenna=1.5, near=5e3, chirp="up", reference="centre", centroid=0.0,
        give_centroid=True, beam="sinc2", lines=2400, samples=2048, snr_db=20.0,
        targets=[(5.9e3, 0.0, 1.0), (6.4e3, 40.0, 1.0)],
    ),
    # Spaceborne-like: a sinc^2 beam whose skirts alias (PRF 1.25 times the 3 dB Doppler
    # band), squinted 300 Hz, neither centroid nor pattern given, a down-chirp.
    "c-sinc2-alias": dict(
        carrier=5.3e9, bandwidth=30e6, pulse=25e-6, fs=36e6, prf=1550.0, speed=7000.0,
        antenna=10.0, near=700e3, chirp="down", reference="start", centroid=300.0,
        give_centroid=False, beam="sinc2", lines=3200, samples=2300, snr_db=10.0,
        targets=[(701.5e3, 0.0, 1.0), (703.0e3, 1500.0, 1.0)],
    ),
}


def centroid_at(sc, r):
    c = sc["centroid"]
    if isinstance(c, (int, float)):
        return float(c)
    ranges, hz = zip(*c)
    return float(np.interp(r, ranges, hz))


def simulate(sc):
    """Echoes [lines, samples] complex64, in the scenario's own conventions."""
    lam = C / sc["carrier"]
    fs, prf, v, T = sc["fs"], sc["prf"], sc["speed"], sc["pulse"]
    k = sc["bandwidth"] / T * (1 if sc["chirp"] == "up" else -1)
    lines, samples = sc["lines"], sc["samples"]
    raw = np.zeros((lines, samples), np.complex128)
    tau = 2 * sc["near"] / C + np.arange(samples) / fs
    eta = (np.arange(lines) - lines / 2) / prf
    beam = 0.886 * lam / sc["antenna"]
    for r0, x0, amp in sc["targets"]:
        squint = np.arcsin(lam * centroid_at(sc, r0) / (2 * v))
        dx = v * eta - x0
        theta = np.arctan2(-dx, r0)  # positive ahead of the target
        off = theta - squint
        if sc["beam"] == "uniform":
            lit = np.abs(off) <= beam / 2
            gain = lit.astype(float)
        else:  # sinc^2 two-way amplitude out to its first nulls (|off| < lambda / L)
            u = sc["antenna"] * np.sin(off) / lam
            lit = np.abs(u) < 1
            gain = np.sinc(u) ** 2 * lit
        for j in np.nonzero(lit)[0]:
            r = np.hypot(r0, dx[j])
            delay = 2 * r / C
            start = delay if sc["reference"] == "start" else delay - T / 2
            t = tau - start
            inside = (t >= 0) & (t <= T)
            tc = t[inside] - T / 2
            raw[j, inside] += amp * gain[j] * np.exp(
                -4j * np.pi * r / lam + 1j * np.pi * k * tc * tc
            )
    if sc["snr_db"] is not None:
        rng = np.random.default_rng(5)
        sigma = np.sqrt(0.5 * 10 ** (-sc["snr_db"] / 10))
        raw += sigma * (rng.standard_normal(raw.shape) + 1j * rng.standard_normal(raw.shape))
    return raw.astype(np.complex64)


def config_toml(sc):
    lines = [
        "[radar]",
        f"carrier_hz = {sc['carrier']!r}",
        f"bandwidth_hz = {sc['bandwidth']!r}",
        f"pulse_s = {sc['pulse']!r}",
        f"sample_rate_hz = {sc['fs']!r}",
        f"prf_hz = {sc['prf']!r}",
        f"speed_mps = {sc['speed']!r}",
        f"antenna_m = {sc['antenna']!r}",
        f"near_range_m = {sc['near']!r}",
        f'chirp = "{sc["chirp"]}"',
        f'pulse_reference = "{sc["reference"]}"',
    ]
    if sc["give_centroid"]:
        c = sc["centroid"]
        if isinstance(c, (int, float)):
            lines.append(f"doppler_centroid_hz = {float(c)!r}")
        else:
            lines.append("doppler_centroid_hz = [" + ", ".join(f"[{r!r}, {h!r}]" for r, h in c) + "]")
    lines.append("[scene]")
    for r0, x0, amp in sc["targets"]:
        lines += ["[[scene.targets]]", f"range_m = {r0!r}", f"azimuth_m = {x0!r}", f"amplitude = {amp!r}"]
    return "\n".join(lines) + "\n"


def emptiest_bin(spec):
    """The bin at the middle of the 5 weakest neighbouring bins of a spectrum (circularly):
    where a band-limited signal's spectrum can be cut open."""
    n = len(spec)
    power = np.abs(np.concatenate([spec, spec[:4]])) ** 2
    return (int(np.argmin(np.convolve(power, np.ones(5), "valid")[:n])) + 2) % n


def signed_bins(n, gap):
    """Integer frequencies of an n-point FFT's bins, taken in [gap - n, gap)."""
    b = np.arange(n)
    return np.where(b >= gap, b - n, b)


def upsample_1d(cut, factor):
    """Band-limited interpolation of a 1-D cut: the spectrum cut open where it is least."""
    n = len(cut)
    spec = np.fft.fft(cut)
    big = np.zeros(n * factor, complex)
    big[signed_bins(n, emptiest_bin(spec)) % (n * factor)] = spec
    return np.fft.ifft(big) * factor


def shift(v, by):
    """Band-limited v(t + by) of a 1-D cut."""
    spec = np.fft.fft(v)
    f = signed_bins(len(v), emptiest_bin(spec)) / len(v)
    return np.fft.ifft(spec * np.exp(2j * np.pi * f * by))


def cut_metrics(cut, factor):
    """IRW (input bins) and PSLR (dB) of a 1-D response whose peak is near its middle."""
    up = np.abs(upsample_1d(cut, factor)) ** 2
    n = len(up)
    p = int(np.argmax(up[n // 4 : 3 * n // 4])) + n // 4
    db = 10 * np.log10(up / up[p] + 1e-30)

    def cross(step):
        i = p
        while 0 < i < n - 1 and db[i] > -3.0103:
            i += step
        return i - step + step * (db[i - step] + 3.0103) / (db[i - step] - db[i])

    irw = (cross(1) - cross(-1)) / factor
    left, right = p, p
    while left > 0 and db[left - 1] < db[left]:
        left -= 1
    while right < n - 1 and db[right + 1] < db[right]:
        right += 1
    side = np.concatenate([db[max(0, left - 10 * factor) : left], db[right + 1 : right + 1 + 10 * factor]])
    return irw, float(side.max()), p / factor


def upsample_2d(crop, factor):
    """[upsample_1d] along both axes."""
    rows = np.array([upsample_1d(r, factor) for r in crop])
    return np.array([upsample_1d(c, factor) for c in rows.T]).T


def measure(image, sc, line, sample):
    """The target's peak (line, sample), interpolated in 2-D, and the range and azimuth
    cuts through it."""
    half, factor = 32, 16
    li, si = int(round(line)), int(round(sample))
    if not (half + 3 <= li < image.shape[0] - half - 3 and half + 3 <= si < image.shape[1] - half - 3):
        return None
    box = np.abs(image[li - 3 : li + 4, si - 3 : si + 4])
    dl, ds = np.unravel_index(np.argmax(box), box.shape)
    li, si = li - 3 + dl, si - 3 + ds
    crop = image[li - half : li + half, si - half : si + half]
    # Interpolate the middle 8 x 8 finely to find the 2-D peak, then cut the crop through it
    # (a squinted response is skewed: cuts through a sample next to the peak read it off).
    fine = np.abs(upsample_2d(crop, factor))
    mid = slice((half - 4) * factor, (half + 4) * factor)
    pl, ps = np.unravel_index(np.argmax(fine[mid, mid]), (8 * factor, 8 * factor))
    pl, ps = pl / factor + half - 4, ps / factor + half - 4
    k = np.arange(2 * half)

    # The cuts at the peak's fractional position across the other axis.
    row = np.array([shift(crop[:, j], pl - half) for j in k]).T[half]
    col = np.array([shift(crop[i, :], ps - half) for i in k])[:, half]
    rng_irw, rng_pslr, _ = cut_metrics(row, factor)
    az_irw, az_pslr, _ = cut_metrics(col, factor)
    return dict(
        line=li - half + pl, sample=si - half + ps,
        range_irw=rng_irw, range_pslr=rng_pslr, azimuth_irw=az_irw, azimuth_pslr=az_pslr,
    )


def run(name, sc, args, work):
    folder = os.path.join(work, name)
    os.makedirs(folder, exist_ok=True)
    raw_path = os.path.join(folder, "raw.npy")
    np.save(raw_path, simulate(sc))
    cfg = os.path.join(folder, "scene.toml")
    with open(cfg, "w") as f:
        f.write(config_toml(sc))
    failures = 0
    for algorithm in args.algorithm.split(","):
        out = os.path.join(folder, "out-" + algorithm)
        cmd = [args.tierfft, "sar", "--raw", raw_path, "--config", cfg, "--device", args.device,
               "--out", out, "--algorithm", algorithm] + args.extra
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{name} {algorithm}: exit {done.returncode}\n{done.stderr[-3000:]}")
            failures += 1
            continue
        warnings = [l for l in done.stderr.splitlines() if "warning" in l.lower()]
        image = np.load(os.path.join(out, "focused.npy"))
        with open(os.path.join(out, "metrics.json")) as f:
            reported = json.load(f)
        lam = C / sc["carrier"]
        dr = C / (2 * sc["fs"])
        fdc = reported.get("doppler_centroid", {}).get("mid_swath_hz")
        pattern = reported.get("azimuth_pattern", {}).get("pattern")
        want = "sinc2" if sc["beam"] == "sinc2" else "uniform"
        failures += pattern != want
        print(f"{name} {algorithm}: image {image.shape}, centroid used {fdc:.2f} Hz "
              f"(simulated {centroid_at(sc, sc['near'] + sc['samples'] * dr / 2):.2f}), pattern "
              f"{pattern}{'' if pattern == want else ' FAIL (simulated ' + want + ')'}, "
              f"{len(warnings)} warnings" + "".join("\n    " + w for w in warnings))
        for r0, x0, _ in sc["targets"]:
            line = sc["lines"] / 2 + x0 * sc["prf"] / sc["speed"]
            sample = (r0 - sc["near"]) / dr
            m = measure(image, sc, line, sample)
            if m is None:
                print(f"  target {r0:.0f} m, {x0:.0f} m: too near an edge to measure")
                failures += 1
                continue
            squint = np.arcsin(lam * centroid_at(sc, r0) / (2 * sc["speed"]))
            beam = 0.886 * lam / sc["antenna"]
            bd = 2 * sc["speed"] / lam * (np.sin(squint + beam / 2) - np.sin(squint - beam / 2))
            irw_r, irw_a = 0.886 * sc["fs"] / sc["bandwidth"], 0.886 * sc["prf"] / bd
            ok_pos = abs(m["line"] - line) < 0.1 and abs(m["sample"] - sample) < 0.1
            ok_q = (abs(m["range_irw"] / irw_r - 1) < 0.03 and abs(m["azimuth_irw"] / irw_a - 1) < 0.03
                    and abs(m["range_pslr"] + 13.26) < 0.5 and abs(m["azimuth_pslr"] + 13.26) < 0.5)
            failures += not (ok_pos and ok_q)
            print(f"  target {r0:.0f} m, {x0:+.0f} m: at line {m['line']:.2f} (placed {line:.2f}), "
                  f"sample {m['sample']:.2f} ({sample:.2f}); range IRW {m['range_irw']:.3f} "
                  f"({irw_r:.3f}) PSLR {m['range_pslr']:.2f}; azimuth IRW {m['azimuth_irw']:.3f} "
                  f"({irw_a:.3f}) PSLR {m['azimuth_pslr']:.2f}" + ("" if ok_pos and ok_q else "  FAIL"))
    return failures


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1 :]
        argv = argv[: argv.index("--")]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tierfft", default="target/release/tierfft")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--only", default="")
    parser.add_argument("--keep", default="")
    parser.add_argument("--algorithm", default="rda,csa")
    args = parser.parse_args(argv)
    args.extra = extra
    names = [n for n in SCENARIOS if not args.only or n in args.only.split(",")]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or tmp
        for name in names:
            failures += run(name, SCENARIOS[name], args, work)
    print(f"{failures} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
