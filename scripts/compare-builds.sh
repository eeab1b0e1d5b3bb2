#!/usr/bin/env bash
# GPU machine: `tierfft bench --compare cufft` from two builds of the command on the same
# card, alternating, so that a change meant to keep the speed can be shown to keep it (each
# run's ratios are against cuFFT in that run). Usage: scripts/compare-builds.sh BEFORE AFTER
# [ROUNDS] [bench flags...]; the defaults time n = 2^6..2^24, 20 repetitions. Outputs go to
# $OUT (or out/) as before-K.txt and after-K.txt.
set -uo pipefail
before="$1" after="$2" rounds="${3:-2}"
shift $(($# < 3 ? $# : 3))
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(--min-log2 6 --max-log2 24 --reps 20)
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
        "$bin" bench --backend cuda --compare cufft "${flags[@]}" >"$out/$side-$k.txt" 2>&1 || status=1
        tail -3 "$out/$side-$k.txt"
    done
done
exit "$status"
