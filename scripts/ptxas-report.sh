#!/usr/bin/env bash
# Registers, spills and shared memory of every CUDA kernel of a plan, from ptxas on this
# machine (no GPU needed): the same source NVRTC compiles at run time, built for sm_90.
# Needs nvcc/ptxas (pip install nvidia-cuda-nvcc; its bin/ on PATH or in NVCC_BIN).
# Usage: scripts/ptxas-report.sh N [tierfft plan flags...], e.g.
#   scripts/ptxas-report.sh 4096 --batch 4096 --chain --points-per-thread 16 --radix 16
set -euo pipefail
cd "$(dirname "$0")/.."
nvcc_bin="${NVCC_BIN:-$(python3 -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13", "bin"))' 2>/dev/null || true)}"
nvcc="$(command -v nvcc || echo "$nvcc_bin/nvcc")"
[ -x "$nvcc" ] || { echo "nvcc not found (pip install nvidia-cuda-nvcc)" >&2; exit 1; }
tf=target/release/tierfft
[ -x "$tf" ] || cargo build --release -p tierfft-cli
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$tf" plan "$@" --device h100-cuda --source cuda >"$dir/plan.txt"
# One file per kernel: the printer heads each with "// ---- pass P (place) ----".
awk -v dir="$dir" '/^\/\/ ---- pass /{n++; f=sprintf("%s/k%02d.cu", dir, n); print > f; next} n{print > f}' "$dir/plan.txt"
sed -n '1,/^\/\/ ---- pass /p' "$dir/plan.txt" | sed '$d'
for f in "$dir"/k*.cu; do
    head -1 "$f"
    "$nvcc" -cubin -arch=sm_90 -Xptxas -v -o /dev/null "$f" 2>&1 | grep -E "registers|spill" | sed 's/^ptxas info *: */    /'
done
