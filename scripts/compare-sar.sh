#!/usr/bin/env bash
# GPU machine: `tierfft sar --device cuda` from two builds of the command on the same card,
# alternating, and the focusing steps' times each run prints, so that a change meant to keep
# (or gain) the focusing speed can be shown to. Usage: scripts/compare-sar.sh BEFORE AFTER
# [ROUNDS] [sar flags...]; the default focuses the reference scene with Range-Doppler and
# SRC. Outputs go to $OUT (or out/) as before-K.txt and after-K.txt; the timing lines are
# printed as the runs end.
set -uo pipefail
before="$1" after="$2" rounds="${3:-2}"
shift $(($# < 3 ? $# : 3))
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(--src on)
out="${OUT:-out}"
mkdir -p "$out"
export TIERFFT_CACHE_DIR="${TIERFFT_CACHE_DIR:-/tmp/tierfft-cubin}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
status=0
for k in $(seq "$rounds"); do
    for side in before after; do
        bin=$before
        [ "$side" = after ] && bin=$after
        "$bin" sar --device cuda --out "$(mktemp -d)" "${flags[@]}" >"$out/$side-$k.txt" 2>&1 || status=1
        echo "$side $k: $(grep -o 'focus [0-9.]* ms = .*' "$out/$side-$k.txt")"
    done
done
exit "$status"
