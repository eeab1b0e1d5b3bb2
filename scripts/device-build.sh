#!/usr/bin/env bash
# Build machine: compiles the release test binaries and the tierfft binary and copies them
# into .carry/ (git-ignored) for scripts/device-run.sh on the H100 machine.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .carry && mkdir -p .carry/tests
cargo build --release -p tierfft-cli
cp target/release/tierfft .carry/
# What the Vulkan driver makes of the WGSL kernels (device-run.sh vkstats), and the cudarc
# interop example (device-run.sh interop).
cargo build --release -p tierfft --example vulkan_stats --example cudarc_stream
cp target/release/examples/{vulkan_stats,cudarc_stream} .carry/
# The Python package as a wheel (stable ABI: the machine's python3 is 3.12) for
# device-run.sh python.
rm -rf target/wheels && python3 -m maturin build --release -q -o target/wheels 2>&1 | tail -2
cp target/wheels/tierfft-*.whl .carry/
cargo test --release -p tierfft -p tierfft-sar --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys, shutil
for line in sys.stdin:
    m = json.loads(line)
    # cuda_compile compiles every kernel with NVRTC, which needs no GPU.
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"] \
            and m["target"]["name"] != "cuda_compile":
        shutil.copy(m["executable"], ".carry/tests/" + m["target"]["name"])
'
# The carry limit is 64 MiB: strip. Test binaries: library, sar and resources; library's
# kernels_validate module needs no GPU (device-run.sh skips it).
strip .carry/tierfft .carry/vulkan_stats .carry/cudarc_stream .carry/tests/*
# Still over the limit with every test binary: carry them compressed (device-run.sh unpacks).
if [ "$(du -sm .carry | cut -f1)" -gt 60 ]; then
    tar cJf .carry/tests.tar.xz -C .carry tests && rm -rf .carry/tests
fi
# With .gl the carry must stay under 64 MiB: the wheel and the examples (for the python,
# vkstats and interop steps) go first, with a note.
if [ $(( $(du -sb .carry | cut -f1) + $(du -sb .gl 2>/dev/null | cut -f1 || echo 0) )) -gt 67000000 ]; then
    rm -f .carry/tierfft-*.whl .carry/vulkan_stats .carry/cudarc_stream
    echo "device-build.sh: over the carry limit; left out the wheel and the examples (python, vkstats, interop steps)" >&2
fi
du -sh .carry
