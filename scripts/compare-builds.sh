#!/usr/bin/env bash
# GPU machine: one tierfft command from two builds of it on the same card, alternating, so
# that a change meant to keep (or gain) the speed can be shown to. Usage:
# scripts/compare-builds.sh BEFORE AFTER [ROUNDS] [tierfft arguments...]; the default is
# `bench --backend cuda --compare cufft` at n = 2^6..2^24, 20 repetitions (each run's ratios
# are against cuFFT in that run). `sar --device cuda --out DIR [flags]` compares the
# focusing steps' times `tierfft sar` prints. Outputs go to $OUT (or out/) as before-K.txt
# and after-K.txt; the last lines of each are printed as it ends.
set -uo pipefail
before="$1" after="$2" rounds="${3:-2}"
shift $(($# < 3 ? $# : 3))
args=("$@")
[ ${#args[@]} -gt 0 ] ||
    args=(bench --backend cuda --compare cufft --min-log2 6 --max-log2 24 --reps 20)
out="${OUT:-out}"
mkdir -p "$out"
export TIERFFT_CACHE_DIR="${TIERFFT_CACHE_DIR:-/tmp/tierfft-cubin}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
status=0
for k in $(seq "$rounds"); do
    for side in before after; do
        bin=$before
        [ "$side" = after ] && bin=$after
        echo "== $side, round $k: $bin"
        "$bin" "${args[@]}" >"$out/$side-$k.txt" 2>&1 || status=1
        tail -3 "$out/$side-$k.txt"
    done
done
exit "$status"
