#!/usr/bin/env bash
# GPU machine (no Rust needed): the library's and the SAR crate's test binaries on the GPU,
# through CUDA and then wgpu/Vulkan, and `tierfft bench --compare cufft` on the same card.
# Needs .carry/tierfft and .carry/tests/{library,sar} from the workspace's release build
# (`cargo test --release --workspace --features tierfft/ndarray --no-run`) and, for Vulkan,
# the loader and the GL dispatch libraries the NVIDIA driver's Vulkan library needs, as
# Debian packages in .gl/ (`cd .gl && apt-get download libvulkan1 libegl1 libglvnd0
# libopengl0 libgl1 libglx0 libgles2`; the loader alone finds no adapter). Logs go to $OUT
# (or out/); the exit status is 1 when any test failed. NO_BENCH=1 leaves the benchmark out.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-out}"
mkdir -p "$out"
export NODEVICE_SELECT=1
# The machine has the NVIDIA Vulkan driver but no loader: unpack it (as device-run.sh does).
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export WGPU_BACKEND=vulkan XDG_RUNTIME_DIR=$(mktemp -d) TIERFFT_CACHE_DIR=/tmp/tierfft-cubin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
# wgpu/Vulkan finds the GPU by its name (H100 or H200).
vk=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -o 'H[0-9]\{3\}' | head -1)
status=0
for dev in cuda "${vk:-H100}"; do
    # kernels_validate needs no GPU; self_reference reads the source tree.
    for bin in library sar; do
        echo "== $bin on $dev"
        TIERFFT_TEST_DEVICE=$dev .carry/tests/$bin --test-threads=4 \
            --skip kernels_validate:: --skip self_reference:: >"$out/$bin-$dev.log" 2>&1 || status=1
        grep -E "test result|panicked|^test .*FAILED" "$out/$bin-$dev.log"
    done
done
[ -n "${NO_BENCH:-}" ] ||
    .carry/tierfft bench --backend cuda --compare cufft --min-log2 6 --max-log2 24 --reps 20 \
        2>&1 | tee "$out/compare.txt" || status=1
exit "$status"
