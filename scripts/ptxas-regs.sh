#!/usr/bin/env bash
# Registers and spills of every pass kernel of a plan, without a GPU: the CUDA source that
# `tierfft plan --source cuda` prints, compiled by the pip wheel's nvcc to PTX and by ptxas
# for sm_90 (what the driver reports on the H100). Needs `pip install nvidia-cuda-nvcc`
# (cu13) and a release build of tierfft-cli.
#   scripts/ptxas-regs.sh 2^20 --batch 32 [--points-per-thread 8 ...]
set -uo pipefail
cd "$(dirname "$0")/.."
bin=$(python3 -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13", "bin"))')
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
target/release/tierfft plan "$@" --device h100-cuda --source cuda > "$dir/all.txt" || exit 1
awk -v d="$dir" '/^\/\/ ---- pass/ {n++; f = d "/pass" n ".cu"} n > 0 {print > f}' "$dir/all.txt"
for f in "$dir"/pass*.cu; do
    # nvcc exits non-zero when its own ptxas rejects the new PTX version; the PTX is written.
    "$bin/nvcc" -arch=compute_90 -ptx -o "$dir/k.ptx" "$f" >/dev/null 2>&1
    [ -s "$dir/k.ptx" ] || { echo "$(basename "$f"): nvcc wrote no PTX"; continue; }
    sed -i 's/^\.version 9\.5/.version 9.0/' "$dir/k.ptx"
    echo "$(basename "$f" .cu): $("$bin/ptxas" -arch=sm_90 -v "$dir/k.ptx" -o "$dir/k.cubin" 2>&1 |
        grep -oE "[0-9]+ bytes spill stores|Used [0-9]+ registers" | tr '\n' ' ')"
    rm -f "$dir/k.ptx"
done
