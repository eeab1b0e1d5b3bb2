#!/usr/bin/env bash
# Runs on a GPU machine what the build machine put in .carry/ (the tierfft binary and the
# library test binary, stripped), for the tiers' options that are off by default, one step
# per argument:
#   test      tests/library's TESTS (default families::merged_passes: waves of one
#             workgroup, of three, and the device's) on CUDA, then under compute-sanitizer
#             memcheck, racecheck and synccheck, each tool's summary
#   bench     `tierfft bench --backend cuda --compare cufft` over 2^MIN_LOG2..2^MAX_LOG2
#             (default 17..24), forward then inverse, merged and not (--merge on|off), two
#             rounds interleaved, all in one process per line so the cards' clocks match
#   rounds    the same with --with-wgpu over 2^12..2^15, with --exchange-rounds 2 and 4
#             (16384 and 32768 points in one pass through Vulkan's 48 KiB) and without
#             (the shipped wisdom), forward then inverse, ROUNDS rounds interleaved (default
#             1); needs the Vulkan loader's packages in .gl/
#   real      R2C and C2R (`--real --dims 1`) over REAL_SHAPES (default 2^16..2^26 reals a
#             row, 2^26 a call), the split and merge fused where the planner fuses them
#             (`--fuse-real auto`) against steps of their own (`never`), and
#             .carry/tierfft-before's choice where it is there, two rounds interleaved
#   several   R2C and C2R over SEVERAL_SHAPES (default 2^19..2^24 reals a row), the split
#             and merge as steps (`--fuse-real never`) against fused into several passes
#             (`any-passes`), with the planner's lines and with 16, two rounds interleaved
#   profilereal  ncu on the one-pass R2C and C2R kernels over PROFILE_SHAPES (default 16384
#             and 2^15 reals a row), forward and inverse
#   vulkan    `tierfft bench --backend cuda --compare cufft --with-wgpu --sizes
#             8192,16384,2^15`, the shipped wisdom's shapes against exchanges in rounds
#             combined with the complex exchange, radix 16 and 16 points a thread, forward
# Usage (carry .carry, and .gl for vulkan and rounds): OUT=dir bash scripts/device-tiers.sh STEP...
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:?OUT: a folder for the results}
export TIERFFT_CACHE_DIR=/tmp/tierfft-cubin NODEVICE_SELECT=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv | tee "$out/gpu.txt"
status=0
# The Vulkan loader and GL dispatch libraries for --with-wgpu (as scripts/device-tune.sh).
vulkan_env() {
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
    export WGPU_BACKEND=vulkan XDG_RUNTIME_DIR=$(mktemp -d)
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
}
for step in "$@"; do
    case "$step" in
    test)
        tests=${TESTS:-families::merged_passes}
        # shellcheck disable=SC2086 # the test names, one word each
        TIERFFT_TEST_DEVICE=cuda .carry/tests/library --exact $tests 2>&1 |
            tail -3 | tee "$out/test.txt"
        for tool in memcheck racecheck synccheck; do
            echo "== compute-sanitizer $tool" | tee -a "$out/sanitize.txt"
            # shellcheck disable=SC2086
            TIERFFT_TEST_DEVICE=cuda timeout "${SANITIZE_SECONDS:-170}" compute-sanitizer --tool $tool \
                --error-exitcode 9 .carry/tests/library --test-threads=1 --exact $tests \
                > "$out/sanitize-$tool.log" 2>&1
            echo "exit $?" | tee -a "$out/sanitize.txt"
            grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result|panicked" "$out/sanitize-$tool.log" |
                head -8 | tee -a "$out/sanitize.txt"
        done
        ;;
    bench)
        for round in 1 2; do
            for dir in "" --inverse; do
                for merge in on off; do
                    echo "== round $round, ${dir:-forward}, --merge $merge" | tee -a "$out/bench.txt"
                    .carry/tierfft bench --backend cuda --compare cufft $dir --merge $merge \
                        --min-log2 "${MIN_LOG2:-17}" --max-log2 "${MAX_LOG2:-24}" 2>&1 |
                        tee -a "$out/bench.txt" || status=1
                done
            done
        done
        ;;
    real)
        shapes=${REAL_SHAPES:-1048576x64,65536x1024,16384x4096,4096x16384,1024x65536,512x131072,256x262144,128x524288,64x1048576}
        for round in 1 2; do
            for dir in "" --inverse; do
                for run in "tierfft auto" "tierfft never" "tierfft-before auto"; do
                    read -r bin fuse <<<"$run"
                    [ -x ".carry/$bin" ] || continue
                    echo "== round $round, ${dir:-forward}, $bin --fuse-real $fuse" | tee -a "$out/real.txt"
                    ".carry/$bin" bench --backend cuda --compare cufft --real --dims 1 $dir \
                        --fuse-real "$fuse" --shapes "$shapes" --reps 20 2>&1 |
                        tee -a "$out/real.txt" || status=1
                done
            done
        done
        ;;
    profilereal)
        # ncu on the one-pass R2C and C2R kernels over PROFILE_SHAPES (default 16384 and 2^15
        # reals a row), forward and inverse: where the C2R's time goes that the R2C's does not.
        metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
        metrics+=,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum
        metrics+=,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
        metrics+=,launch__registers_per_thread,launch__block_size,launch__grid_size
        metrics+=,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
        metrics+=,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
        metrics+=,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
        metrics+=,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
        metrics+=,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
        metrics+=,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
        metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
        metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
        for dir in "" --inverse; do
            echo "== profile ${dir:-forward}" | tee -a "$out/profilereal.txt"
            timeout 120 ncu --clock-control none --metrics "$metrics" --csv --kernel-name regex:fft_pass \
                .carry/tierfft bench --backend cuda --compare cufft --real --dims 1 $dir --reps 1 \
                --shapes "${PROFILE_SHAPES:-4096x16384,2048x32768}" >> "$out/profilereal.txt" 2>&1 || status=1
        done
        ;;
    several)
        # The split and merge as steps of their own against fused into several passes, with
        # the planner's lines (16 for an f32 split: 128-byte runs of lines and of their
        # mirrors; 4 or 8 for a merge) or 16 for both.
        for round in 1 2; do
            for dir in "" --inverse; do
                for flags in "never" "any-passes" "any-passes --min-lines 16"; do
                    echo "== round $round, ${dir:-forward}, --fuse-real $flags" | tee -a "$out/several.txt"
                    # shellcheck disable=SC2086 # the flags, word by word
                    .carry/tierfft bench --backend cuda --compare cufft --real --dims 1 $dir \
                        --fuse-real $flags --reps 20 \
                        --shapes "${SEVERAL_SHAPES:-128x524288,64x1048576,32x2097152,16x4194304,8x8388608,4x16777216}" 2>&1 |
                        tee -a "$out/several.txt" || status=1
                done
            done
        done
        ;;
    vulkan)
        vulkan_env
        for flags in "" "--exchange complex --exchange-rounds 2" \
            "--exchange complex --exchange-rounds 2 --radix 16" "--exchange complex --exchange-rounds 4" \
            "--exchange-rounds 2 --radix 16" "--exchange-rounds 4 --radix 16" \
            "--exchange-rounds 4 --points-per-thread 16" "--exchange complex --exchange-rounds 8"; do
            echo "== ${flags:-shipped wisdom}" | tee -a "$out/vulkan.txt"
            .carry/tierfft bench --backend cuda --compare cufft --with-wgpu $flags --sizes 8192,16384,2^15 2>&1 |
                tee -a "$out/vulkan.txt" || status=1
        done
        ;;
    rounds)
        vulkan_env
        for round in $(seq "${ROUNDS:-1}"); do
            for dir in "" --inverse; do
                for flags in "--exchange-rounds 2" "--exchange-rounds 4" ""; do
                    echo "== round $round, ${dir:-forward}, ${flags:-one round}" | tee -a "$out/rounds.txt"
                    .carry/tierfft bench --backend cuda --compare cufft --with-wgpu $dir $flags \
                        --min-log2 12 --max-log2 15 2>&1 | tee -a "$out/rounds.txt" || status=1
                done
            done
        done
        ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
    esac
done
exit $status
