#!/usr/bin/env bash
# Runs on a GPU machine (no Rust there) what the build machine put in .carry/ (the tierfft
# binary, the library test binary), one step per call:
#   tune    `tierfft tune` on $DEVICE (default cuda; gpu: Vulkan) over 2^1..2^27 or $SIZES
#           (256 MiB batches), each candidate's time printed, the winners written to
#           $OUT/wisdom.json; then, on CUDA, the tune tests
#   bench   `tierfft bench --backend cuda --compare cufft --with-wgpu` over 2^1..2^27 or
#           $SIZES in each of $MODES (default "wisdom model"), two rounds interleaved:
#           wisdom takes the file $WISDOM and the shipped defaults (default: the shipped
#           only), shipped the shipped defaults only, model neither (--no-wisdom)
# Usage (carry .carry .gl): OUT=dir [WISDOM=file] [DEVICE=gpu] [SIZES=list | MIN_LOG2=k MAX_LOG2=k]
#     bash scripts/device-tune.sh STEP
set -euo pipefail
cd "$(dirname "$0")/.."
step=${1:?step: tune or bench}
out=${OUT:?OUT: a folder for the results}
bin=.carry/tierfft
# The Vulkan loader and GL dispatch libraries for --with-wgpu, as scripts/device-tests.sh.
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export NODEVICE_SELECT=1 WGPU_BACKEND=vulkan XDG_RUNTIME_DIR=$(mktemp -d)
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export TIERFFT_CACHE_DIR=/tmp/tierfft-cubin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv | tee "$out/gpu.txt"
if [ -n "${SIZES:-}" ]; then
    lengths=(--sizes "$SIZES")
else
    lengths=(--min-log2 "${MIN_LOG2:-1}" --max-log2 "${MAX_LOG2:-27}")
fi
case "$step" in
tune)
    device=${DEVICE:-cuda}
    TIERFFT_WISDOM=off $bin tune --device "$device" "${lengths[@]}" \
        --mib 256 --reps 10 --out "$out/wisdom.json" -v 2>&1 | tee "$out/tune.txt"
    if [ "$device" = cuda ]; then
        TIERFFT_WISDOM=off TIERFFT_TEST_DEVICE=cuda .carry/tests/library tune 2>&1 | tail -4 | tee "$out/tune-tests.txt"
    fi
    ;;
bench)
    wisdom=${WISDOM:-off}
    for round in 1 2; do
        for mode in ${MODES:-wisdom model}; do
            flags=()
            file=$wisdom
            [ "$mode" = model ] && flags=(--no-wisdom)
            [ "$mode" = shipped ] && file=off
            echo "== round $round, $mode" | tee -a "$out/bench.txt"
            TIERFFT_WISDOM=$file $bin bench --backend cuda --compare cufft --with-wgpu \
                "${lengths[@]}" "${flags[@]}" 2>&1 |
                tee -a "$out/bench.txt"
        done
    done
    ;;
*) echo "unknown step $step" >&2; exit 2 ;;
esac
