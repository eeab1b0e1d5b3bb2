#!/usr/bin/env bash
# Runs on a GPU machine what the build machine put in .carry/ (the tierfft binary): the
# distributed transforms with one process per rank and batches split across GPUs, on as
# many GPUs as the machine has (RANKS, default all of them), one step per argument:
#   launcher  `tierfft bench --backend cuda --shapes $SHAPES --gpus N --launcher env`, N
#             processes started as torchrun would (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_*),
#             beside the same in one process (`--gpus N`), two rounds; with one GPU, the
#             process bootstrap and NCCL with one rank
#   split     `tierfft bench --backend cuda --gpus N --sizes $SIZES --points 2^26`: each size's batch
#             split across the GPUs beside one GPU
#   tests     the distributed library tests on CUDA (NCCL over the N GPUs, peer copies
#             between ranks sharing the first), then under compute-sanitizer memcheck
#             (needs .carry/tests/library)
#   links     `tierfft bench --backend cuda --shapes $SHAPES --gpus N` with each --link and
#             with --parts 1 beside the planner's parts, two rounds
#   sar       `tierfft sar --device cuda` at $SCENES (default 16384, 32768 lines and samples)
#             on one GPU and with --gpus N, two rounds: the timings line of each
# Usage (carry .carry): OUT=dir [RANKS=n] [SHAPES=list] [SIZES=list] bash scripts/device-ranks.sh STEP...
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:?OUT: a folder for the results}
tf=.carry/tierfft
export TIERFFT_CACHE_DIR=/tmp/tierfft-cubin NODEVICE_SELECT=1
# NVLink multicast stays off; cudarc looks for libnccl.so, the wheel ships libnccl.so.2.
export NCCL_NVLS_ENABLE=0
nccl=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], "lib"))')
mkdir -p /tmp/nccl-lib && ln -sf "$nccl/libnccl.so.2" /tmp/nccl-lib/libnccl.so
export LD_LIBRARY_PATH=/tmp/nccl-lib:$nccl:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$out/gpu.txt"
ranks=${RANKS:-$(nvidia-smi --list-gpus | wc -l)}
status=0
for step in "$@"; do
    case "$step" in
    launcher)
        shapes=${SHAPES:-8192x8192,512x512x512}
        for round in 1 2; do
            echo "== round $round, one process" | tee -a "$out/launcher.txt"
            $tf bench --backend cuda --shapes "$shapes" --gpus "$ranks" 2>&1 |
                tee -a "$out/launcher.txt" || status=1
            echo "== round $round, $ranks processes" | tee -a "$out/launcher.txt"
            for ((r = 0; r < ranks; r++)); do
                RANK=$r WORLD_SIZE=$ranks LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT=29511 \
                    timeout 300 $tf bench --backend cuda --shapes "$shapes" --gpus "$ranks" \
                    --launcher env > "$out/rank$r.txt" 2>&1 &
            done
            wait || status=1
            cat "$out"/rank*.txt | tee -a "$out/launcher.txt"
        done
        ;;
    split)
        $tf bench --backend cuda --gpus "$ranks" --sizes "${SIZES:-256,4096,2^16,2^20}" --points 2^26 2>&1 |
            tee -a "$out/split.txt" || status=1
        ;;
    tests)
        export TIERFFT_TEST_DEVICE=cuda TIERFFT_TEST_GPUS=$ranks
        .carry/tests/library distributed 2>&1 | tail -25 | tee -a "$out/tests.txt" || status=1
        # NCCL's initialisation probes every kernel of its own and counts the ones its wheel
        # lacks for the GPU as CUDA API errors (cudaErrorNoKernelImageForDevice in
        # ncclInitKernelsForDevice, NCCL 2.28.9): memcheck reports memory errors only.
        for t in distributed::gpu_ranks_through_peer_copies distributed::whole_arrays_on_cuda_choose_by_estimate \
            distributed::nccl_ranks_match_the_reference; do
            echo "== compute-sanitizer memcheck $t" | tee -a "$out/tests.txt"
            timeout "${SANITIZE_SECONDS:-240}" compute-sanitizer --tool memcheck --report-api-errors no \
                --error-exitcode 9 .carry/tests/library --test-threads=1 --exact "$t" \
                > "$out/memcheck-${t#*::}.log" 2>&1
            echo "exit $?" | tee -a "$out/tests.txt"
            grep -E "ERROR SUMMARY|test result|panicked" "$out/memcheck-${t#*::}.log" | head -6 |
                tee -a "$out/tests.txt"
        done
        ;;
    links)
        shapes=${SHAPES:-8192x8192,512x512x512}
        for round in 1 2; do
            for link in nccl peer; do
                for parts in "" "--parts 1"; do
                    echo "== round $round, --link $link $parts" | tee -a "$out/links.txt"
                    # shellcheck disable=SC2086 # --parts and its value, two words
                    $tf bench --backend cuda --shapes "$shapes" --gpus "$ranks" --link $link $parts 2>&1 |
                        tee -a "$out/links.txt" || status=1
                done
            done
        done
        ;;
    sar)
        for round in 1 2; do
            for size in ${SCENES:-16384 32768}; do
                for gpus in "" "--gpus $ranks"; do
                    echo "== round $round, ${size}², ${gpus:-one GPU}" | tee -a "$out/sar.txt"
                    # shellcheck disable=SC2086 # --gpus and its value, two words
                    (cd /tmp && timeout 400 "$OLDPWD/$tf" sar --device cuda --lines "$size" \
                        --samples "$size" $gpus 2>&1) | grep -E "timings|rror" |
                        tee -a "$out/sar.txt" || status=1
                done
            done
        done
        ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
    esac
done
exit $status
