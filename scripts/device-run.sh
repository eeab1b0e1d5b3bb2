#!/usr/bin/env bash
# Runs on the H100 machine (no Rust there): the test binaries and the tierfft binary built on
# the build machine, through wgpu's Vulkan backend on the NVIDIA driver.
#
# Build machine:  scripts/device-build.sh   (fills .carry/ with binaries)
# Device machine: scripts/device-run.sh [tests|bench|all]   (carry: .gl .carry)
set -uo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
out="${OUT:-/tmp/tierfft-out}"
mkdir -p "$out"

# Vulkan loader (the machine has the NVIDIA ICD but no loader): see ../shared/PLATFORM.md.
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export WGPU_BACKEND=vulkan XDG_RUNTIME_DIR=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"

status=0
if [ "$what" = tests ] || [ "$what" = all ]; then
    export TIERFFT_TEST_DEVICE="${TIERFFT_TEST_DEVICE:-H100}"
    for t in .carry/tests/*; do
        echo "== $t"
        "$t" --test-threads=1 2>&1 | tee -a "$out/tests.log" | grep -E "^test |test result|panicked|GPU tests run on" || status=1
    done
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
    .carry/tierfft devices | tee "$out/devices.txt"
    .carry/tierfft bench --device gpu --min-log2 1 --max-log2 24 --points 2^27 --reps 50 | tee "$out/bench-vulkan.txt" || status=1
fi
exit $status
