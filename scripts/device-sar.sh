#!/usr/bin/env bash
# Runs on a GPU machine what the build machine put in .carry/: the tierfft binary, the test
# binaries tests/library and tests/sar, and data/alos1_palsar_l0b_chip.h5 (copied from the
# shared data folder, never committed). One step per argument:
#   whole   `tierfft sar` end to end as a user runs it, reading echoes from a file: a scene
#           simulated and written once (--write-raw, not timed), then focused twice with
#           --raw (wall clock and every phase), at $SIZES (default 4096 16384); and the
#           default simulated run at 4096²
#   l0b     `tierfft sar --l0b` on the ALOS chip (CUDA), and the L0B tests on CUDA
#   wholefft  the whole-array distributed test (peer copies, two ranks on the GPU) on CUDA,
#           its estimate printed, then under compute-sanitizer memcheck
# The binaries may come packed as .carry/bins.tar.xz (under the carry limit): unpacked first.
# With BASE=path to another build's tierfft (e.g. the last commit's, carried beside), `whole`
# runs it before this build each time, in the same call, and compares their metrics.json.
# Usage (carry .carry): OUT=dir [SIZES="4096 16384"] [BASE=...] bash scripts/device-sar.sh STEP...
set -uo pipefail
cd "$(dirname "$0")/.."
[ -f .carry/bins.tar.xz ] && tar xJf .carry/bins.tar.xz -C .carry
out=${OUT:?OUT: a folder for the results}
tf=$PWD/.carry/tierfft
export TIERFFT_CACHE_DIR=/tmp/tierfft-cubin NODEVICE_SELECT=1
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$out/gpu.txt"
status=0
for step in "$@"; do
    case "$step" in
    whole)
        for n in ${SIZES:-4096 16384}; do
            (cd /tmp && "$tf" sar --device cuda --lines "$n" --samples "$n" --write-raw \
                --out "/tmp/sim-$n" > /dev/null 2>&1) || status=1
            for round in 1 2; do for bin in ${BASE:-} "$tf"; do
                echo "== ${n}², --raw, round $round, $bin" | tee -a "$out/whole.txt"
                (cd /tmp && /usr/bin/time -f "wall %e s, peak RSS %M KiB" "$bin" sar --device cuda \
                    --raw "/tmp/sim-$n/raw.npy" --config "/tmp/sim-$n/scene.toml" \
                    --out "/tmp/focus-$n-$(basename "$bin")" 2>&1) |
                    grep -E "timings|phases|wall|rror" | tee -a "$out/whole.txt" || status=1
            done; done
            # The baseline's image measures the same as this build's (timings aside; numbers
            # to 1e-12 relative: sums taken in another order differ in the last bit).
            [ -n "${BASE:-}" ] && python3 -c '
import json, sys
a, b = (json.load(open(f"/tmp/focus-{sys.argv[1]}-{name}/metrics.json")) for name in sys.argv[2:])
[m.pop("timings_s") for m in (a, b)]
def differ(x, y, at):
    if isinstance(x, dict) and isinstance(y, dict) and x.keys() == y.keys():
        return [d for k in x for d in differ(x[k], y[k], f"{at}.{k}")]
    if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        return [d for i, (u, v) in enumerate(zip(x, y)) for d in differ(u, v, f"{at}[{i}]")]
    if isinstance(x, float) and isinstance(y, float):
        return [] if abs(x - y) <= 1e-12 * max(abs(x), abs(y)) else [at]
    return [] if x == y else [at]
d = differ(a, b, "")
print("metrics.json DIFFERS from the baseline: " + ", ".join(d) if d else
      "metrics.json: the baseline measured the same (to 1e-12)")
' "$n" "$(basename "$BASE")" tierfft | tee -a "$out/whole.txt"
        done
        for bin in ${BASE:-} "$tf"; do
            echo "== default run (4096², simulated), $bin" | tee -a "$out/whole.txt"
            (cd /tmp && /usr/bin/time -f "wall %e s" "$bin" sar --device cuda --out /tmp/default 2>&1) |
                grep -E "phases|wall|rror" | tee -a "$out/whole.txt" || status=1
        done
        ;;
    l0b)
        chip=$PWD/.carry/data/alos1_palsar_l0b_chip.h5
        (cd /tmp && /usr/bin/time -f "wall %e s" "$tf" sar --device cuda --l0b "$chip" \
            --out /tmp/l0b 2>&1) | tee "$out/l0b.txt" || status=1
        cp /tmp/l0b/metrics.json "$out/l0b-metrics.json" 2>/dev/null
        TIERFFT_DATA=$PWD/.carry/data TIERFFT_TEST_DEVICE=cuda .carry/tests/sar l0b 2>&1 |
            tail -5 | tee -a "$out/l0b.txt" || status=1
        ;;
    wholefft)
        export TIERFFT_TEST_DEVICE=cuda TIERFFT_TEST_GPUS=1
        .carry/tests/library --exact distributed::whole_arrays_on_cuda_choose_by_estimate \
            --nocapture 2>&1 | tail -12 | tee "$out/wholefft.txt" || status=1
        timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 .carry/tests/library \
            --test-threads=1 --exact distributed::whole_arrays_on_cuda_choose_by_estimate \
            > "$out/memcheck-wholefft.log" 2>&1
        echo "memcheck exit $?" | tee -a "$out/wholefft.txt"
        grep -E "ERROR SUMMARY|test result" "$out/memcheck-wholefft.log" | tee -a "$out/wholefft.txt"
        ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
    esac
done
exit $status
