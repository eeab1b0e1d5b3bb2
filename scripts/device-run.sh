#!/usr/bin/env bash
# Runs on the H100 machine (no Rust there) what scripts/device-build.sh built here:
#   bench   tierfft vs cuFFT, same GPU, same buffers, same run (1 GiB buffers, then batches
#           1 and 16), with the wgpu/Vulkan path beside them
#   tests   the numerical test suite against the CUDA backend, then again through wgpu/Vulkan
#   sanitize  compute-sanitizer memcheck and racecheck over representative plans
#   cache   the NVRTC disk cache: the second start of a plan does not compile
#   chain   fused FFT → multiply → inverse FFT against cuFFT + multiply kernel + cuFFT
#           (scenes of 2^24 points: 4096 × 4096 at n = 4096, SAR range compression)
#   variants  planner variants (radix 16, 16 points/thread, workgroup sizes) against cuFFT
#   sar     SAR focusing: each FFT step against the same step on cuFFT, RCMC and the whole
#           focusing step by step (4096² .. 16384²), then
#           `tierfft sar` end to end at 4096² and 16384² (metrics, step timings, figures)
#   shapes4096  the 4096² SAR FFT steps under several planner shapes against cuFFT
#   tune    chain shapes and register caps (--groups-per-unit) against cuFFT, 2^10..2^14
#   sartests  the device-resident, column, fusion and SAR tests on CUDA and on wgpu/Vulkan
#   anylen  any length: the benchmark's smooth and prime lengths against cuFFT
#           (1 GiB buffers, then batches 1 and 16), the any-length tests on CUDA and on
#           wgpu/Vulkan, and powers of two again beside them (no regression)
#   profile Nsight Compute counters of our kernels and cuFFT's, same run and buffers, for the
#           one-pass smooth lengths that miss cuFFT (and 1000, which meets it), and 16807
#           under a larger register budget (one pass) against the default two passes
#   profile2d  Nsight Compute counters of our 2-D C2C kernels and cuFFT's (4096², 8192²,
#           1080 × 1920), same run and buffers
#   pyprofile  Nsight Compute counters of our kernels and cuFFT's for the Python cases
#           below CuPy: 2^23 and 2^24 in one transform (shipped wisdom, then the model's
#           plan), 4096² 2-D, 1024 × 4096 in f64; batch as Python runs them
#   tuneany register caps (--groups-per-unit) on the one-pass smooth lengths, and more points
#           per thread (one pass instead of two) on smooth lengths above 16384, against cuFFT
#   wide    smooth lengths above 16384 (one pass of up to 64 points per thread on CUDA) and
#           the one-pass lengths whose registers are trimmed, against cuFFT
#   sarcli  `tierfft sar --device cuda` as a user runs it: peak host memory (against the
#           focuser's estimate) at 4096² and 16384², a scene too large for the GPU refused
#           before any work, stderr without the Vulkan loader's XDG_RUNTIME_DIR noise
#   bluestein  every convolution length the planner compares for a spread of primes, timed
#           (1 GiB batches, batches 1 and 16), beside the planner's own choice; chains on
#           Bluestein lengths against cuFFT's pipeline; the any-length and fusion tests on
#           CUDA and on wgpu/Vulkan
#   measure  Bluestein lengths with --measure (every convolution length timed at plan time,
#           the fastest kept) against cuFFT, and the Bluestein chains against cuFFT's pipeline
#   primes  lengths with prime factors 17..31 (codelets, no longer Bluestein's): the
#           any-length and f64 tests on CUDA and on wgpu/Vulkan, the f64 round trips under
#           compute-sanitizer memcheck and racecheck, and those lengths against cuFFT
#           (1 GiB buffers, then batches 1 and 16)
#   trig    the DCT and DST tests on CUDA and on wgpu/Vulkan, and their kernels under
#           compute-sanitizer memcheck, racecheck and initcheck
#   interface  after a change to the kernels' interface (bindings): the device-resident
#           (resampler), fusion, column and accuracy tests on CUDA and on wgpu/Vulkan, a few
#           lengths against cuFFT, and `tierfft sar` at 4096² end to end
#   nd      N-D and real transforms: the nd, strided, nd_fused, column and
#           device-resident tests on
#           CUDA and on wgpu/Vulkan, then the benchmark table against cuFFT (cufftPlanMany):
#           R2C and C2R 1-D 2^8..2^24, 1000, 5616 (2^26 reals per call); 2-D C2C and R2C at
#           1024², 4096², 8192², 1080×1920; 3-D at 128³, 256³, 512³ (arrays under 256 MiB
#           batched along a leading axis so that every buffer is well above the 50 MiB L2)
#   lines   column passes with 1..16 neighbouring columns per workgroup (--min-lines) on the
#           2-D and 3-D table shapes against cuFFT, two rounds; the weighted N-D and column
#           tests on CUDA and on wgpu/Vulkan
#   columns the planner's column lines against the old default (--min-lines 4), 2-D and 3-D
#           table shapes against cuFFT, two rounds
#   fusion  the real split and merge fused into one-pass lines, into any pass, or never, side
#           by side in one run (1-D R2C and C2R against cuFFT, three rounds)
#   cluster the cluster tier: the accuracy tests (cluster lengths and variants) and
#           the N-D tests on CUDA, then 2^14..2^18 against cuFFT (1 GiB buffers) with the
#           planner's clusters, without them (--cluster-blocks 1) and in clusters of 2 and 8,
#           interleaved, two rounds; R2C and C2R from 2^16 reals (half-length clusters)
#   profilecluster  Nsight Compute counters of the planner's cluster kernels (2^15..2^17) beside
#           the one-pass 2^14 kernel and the two-pass 2^16 plan, on the comparison's 1 GiB
#           buffers (our kernels only)
#   clustershapes  clusters of 16 (non-portable) and 2 against the planner and two passes,
#           2^15..2^18 against cuFFT, two rounds, then R2C and C2R at 2^16..2^18 reals
#   clustersan  compute-sanitizer memcheck, racecheck, synccheck and initcheck over the
#           cluster kernels (2^15, 2^16, 2^17, forward and inverse, batches 1 and 3)
#   multigpu  several GPUs (skipped on one): how they are linked, the distributed
#           transform tests over NCCL, `tierfft bench --gpus N` on 2-D and 3-D shapes (total,
#           all-to-all alone, local transforms alone, one GPU, scaling) beside cuFFT's own
#           multi-GPU transforms (scripts/peers/cufft_multigpu.cu, built here with nvcc),
#           NCCL's own all-to-all through PyTorch on the same bytes per rank, and
#           `tierfft sar --gpus N` against one GPU at 16384² and 32768²
#   resident  L2-resident two-pass plans: every pass of a chunk before the next,
#           the intermediate one chunk reused (--resident-mib M), 2^18..2^24 against cuFFT
#           (1 GiB buffers) for several M beside the default, interleaved, two rounds; ncu's
#           L2 hit rate and DRAM bytes for 2^20; the resident test on CUDA and under memcheck
#   long    lengths past 2^24: the largest-length accuracy test on CUDA (2^23..2^27,
#           10^8, 3·2^25) and under memcheck, 2^22..2^27 and the smooth lengths against
#           cuFFT (1 GiB buffers) as planned and with one or two lines per workgroup
#           (--min-lines 1/2: two passes to 2^27), two rounds
#   small   small batches: batches 1, 4 and 16 at 2^6..2^22 against cuFFT (time
#           per call), then the cluster lengths 2^15..2^17 in clusters of 1 (two passes), 8
#           and 16 at the same batches
#   runs    longer runs per workgroup in two- and three-pass plans: 2^18..2^27 against cuFFT
#           (1 GiB buffers) as planned, with more lines per workgroup (--threads 512/1024)
#           and at least 8 or 16 lines (--min-lines), one round; then R2C and C2R at 2^16..2^18
#           reals as planned and with the half in whole-block clusters (--cluster-blocks 8)
#   profilepasses  Nsight Compute counters of the two-pass plans at 2^18, 2^20, 2^22, 2^24 and
#           the three-pass 2^26, ours beside cuFFT's kernels, same run and 1 GiB buffers (DRAM
#           throughput and bytes, L2 hit rate, sectors per global load request, occupancy,
#           stalls): why 2^19..2^24 run at 0.77-0.9 of cuFFT
#   pass8   8 points per thread in two-pass plans (registers 40..64, no spills, where 16 points
#           need 77..96 in the twiddled last pass), with 4 and 8 lines per workgroup, against
#           the planner, 2^18..2^24 against cuFFT (1 GiB), then ncu on 2^20 for each
#   lastpass  an uneven split of two-pass plans, the last pass's lines short enough for 8 per
#           workgroup (--last-pass 512 / 1024), 2^19..2^23 against cuFFT (1 GiB), two rounds
#   shortlast  after the short last pass became the planner's (2^20 as 2048 × 512): the CUDA
#           accuracy tests at 2^17..2^22, the planner variants, resident chunks and the N-D
#           tests, then 2^18..2^22 against cuFFT (1 GiB, two rounds) and R2C/C2R at 2^21 reals
#   racecluster  compute-sanitizer racecheck over one cluster plan at a time (2^15 in clusters of
#           4, 2^16 and 2^17 in clusters of 8, batch 2, forward), where the whole cluster test
#           takes longer than a call
#   clusterbatch  where the cluster tier starts to beat two passes: 2^15..2^17 at batches 16 to
#           4096 in the planner's cluster shape against --cluster-blocks 1 (two passes)
#   final14  the Hopper-tier targets' judged command on the landed code: every length 2^1..2^27 against
#           cuFFT (1 GiB buffers), the wgpu/Vulkan path beside them up to 2^24
#   energy  energy per transform: NVML's counter over loops of at least a second per
#           library, 2^8..2^24 against cuFFT (1 GiB buffers), the chains and the SAR steps
#   chaincb the fused chain against cuFFT's three-kernel pipeline and cuFFT with the multiply in
#           an LTO store callback (scripts/peers/cufft_callback.cu, built here with nvcc into a
#           library the benchmark loads: same buffers, stream and events), 2^8..2^14, with
#           energy; the callback peer's output checked against f64 like the others
#   vulkan  the wgpu/Vulkan path beside CUDA and cuFFT at 2^4..2^14 under planner shapes: the
#           planner's, CUDA's wide shapes (16 points a thread, radix 16), Vulkan's narrow ones
#           on CUDA (8 points a thread, radix 8), and 128 / 512 / 1024 threads; other shapes
#           with VULKAN_SHAPES (flags per variant, ';' between), e.g. the split exchange
#           (half the workgroup memory): VULKAN_SHAPES=";--exchange split;--exchange split --threads 128"
#           (VULKAN_MIN_LOG2, VULKAN_MAX_LOG2: the lengths, 2^4..2^14 unless set)
#   vkstats what the NVIDIA Vulkan driver makes of the WGSL kernels (registers, shared memory,
#           spills, its assembly; .carry/vulkan_stats, VK_KHR_pipeline_executable_properties)
#           at 2^8..2^14 under the planner's shape and the shapes in VKSTATS_SHAPES
#           (';' between, default: the split exchange, at 64 and 128 threads) and the sizes in
#           VKSTATS_SIZES
#   interop the cudarc interop (a caller's stream and arrays): its test on CUDA and
#           examples/cudarc_stream
#   pyoverhead  where the host's time goes in a Python call on CuPy arrays (the python step
#           runs it too)
#   python  the Python package (.carry/*.whl, built by device-build.sh) under the machine's
#           python3 with its NumPy, CuPy and PyTorch: the pytest suite on the CPU, CUDA and
#           the H100 through Vulkan (TIERFFT_PY_DEVICES), the CuPy/PyTorch tests, and
#           `python -m tierfft.bench` against numpy.fft, scipy.fft and cupy.fft
#   cupy    CuPy arrays: `python -m tierfft.bench --gpu` (tierfft against cupy.fft and
#           cupyx.scipy.fft on the same arrays, same process, interleaved), then
#           scripts/first-call.py (new lengths' first calls: compiled first with the kernel
#           cache empty and full, then in the background with it empty and full),
#           scripts/exit-while-compiling.py, then the CUDA-array, DCT, plan, cache and fork
#           pytest cases on CUDA
#   transfers  host-device copies: `bench --transfers` (tierfft's staged copies against the
#           driver's pageable copies and pinned DMA alone, 1 MiB..1 GiB), then `tierfft sar
#           --device cuda` end to end at 4096² and 16384² with this build and, when carried,
#           .carry/tierfft-before (a build from before staging), in the same run
#   vulkantests  every test binary in .carry/tests (library, sar, resources) through wgpu/Vulkan
#           on the H100
#   vulkansweep  wgpu/Vulkan alone (no cuFFT) at 2^4..2^14, 1 GiB buffers, under workgroups of
#           64, 128 and 256 threads with 8 or 16 points a thread (radix 8 or 16)
#   squint  the SAR field-data tests (squint, L-band SRC, chirp conventions, any size) on
#           CUDA and on wgpu/Vulkan, the SAR steps with SRC against cuFFT (4096²..16384²), and
#           `tierfft sar --device cuda` on a 150 Hz squinted scene at 4096², 8192² and 16384²
#           with SRC (auto: on) and with --src off, and with the centroid estimated at 4096²
#   strip   SAR strips and pulses: the strip, replica, squint, L-band, chirp and focus
#           tests on CUDA and on wgpu/Vulkan, then `tierfft sar --device cuda` on a 20000 x
#           25000 strip whole and in blocks of 5000 lines, and the 150 Hz squinted 16384²
#           scene (SRC on)
#   csa     SAR chirp scaling and radiometry: the L-band, squint, focus, strip and
#           fusion tests on CUDA and on wgpu/Vulkan, the SAR steps (with chirp scaling's)
#           against cuFFT (4096²..16384², chains split as planned and in one kernel), and `tierfft sar --device cuda` on the 150 Hz squinted scene at
#           4096² and 8192² with --algorithm rda and csa
#   csabig  `tierfft sar --device cuda` with --algorithm rda and csa on the 150 Hz squinted
#           scene at 16384² and on a 20000 x 25000 strip whole and in blocks of 5000 lines
#   pattern the SAR antenna pattern: the pattern, L-band, squint, strip and focus tests on
#           CUDA and on wgpu/Vulkan, scripts/independent-sar.py (echoes from a NumPy simulator
#           of its own) focused on CUDA and on the H100 through Vulkan, and `tierfft sar
#           --device cuda` on a sinc²-lit 8192² scene, the pattern given and then recognised
#   double  f64: tests/library/double.rs (f64 against a double-double reference) and the
#           f32 accuracy tests on CUDA and on wgpu/Vulkan, then Z2Z against cuFFT's Z2Z at
#           2^6..2^24 (1 GiB-plus buffers, with the Vulkan column) and in batches of 1 and 16,
#           beside the f32 C2C comparison in the same run
#   ndouble f64 real and N-D: tests/library/double.rs and the f32 N-D tests on CUDA and
#           wgpu/Vulkan
#   d2z     D2Z and Z2D against cuFFT's: rows of 2^6..2^24 reals in 512 MiB
#           arrays, 2-D and 3-D, then Z2Z at 2^6..2^24 and the f32 C2C baseline (the Vulkan
#           column left out to stay inside one call)
#   half    f16 and bf16 storage: tests/library/half.rs on CUDA and wgpu/Vulkan (errors per
#           length), then C2C in f16 and in bf16 against cuFFT's (cufftXtExec) at 2^6..2^22,
#           2^27-point buffers, and the f32 C2C comparison in the same call
#   sanitizeall  compute-sanitizer over every kernel family (tests/library/families.rs: one-
#           and multi-pass rows, clusters, columns, fused chains, persistent prefetching,
#           fused operations, Bluestein, L2-resident chunks, f16/bf16, f64, real and strided
#           N-D, the resampler), one test at a time, each tool's summary per family; the tools
#           in SANITIZE_TOOLS (default memcheck synccheck initcheck racecheck)
#   soak    resource behaviour (tests/resources.rs): plans created and dropped
#           (SOAK_PLANS, default 1200) and transforms in a loop (SOAK_SECONDS, default 60) on
#           CUDA and through Vulkan, resident and device free memory after the first round
#           and at the end; then the error tests (out of memory with the bytes) on CUDA
#   wisdomhere  `tierfft tune` on the card at hand (2^1..2^24, 256 MiB runs) into
#           $out/wisdom.json, then `bench --compare cufft` 2^10..2^24 (1 GiB) with that wisdom
#           and with the planner's model (--no-wisdom), alternating, two rounds: the entries
#           worth shipping for a card the shipped wisdom does not name
#   checksum  the checksummed mode (tests/library/checksum.rs): the tests on CUDA (fault-free
#           runs, a bit flipped between passes reported for its transform, recomputed),
#           memcheck and racecheck over the GPU tests, then `bench --compare cufft` 2^8..2^24
#           (CHECK_MIN/CHECK_MAX) plain and with --checksum, ROUNDS rounds (2), each also in
#           batches CHECK_BATCHES (1,16) up to 2^CHECK_BATCH_MAX (16): the ratio's change is
#           the checksums' cost
# Usage (device tool, carry .gl .carry): scripts/device-run.sh [STEP|all]... (steps above)
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-/tmp/tierfft-out}"
mkdir -p "$out"
steps="${*:-all}"
want() { [[ " $steps " == *" $1 "* || " $steps " == *" all "* ]]; }

# Test binaries that scripts/device-build.sh packed to stay under the carry limit.
if [ -f .carry/tests.tar.xz ]; then tar xJf .carry/tests.tar.xz -C .carry; fi

# Vulkan loader for wgpu (the machine has the NVIDIA ICD but no loader; PLATFORM.md).
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export WGPU_BACKEND=vulkan XDG_RUNTIME_DIR=$(mktemp -d) TIERFFT_CACHE_DIR=/tmp/tierfft-cubin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"
status=0
tf=.carry/tierfft

# The GPU test modules live in two binaries: library (crates/tierfft/tests/library) and sar
# (crates/tierfft-sar/tests/sar). Runs module $1's tests (filter "$1::") with the arguments
# after it; focus:: also matches dist_focus::, which is skipped there.
module_tests() {
    local bin=library skip=""
    case $1 in
        any_size|chirps|dist_focus|fit|focus|lband|noise|pattern|range_compression|replica|squint|strip) bin=sar ;;
    esac
    [ "$1" = focus ] && skip="--skip dist_focus::"
    .carry/tests/$bin "${@:2}" "$1::" $skip
}

# The test modules named after $1 on CUDA, then on wgpu/Vulkan (the H100 through its
# name), each appended to $out/$1-DEVICE.log.
device_tests() {
    local log=$1 dev t
    shift
    # wgpu/Vulkan finds the GPU by its name (H100 or H200).
    local vk
    vk=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -o 'H[0-9]\{3\}' | head -1)
    for dev in cuda "${vk:-H100}"; do
        for t in "$@"; do
            echo "== $t on $dev"
            TIERFFT_TEST_DEVICE=$dev module_tests $t --test-threads=1 2>&1 | tee -a "$out/$log-$dev.log" |
                grep -E "^test |test result|panicked|run on" || status=1
        done
    done
}

if want double; then
    device_tests double double gpu_accuracy
    $tf bench --backend cuda --compare cufft --precision f64 --with-wgpu --min-log2 6 --max-log2 24 --reps 20 2>&1 | tee "$out/z2z.txt" || status=1
    $tf bench --backend cuda --compare cufft --precision f64 --small --min-log2 6 --max-log2 22 --reps 30 2>&1 | tee "$out/z2z-small.txt" || status=1
    $tf bench --backend cuda --compare cufft --min-log2 6 --max-log2 24 --reps 20 2>&1 | tee "$out/c2c.txt" || status=1
fi
if want ndouble; then
    device_tests ndouble double nd nd_fused
fi
if want d2z; then
    rows=$(for k in $(seq 6 24); do printf '%dx%d,' $((1 << (26 - k))) $((1 << k)); done)
    for dir in "" --inverse; do
        $tf bench --backend cuda --compare cufft --precision f64 --real $dir --dims 1 --reps 20 \
            --shapes "${rows%,}" 2>&1 | tee -a "$out/d2z.txt" || status=1
    done
    $tf bench --backend cuda --compare cufft --precision f64 --real --reps 20 \
        --shapes 1024x1024,4096x4096,8192x8192,256x256x256 2>&1 | tee -a "$out/d2z-nd.txt" || status=1
    $tf bench --backend cuda --compare cufft --precision f64 --reps 20 \
        --shapes 1024x1024,4096x4096,256x256x256 2>&1 | tee -a "$out/d2z-nd.txt" || status=1
    $tf bench --backend cuda --compare cufft --precision f64 --min-log2 6 --max-log2 24 --reps 20 2>&1 | tee "$out/z2z.txt" || status=1
    $tf bench --backend cuda --compare cufft --min-log2 6 --max-log2 24 --reps 20 2>&1 | tee "$out/c2c.txt" || status=1
fi
if want half; then
    device_tests half half
    for p in f16 bf16; do
        $tf bench --backend cuda --compare cufft --precision $p --min-log2 6 --max-log2 22 --reps 20 2>&1 | tee -a "$out/half.txt" || status=1
    done
    $tf bench --backend cuda --compare cufft --min-log2 6 --max-log2 22 --reps 20 2>&1 | tee "$out/c2c.txt" || status=1
fi
if want bench; then
    $tf bench --backend cuda --compare cufft --with-wgpu --min-log2 1 --max-log2 24 --reps 30 2>&1 | tee "$out/compare.txt" || status=1
    $tf bench --backend cuda --compare cufft --small --min-log2 6 --max-log2 22 --reps 50 2>&1 | tee "$out/compare-small.txt" || status=1
fi
if want final14; then
    $tf bench --backend cuda --compare cufft --with-wgpu --min-log2 1 --max-log2 24 --reps 20 2>&1 | tee "$out/final14.txt" || status=1
    # Past 2^24 without the Vulkan column: one failed wgpu plan would drop the row.
    $tf bench --backend cuda --compare cufft --min-log2 25 --max-log2 27 --reps 20 2>&1 | tee -a "$out/final14.txt" || status=1
fi
if want energy; then
    $tf bench --backend cuda --compare cufft --energy --min-log2 8 --max-log2 24 --reps 20 2>&1 | tee "$out/energy.txt" || status=1
    $tf bench --backend cuda --compare cufft --energy --sar --min-log2 12 --max-log2 14 --reps 20 2>&1 | tee "$out/energy-sar.txt" || status=1
fi
if want chaincb; then
    nvcc -O2 -shared -Xcompiler -fPIC -o /tmp/libtierfft_cufft_callback.so scripts/peers/cufft_callback.cu \
        -lcufft -lnvrtc 2>&1 | tee "$out/chaincb-build.log"
    $tf bench --backend cuda --compare cufft --chain --callback-peer /tmp/libtierfft_cufft_callback.so \
        --energy --min-log2 8 --max-log2 14 --reps 30 2>&1 | tee "$out/chaincb.txt" || status=1
fi
if want vulkan; then
    # VULKAN_SHAPES: planner flags per variant, separated by ';' (an empty one is the planner's).
    IFS=';' read -ra shapes <<< "${VULKAN_SHAPES-;--radix 16 --points-per-thread 16;--radix 8 --points-per-thread 8;--threads 128;--threads 512;--threads 1024}"
    [ ${#shapes[@]} -gt 0 ] || shapes=("")
    for v in "${shapes[@]}"; do
        echo "== shape: ${v:-planner}" | tee -a "$out/vulkan.txt"
        $tf bench --backend cuda --compare cufft --with-wgpu --min-log2 "${VULKAN_MIN_LOG2:-4}" --max-log2 "${VULKAN_MAX_LOG2:-14}" --reps 20 $v 2>&1 |
            grep -E "^ +[0-9]|rror" | tee -a "$out/vulkan.txt"
    done
fi
if want vkstats; then
    IFS=';' read -ra shapes <<< "${VKSTATS_SHAPES:-;--exchange split;--exchange split --threads 128}"
    k=$(mktemp)
    for n in ${VKSTATS_SIZES:-256 1024 2048 4096 8192 16384}; do
        for v in "${shapes[@]}"; do
            echo "== $n ${v:-planner}" | tee -a "$out/vkstats.txt"
            $tf plan $n --device gpu --source wgsl $v > "$k" 2>&1
            grep -E "^ +[0-9]+ +[0-9]+ " "$k" | tee -a "$out/vkstats.txt"
            .carry/vulkan_stats "$k" 2>&1 | grep -E "pass|Register|Shared|Local" | tee -a "$out/vkstats.txt"
        done
    done
fi
if want interop; then
    TIERFFT_TEST_DEVICE=cuda .carry/tests/library --test-threads=1 device_resident:: 2>&1 | tee "$out/interop.log" |
        grep -E "^test |test result|panicked|SKIPPED" || status=1
    .carry/cudarc_stream 2>&1 | tee -a "$out/interop.log" || status=1
fi
if want python || want pyoverhead || want cupy; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .carry/tierfft-*.whl &&
        export PYTHONPATH=/tmp/site || status=1
    # The tree's Python modules over the wheel's: the same unless edited after the build.
    cp crates/tierfft-py/python/tierfft/*.py /tmp/site/tierfft/
fi
if want pyoverhead; then
    python3 scripts/py-cuda-overhead.py 2>&1 | tee "$out/py-overhead.txt"
fi
if want python; then
    python3 -c 'import numpy, cupy, torch; print("numpy", numpy.__version__, "cupy", cupy.__version__, "torch", torch.__version__)'
    gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -o 'H[0-9]\{3\}' | head -1)
    TIERFFT_PY_DEVICES=${TIERFFT_PY_DEVICES:-cpu,cuda,${gpu_name:-H100}} python3 -m pytest -q -p no:cacheprovider \
        crates/tierfft-py/tests 2>&1 | tee "$out/pytest.log" | tail -25 || status=1
    python3 scripts/py-cuda-overhead.py 2>&1 | tee "$out/py-overhead.txt"
    PYTHONUNBUFFERED=1 python3 -m tierfft.bench --device cuda --reps ${BENCH_REPS:-20} --json "$out/pybench.json" 2>&1 |
        tee "$out/pybench.txt" || status=1
fi
if want cupy; then
    PYTHONUNBUFFERED=1 python3 -m tierfft.bench --gpu --reps ${BENCH_REPS:-30} --json "$out/cupy.json" 2>&1 |
        tee "$out/cupy.txt" || status=1
    # CUPY_BENCH_ONLY=1: the comparison alone (first calls and tests left out).
    # Compiling before the first call (the default) with the kernel cache empty and then
    # full, then in the background with it empty and then full.
    [ -n "${CUPY_BENCH_ONLY:-}" ] || for mode in sync-cold sync-warm background-cold background-warm; do
        case $mode in *-cold) rm -rf /tmp/tierfft-cubin ;; esac
        flag=""
        [ "${mode%%-*}" = background ] && flag=--background
        echo "== first calls, $mode" | tee -a "$out/first-call.txt"
        python3 scripts/first-call.py $flag 2>&1 | tee -a "$out/first-call.txt" || status=1
    done
    # A process exiting with compiles queued in the background must exit cleanly.
    if [ -z "${CUPY_BENCH_ONLY:-}" ]; then
        TIERFFT_CACHE_DIR=$(mktemp -d) python3 scripts/exit-while-compiling.py 2>&1 | tee -a "$out/first-call.txt"
        [ "${PIPESTATUS[0]}" = 0 ] || { echo "exit-while-compiling.py failed" | tee -a "$out/first-call.txt"; status=1; }
    fi
    [ -n "${CUPY_BENCH_ONLY:-}" ] || TIERFFT_PY_DEVICES=cuda python3 -m pytest -q -p no:cacheprovider crates/tierfft-py/tests/test_cuda.py \
        crates/tierfft-py/tests/test_trig.py crates/tierfft-py/tests/test_plans.py \
        crates/tierfft-py/tests/test_config.py crates/tierfft-py/tests/test_fork.py 2>&1 | tee "$out/pytest-cuda.log" | tail -15 || status=1
fi
if want transfers; then
    python3 scripts/memcpy-scaling.py 2>&1 | tee "$out/memcpy-scaling.txt"
    $tf bench --device cuda --transfers --reps 10 2>&1 | tee "$out/transfers.txt" || status=1
    for side in ${SAR_SIDES-4096 16384}; do
        for bin in $tf .carry/tierfft-before; do
            [ -x "$bin" ] || continue
            echo "== $bin sar --device cuda, $side x $side" | tee -a "$out/transfers-sar.txt"
            env -u XDG_RUNTIME_DIR "$bin" sar --device cuda --lines $side --samples $side --out /tmp/transfers-sar 2>&1 |
                grep -E "^timings|rror" | tee -a "$out/transfers-sar.txt" || status=1
        done
    done
fi
if want vulkansweep; then
    for t in 64 128 256; do
        for v in "" "--radix 16 --points-per-thread 16" "--points-per-thread 16"; do
            echo "== shape: --threads $t $v" | tee -a "$out/vulkansweep.txt"
            $tf bench --device gpu --min-log2 4 --max-log2 14 --points 2^27 --reps 20 --max-time 0 --threads $t $v 2>&1 |
                grep -E "^ +[0-9]|rror" | tee -a "$out/vulkansweep.txt"
        done
    done
fi
if want chain; then
    $tf bench --backend cuda --compare cufft --chain --min-log2 8 --max-log2 14 --reps 30 2>&1 | tee "$out/chain.txt" || status=1
    for v in "--points-per-thread 16 --radix 16" "--points-per-thread 8"; do
        echo "== chain variant: $v"
        $tf bench --backend cuda --compare cufft --chain --min-log2 10 --max-log2 13 --reps 30 $v 2>&1 |
            grep -vE "^(device|command|forward|planner|fused)" | tee -a "$out/chain-variants.txt"
    done
fi
if want tune; then
    # Chain shapes and register caps (__launch_bounds__ minimum blocks per SM) at 2^10..2^14,
    # one line per variant summary.
    for v in "" "--prefetch on" "--prefetch off" \
             "--prefetch on --points-per-thread 16 --radix 16" \
             "--points-per-thread 16 --radix 16 --groups-per-unit 2" "--prefetch on --points-per-thread 8"; do
        echo "== chain variant: ${v:-default}" | tee -a "$out/tune.txt"
        $tf bench --backend cuda --compare cufft --chain --min-log2 8 --max-log2 13 --reps 30 $v 2>&1 |
            grep -E "^ +[0-9]" | tee -a "$out/tune.txt"
    done
    for v in "" "--prefetch on"; do
        echo "== fft variant: ${v:-default}" | tee -a "$out/tune.txt"
        $tf bench --backend cuda --compare cufft --min-log2 8 --max-log2 14 --reps 20 $v 2>&1 |
            grep -E "^ +[0-9]" | tee -a "$out/tune.txt"
    done
fi
if want wisdomhere; then
    $tf tune --device cuda --min-log2 1 --max-log2 24 --out "$out/wisdom.json" 2>&1 |
        tee "$out/wisdomhere.txt" || status=1
    for round in 1 2; do
        for mode in tuned model; do
            echo "== round $round, $mode" | tee -a "$out/wisdomhere.txt"
            flag=""
            [ $mode = model ] && flag=--no-wisdom
            TIERFFT_WISDOM="$out/wisdom.json" $tf bench --backend cuda --compare cufft --min-log2 10 \
                --max-log2 24 --reps 20 $flag 2>&1 | grep -E "^ +[0-9]|rror" | tee -a "$out/wisdomhere.txt"
        done
    done
fi
if want shapes4096; then
    # The 4096² SAR FFT steps (range compression chain, column FFT, column IFFT with filter)
    # under planner shapes: more warps per SM against fewer points per thread.
    for v in "" "--radix 16 --points-per-thread 16 --threads 512" "--radix 16 --points-per-thread 16" \
             "--radix 8 --points-per-thread 16 --threads 512" "--radix 16 --points-per-thread 16 --threads 512 --groups-per-unit 1"; do
        echo "== sar shape: ${v:-default}" | tee -a "$out/shapes4096.txt"
        $tf bench --backend cuda --compare cufft --sar --min-log2 12 --max-log2 12 --reps 40 $v 2>&1 |
            grep -vE "^(device|command|forward|planner|wgpu)" | tee -a "$out/shapes4096.txt"
    done
fi
if want variants; then
    cmp="$tf bench --backend cuda --compare cufft --reps 20"
    for v in "--points-per-thread 32 --radix 16 --min-log2 12 --max-log2 14" \
             "--points-per-thread 32 --min-log2 12 --max-log2 14" \
             "--threads 1024 --min-log2 15 --max-log2 24" \
             "--threads 512 --min-log2 15 --max-log2 22"; do
        echo "== variant: $v"
        $cmp $v 2>&1 | grep -vE "^(device|command|forward|planner)" | tee -a "$out/variants.txt"
    done
fi
if want sar; then
    $tf bench --backend cuda --compare cufft --sar --min-log2 12 --max-log2 14 --reps 30 2>&1 | tee "$out/sar-steps.txt" || status=1
    for side in 4096 16384; do
        echo "== tierfft sar $side x $side"
        $tf sar --device cuda --lines $side --samples $side --out /tmp/sar-$side 2>&1 | tee "$out/sar-$side.txt" || status=1
        cp /tmp/sar-$side/metrics.json "$out/sar-$side.json"
    done
    cp /tmp/sar-4096/target-*.png /tmp/sar-4096/image.png "$out/" 2>/dev/null
fi
if want sarcli; then
    # Peak resident memory of the child, from Python's rusage (no /usr/bin/time needed).
    maxrss() { python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[1:]).returncode
print(f"peak host memory {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MiB, exit {r}")
sys.exit(r)' "$@"; }
    for side in 4096 16384; do
        echo "== tierfft sar --device cuda, $side x $side (scene $(( side * side * 8 >> 20 )) MiB)" | tee -a "$out/sarcli.txt"
        (unset XDG_RUNTIME_DIR; maxrss $tf sar --device cuda --lines $side --samples $side --out /tmp/sarcli-$side) \
            >>"$out/sarcli.txt" 2>"$out/sarcli-$side.err" || status=1
        cat "$out/sarcli-$side.err" >>"$out/sarcli.txt"
        grep -c XDG_RUNTIME_DIR "$out/sarcli-$side.err" | sed 's/^/XDG_RUNTIME_DIR lines on stderr: /' >>"$out/sarcli.txt"
    done
    echo "== 65536 x 65536 (32 GiB a buffer): refused before any work" | tee -a "$out/sarcli.txt"
    start=$(date +%s%N)
    env -u XDG_RUNTIME_DIR $tf sar --device cuda --lines 2^16 --samples 2^16 --out /tmp/sarcli-big >>"$out/sarcli.txt" 2>&1
    echo "exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms, out folder exists: $([ -e /tmp/sarcli-big ] && echo yes || echo no)" >>"$out/sarcli.txt"
    cp /tmp/sarcli-4096/overview.png /tmp/sarcli-4096/target-1-cuts.png /tmp/sarcli-4096/target-2-crop.png "$out/" 2>/dev/null
    cat "$out/sarcli.txt"
fi
if want sartests; then
    device_tests sartests device_resident columns fusion focus range_compression
fi
if want squint; then
    device_tests squint squint lband chirps any_size
    $tf bench --backend cuda --compare cufft --sar --min-log2 12 --max-log2 14 --reps 30 2>&1 | tee "$out/squint-steps.txt" || status=1
    printf '[radar]\nspeed_mps = 200.0\nantenna_m = 4.0\n' >/tmp/squint-estimated.toml
    { cat /tmp/squint-estimated.toml; printf 'doppler_centroid_hz = 150.0\n'; } >/tmp/squint.toml
    for side in 4096 8192 16384; do
        for src in auto off; do
            echo "== tierfft sar, 150 Hz squint, $side x $side, --src $src" | tee -a "$out/squint-sar.txt"
            $tf sar --device cuda --config /tmp/squint.toml --lines $side --samples $side --src $src \
                --out /tmp/squint-$side-$src 2>&1 | tee -a "$out/squint-sar.txt" || status=1
        done
    done
    echo "== tierfft sar, 150 Hz squint estimated, 4096 x 4096" | tee -a "$out/squint-sar.txt"
    $tf sar --device cuda --config /tmp/squint.toml --lines 4096 --samples 4096 --write-raw \
        --out /tmp/squint-raw >/dev/null 2>&1 || status=1
    printf 'near_range_m = %s\n' "$(python3 -c 'print(20e3 - 2048 * 299792458 / 240e6)')" >>/tmp/squint-estimated.toml
    $tf sar --device cuda --config /tmp/squint-estimated.toml --raw /tmp/squint-raw/raw.npy \
        --out /tmp/squint-est 2>&1 | tee -a "$out/squint-sar.txt" || status=1
    cp /tmp/squint-est/metrics.json "$out/squint-estimated.json"
    cp /tmp/squint-4096-auto/metrics.json "$out/squint-4096.json"
fi
if want strip; then
    device_tests strip strip replica squint lband chirps focus
    for how in whole blocks; do
        blocks=$([ $how = blocks ] && echo "--block-lines 5000")
        echo "== tierfft sar 20000 x 25000, $how" | tee -a "$out/strip.txt"
        $tf sar --device cuda --lines 20000 --samples 25000 $blocks --out /tmp/strip-$how 2>&1 | tee -a "$out/strip.txt" || status=1
        cp /tmp/strip-$how/metrics.json "$out/strip-$how.json" 2>/dev/null
        rm -rf /tmp/strip-$how
    done
    printf '[radar]\nspeed_mps = 200.0\nantenna_m = 4.0\ndoppler_centroid_hz = 150.0\n' >/tmp/squint.toml
    echo "== tierfft sar, 150 Hz squint, 16384 x 16384" | tee -a "$out/strip.txt"
    $tf sar --device cuda --config /tmp/squint.toml --lines 16384 --samples 16384 --out /tmp/squint-16384 2>&1 | tee -a "$out/strip.txt" || status=1
fi
# `tierfft sar --device cuda` on the 150 Hz squinted scene (/tmp/squint.toml) at $1 × $2
# with each algorithm, the metrics kept as csa-$1-ALGORITHM.json; extra arguments follow.
sar_algorithms() {
    local lines=$1 samples=$2
    shift 2
    printf '[radar]\nspeed_mps = 200.0\nantenna_m = 4.0\ndoppler_centroid_hz = 150.0\n' >/tmp/squint.toml
    for algorithm in rda csa; do
        echo "== tierfft sar, 150 Hz squint, $lines x $samples, --algorithm $algorithm $*" | tee -a "$out/csa-sar.txt"
        $tf sar --device cuda --config /tmp/squint.toml --lines $lines --samples $samples \
            --algorithm $algorithm "$@" --out /tmp/csa-run 2>&1 | tee -a "$out/csa-sar.txt" || status=1
        cp /tmp/csa-run/metrics.json "$out/csa-$lines-$algorithm${1:+-blocks}.json" 2>/dev/null
        rm -rf /tmp/csa-run
    done
}
if want csa; then
    device_tests csa lband squint focus strip fusion
    $tf bench --backend cuda --compare cufft --sar --min-log2 12 --max-log2 14 --reps 30 2>&1 | tee "$out/csa-steps.txt" || status=1
    # The chains in one kernel at every length (the planner splits them above 4096 on CUDA).
    $tf bench --backend cuda --compare cufft --sar --min-log2 12 --max-log2 14 --reps 30 \
        --max-chain-points 16384 2>&1 | tee "$out/csa-steps-one-kernel.txt" || status=1
    sar_algorithms 4096 4096
    sar_algorithms 8192 8192
fi
if want csabig; then
    sar_algorithms 16384 16384
    sar_algorithms 20000 25000
    sar_algorithms 20000 25000 --block-lines 5000
fi
if want pattern; then
    device_tests pattern pattern lband squint strip focus
    for dev in cuda H100; do
        echo "== independent-sar.py on $dev" | tee -a "$out/independent-sar.txt"
        python3 scripts/independent-sar.py --tierfft $tf --device $dev 2>&1 | tee -a "$out/independent-sar.txt" || status=1
    done
    printf '[radar]\nazimuth_pattern = "sinc2"\n' >/tmp/sinc2.toml
    $tf sar --device cuda --config /tmp/sinc2.toml --lines 8192 --samples 8192 --write-raw \
        --out /tmp/sinc2 2>&1 | tee "$out/pattern-sar.txt" || status=1
    printf '[radar]\nnear_range_m = %s\n' "$(python3 -c 'print(20e3 - 4096 * 299792458 / 240e6)')" >/tmp/sinc2-raw.toml
    $tf sar --device cuda --config /tmp/sinc2-raw.toml --raw /tmp/sinc2/raw.npy --out /tmp/sinc2-raw 2>&1 |
        tee -a "$out/pattern-sar.txt" || status=1
    cp /tmp/sinc2/metrics.json "$out/pattern-given.json"
    cp /tmp/sinc2-raw/metrics.json "$out/pattern-recognised.json"
fi
if want anylen; then
    lens=2187,3125,46656,16807,1000,1920,4000,5616,10000,100000,1000000,4099,10007,65521,1000003
    $tf bench --backend cuda --compare cufft --sizes $lens --reps 30 2>&1 | tee "$out/anylen.txt" || status=1
    $tf bench --backend cuda --compare cufft --small --sizes $lens --reps 50 2>&1 | tee "$out/anylen-small.txt" || status=1
    $tf bench --backend cuda --compare cufft --min-log2 8 --max-log2 24 --reps 20 2>&1 | tee "$out/anylen-pow2.txt" || status=1
    for dev in cuda H100; do
        echo "== any_length on $dev"
        TIERFFT_TEST_DEVICE=$dev .carry/tests/library --test-threads=1 any_length:: 2>&1 | tee -a "$out/anylen-tests-$dev.log" |
            grep -E "^test |test result|panicked|run on|relative" || status=1
    done
fi
if want primes; then
    device_tests primes any_length double
    for tool in memcheck racecheck; do
        echo "== compute-sanitizer $tool" | tee -a "$out/primes-sanitizer.txt"
        TIERFFT_TEST_DEVICE=cuda compute-sanitizer --tool $tool --error-exitcode 1 \
            .carry/tests/library --test-threads=1 double::round_trips_in_f64 2>&1 |
            tail -6 | tee -a "$out/primes-sanitizer.txt" || status=1
    done
    lens=17,19,23,29,31,289,4913,29791,12673,17408,42688,21945,3936256
    $tf bench --backend cuda --compare cufft --sizes $lens --reps 30 2>&1 | tee "$out/primes.txt" || status=1
    $tf bench --backend cuda --compare cufft --small --sizes $lens --reps 50 2>&1 | tee "$out/primes-small.txt" || status=1
fi
if want bluestein; then
    for n in 1009 2039 4099 10007 65521 1000003; do
        big=$(( (1 << 27) / n ))
        cands=$($tf plan $n --device h100-cuda | sed -n 's/^candidate convolution lengths[^:]*: //p' | tr -d ',')
        for b in 1 16 $big; do
            echo "== n = $n, batch $b: the planner picks m = $($tf plan $n --device cuda -b $b | sed -n 's/.*; \(a\|two\) \([0-9]*\)-point.*/\2/p')" |
                tee -a "$out/bluestein.txt"
        done
        for m in $cands; do
            echo "-- m = $m" | tee -a "$out/bluestein.txt"
            $tf bench --backend cuda --compare cufft --sizes $n --batches 1,16,$big --reps 20 --bluestein-m $m 2>&1 |
                grep -E "^ +[0-9]" | tee -a "$out/bluestein.txt" || status=1
        done
    done
    $tf bench --backend cuda --compare cufft --chain --sizes 1009,2039,4099,10007,65521,1000003 --reps 20 2>&1 |
        tee "$out/bluestein-chain.txt" || status=1
    for dev in cuda H100; do
        for t in any_length fusion; do
            echo "== $t on $dev"
            TIERFFT_TEST_DEVICE=$dev module_tests $t --test-threads=1 2>&1 | tee -a "$out/bluestein-tests-$dev.log" |
                grep -E "^test |test result|panicked|run on" || status=1
        done
    done
fi
if want measure; then
    for n in 1009 2039 4099 10007 65521 1000003; do
        for v in "" "--measure"; do
            echo "== n = $n, ${v:-bytes-moved model}" | tee -a "$out/measure.txt"
            $tf bench --backend cuda --compare cufft --sizes $n --batches 1,16,$(( (1 << 27) / n )) --reps 20 $v 2>&1 |
                grep -E "^ +[0-9]|\^" | tee -a "$out/measure.txt" || status=1
        done
    done
    $tf bench --backend cuda --compare cufft --chain --sizes 1009,2039,4099,10007,65521,1000003 --reps 20 2>&1 |
        tee "$out/measure-chain.txt" || status=1
fi
if want interface; then
    device_tests interface device_resident fusion columns gpu_accuracy
    $tf bench --backend cuda --compare cufft --sizes 256,4096,1000,4099,2^20 --reps 20 2>&1 | tee "$out/interface-bench.txt" || status=1
    (unset XDG_RUNTIME_DIR; $tf sar --device cuda --lines 4096 --samples 4096 --out /tmp/sar-interface) 2>&1 | tail -25 | tee "$out/interface-sar.txt" || status=1
fi
if want nd; then
    device_tests nd nd strided nd_fused columns device_resident
    one_d=""
    for k in 8 10 12 14 16 18 20 22 24; do one_d+="$(( 1 << (26 - k) ))x$(( 1 << k )),"; done
    one_d+="67108x1000,11949x5616"
    for dir in "" --inverse; do
        $tf bench --backend cuda --compare cufft --shapes "$one_d" --dims 1 --real $dir --reps 20 2>&1 | tee -a "$out/nd-1d.txt" || status=1
    done
    two_d=64x1024x1024,4096x4096,8192x8192,16x1080x1920
    three_d=16x128x128x128,256x256x256,512x512x512
    for real in "" --real; do
        $tf bench --backend cuda --compare cufft --shapes "$two_d" --dims 2 $real --reps 20 2>&1 | tee -a "$out/nd-2d.txt" || status=1
        $tf bench --backend cuda --compare cufft --shapes "$three_d" --dims 3 $real --reps 20 2>&1 | tee -a "$out/nd-3d.txt" || status=1
    done
fi
if want fusion; then
    # The real split and merge fused into one-pass lines only (the default), into any pass,
    # or never, side by side in one run, three rounds interleaved (1-D R2C and C2R, 2^26
    # reals per call, against cuFFT).
    shapes=16384x4096,1024x65536,256x262144,64x1048576,16x4194304,4x16777216
    for round in 1 2 3; do
        for dir in "" --inverse; do
            for fuse in one-pass any-passes never; do
                echo "== round $round ${dir:-forward} --fuse-real $fuse" | tee -a "$out/fusion.txt"
                $tf bench --backend cuda --compare cufft --shapes "$shapes" --dims 1 --real $dir \
                    --fuse-real $fuse --reps 20 2>&1 | grep -E "R2C|C2R" | tee -a "$out/fusion.txt" || status=1
            done
        done
    done
fi
if want lines; then
    # Neighbouring columns per workgroup of a column pass (--min-lines; default 4, one 32-byte
    # sector a row): fewer let 8192-point columns fit one pass, more read longer runs. The
    # 2-D and 3-D table shapes against cuFFT, variants interleaved, two rounds (ROUNDS="1"
    # for one); then the N-D (with weighted, windowed) and column tests on CUDA and on
    # wgpu/Vulkan.
    two_d=64x1024x1024,4096x4096,8192x8192,16x1080x1920
    three_d=16x128x128x128,256x256x256,512x512x512
    for round in ${ROUNDS:-1 2}; do
        for real in "" --real; do
            for v in "" "--min-lines 1" "--min-lines 2" "--min-lines 8" "--min-lines 16"; do
                echo "== round $round ${real:-c2c} 2-D ${v:-default}" | tee -a "$out/lines.txt"
                $tf bench --backend cuda --compare cufft --shapes "$two_d" --dims 2 $real --reps 20 $v 2>&1 |
                    grep -E "C2C|R2C|rror" | tee -a "$out/lines.txt" || status=1
            done
            for v in "" "--min-lines 8" "--min-lines 16"; do
                echo "== round $round ${real:-c2c} 3-D ${v:-default}" | tee -a "$out/lines.txt"
                $tf bench --backend cuda --compare cufft --shapes "$three_d" --dims 3 $real --reps 20 $v 2>&1 |
                    grep -E "C2C|R2C|rror" | tee -a "$out/lines.txt" || status=1
            done
        done
    done
    device_tests lines nd nd_fused columns
fi
if want columns; then
    # The planner's column lines (plan::column_lines) against the old default of one sector a
    # row (--min-lines 4) on the 2-D and 3-D table shapes, against cuFFT, interleaved, two
    # rounds.
    for round in 1 2; do
        for real in "" --real; do
            for v in "" "--min-lines 4"; do
                echo "== round $round ${real:-c2c} ${v:-planner}" | tee -a "$out/columns.txt"
                for shapes in "64x1024x1024,4096x4096,8192x8192,16x1080x1920 --dims 2" \
                              "16x128x128x128,256x256x256,512x512x512 --dims 3"; do
                    $tf bench --backend cuda --compare cufft --shapes $shapes $real --reps 20 $v 2>&1 |
                        grep -E "C2C|R2C|rror" | tee -a "$out/columns.txt" || status=1
                done
            done
        done
    done
fi
# Plain C2C at the lengths $2 (1 GiB buffers) under each planner variant given, against
# cuFFT, interleaved, ROUNDS rounds (default two); appended to $out/$1.
cluster_rounds() {
    local file=$1 lengths=$2 round v
    shift 2
    for round in ${ROUNDS:-1 2}; do
        for v in "$@"; do
            echo "== round $round ${v:-planner}" | tee -a "$out/$file"
            $tf bench --backend cuda --compare cufft $lengths --reps 30 $v 2>&1 |
                grep -E "^ +[0-9]|rror" | tee -a "$out/$file" || status=1
        done
    done
}
# R2C and C2R at 2^16..2^18 reals (2^26 per call), whose half-length transforms are cluster
# passes, under each planner variant given, against cuFFT; appended to $out/$1.
cluster_halves() {
    local file=$1 v dir
    shift
    for v in "$@"; do
        for dir in "" --inverse; do
            echo "== real ${dir:-forward} ${v:-planner}" | tee -a "$out/$file"
            $tf bench --backend cuda --compare cufft --shapes 1024x65536,512x131072,256x262144 \
                --dims 1 --real $dir --reps 20 $v 2>&1 | grep -E "R2C|C2R|rror" | tee -a "$out/$file" || status=1
        done
    done
}
if want cluster; then
    TIERFFT_TEST_DEVICE=cuda .carry/tests/library --test-threads=1 gpu_accuracy::lengths_2_pow_13_to_16 \
        gpu_accuracy::lengths_2_pow_17_to_20 gpu_accuracy::cluster_tier gpu_accuracy::planner_variants \
        gpu_accuracy::round_trip gpu_accuracy::batch_split 2>&1 |
        tee -a "$out/cluster-tests.log" | grep -E "^test |test result|panicked" || status=1
    TIERFFT_TEST_DEVICE=cuda .carry/tests/library --test-threads=1 nd:: 2>&1 | tee -a "$out/cluster-tests.log" |
        grep -E "^test |test result|panicked" || status=1
    cluster_rounds cluster.txt "--min-log2 14 --max-log2 18" "" "--cluster-blocks 1" "--cluster-blocks 2" \
        "--cluster-blocks 8"
    cluster_halves cluster.txt "" "--cluster-blocks 1"
fi
if want profilecluster; then
    metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
    metrics+=,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
    metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
    metrics+=,launch__block_size,launch__grid_size,launch__shared_mem_per_block_dynamic
    metrics+=,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_misc_per_issue_active.ratio
    metrics+=,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
    for v in "--min-log2 14 --max-log2 14" "--min-log2 15 --max-log2 15" \
             "--min-log2 16 --max-log2 16" "--min-log2 17 --max-log2 17" \
             "--min-log2 16 --max-log2 16 --cluster-blocks 1"; do
        echo "== profile $v" | tee -a "$out/profilecluster.txt"
        timeout 120 ncu --clock-control none --metrics "$metrics" --csv --launch-count 2 --kernel-name regex:fft_pass \
            $tf bench --backend cuda --compare cufft --reps 1 --max-time 0 $v \
            >> "$out/profilecluster.txt" 2>&1 || status=1
    done
fi
if want trig; then
    # The DCT and DST: their tests on CUDA (f32 and f64) and on wgpu/Vulkan, then their
    # kernels under compute-sanitizer.
    device_tests trig trig
    for tool in memcheck racecheck initcheck; do
        echo "== compute-sanitizer $tool"
        TIERFFT_TEST_DEVICE=cuda timeout ${SANITIZE_SECONDS:-200} compute-sanitizer --tool $tool --error-exitcode 9 \
            .carry/tests/library --test-threads=1 --exact trig::every_type_on_the_gpu 2>&1 |
            tee "$out/trigsan-$tool.log" |
            grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result|Error|error" | head -20
        echo "exit ${PIPESTATUS[0]}"
    done
fi
if want clustershapes; then
    cluster_rounds clustershapes.txt "--min-log2 15 --max-log2 18" "" "--cluster-blocks 1" \
        "--cluster-blocks 16" "--cluster-blocks 2"
    cluster_halves clustershapes.txt "" "--cluster-blocks 16"
fi
if want clustersan; then
    for tool in memcheck racecheck synccheck initcheck; do
        echo "== compute-sanitizer $tool"
        TIERFFT_TEST_DEVICE=cuda timeout ${SANITIZE_SECONDS:-140} compute-sanitizer --tool $tool --error-exitcode 9 \
            .carry/tests/library --test-threads=1 --exact gpu_accuracy::cluster_tier_for_sanitizers 2>&1 |
            tee "$out/clustersan-$tool.log" |
            grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result|Error|error" | head -20
        echo "exit ${PIPESTATUS[0]}"
    done
fi
if want profile; then
    # Counters per kernel (ours, then cuFFT's, in the bench's order: one untimed call and two
    # timed ones each). Duration, DRAM and SM throughput, occupancy, registers, shared-memory
    # bank conflicts, instructions, and the main warp stall reasons per issued instruction.
    metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
    metrics+=,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
    metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
    metrics+=,launch__block_size,launch__grid_size,launch__shared_mem_per_block_dynamic
    metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
    metrics+=,smsp__inst_executed.sum,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active
    metrics+=,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
    for n in 1000 3125 10000 2187 5616; do
        echo "== profile n = $n" | tee -a "$out/profile.txt"
        ncu --clock-control none --metrics "$metrics" --csv --launch-count 12 \
            $tf bench --backend cuda --compare cufft --sizes $n --reps 2 --max-time 0 \
            >> "$out/profile.txt" 2>&1 || status=1
    done
    for v in "" "--points-per-thread 32"; do
        echo "== 16807 and 7-smooth lines, variant: ${v:-default}" | tee -a "$out/profile-16807.txt"
        $tf bench --backend cuda --compare cufft --sizes 343,2401,16807,117649 --reps 30 $v 2>&1 |
            tee -a "$out/profile-16807.txt" || status=1
    done
    echo "== any_length on H100 (wgpu/Vulkan)"
    TIERFFT_TEST_DEVICE=H100 .carry/tests/library --test-threads=1 any_length:: 2>&1 | tee -a "$out/anylen-tests-H100.log" |
        grep -E "^test |test result|panicked|run on|relative" || status=1
fi
if want profile2d; then
    # Counters of our kernels and cuFFT's for the 2-D C2C transforms that miss cuFFT (4096²,
    # 8192²) and one that meets it (1080 × 1920, 16 images), same run and buffers: the
    # bench's first 30 launches (its check, warm-up and one timed call each, ours first).
    metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
    metrics+=,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct
    metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
    metrics+=,launch__block_size,launch__grid_size,launch__shared_mem_per_block_dynamic
    metrics+=,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
    for shape in 4096x4096 8192x8192 16x1080x1920; do
        echo "== profile $shape" | tee -a "$out/profile2d.txt"
        ncu --clock-control none --metrics "$metrics" --csv --launch-count 30 \
            $tf bench --backend cuda --compare cufft --shapes $shape --dims 2 --reps 1 --max-time 0 \
            >> "$out/profile2d.txt" 2>&1 || status=1
    done
fi
if want pyprofile; then
    metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
    metrics+=,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct
    metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
    metrics+=,launch__block_size,launch__grid_size,launch__shared_mem_per_block_dynamic
    metrics+=,launch__cluster_dim_x,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
    while read -r name args; do
        echo "== profile $name: $args" | tee -a "$out/pyprofile.txt"
        # The bench's first launches: its check, warm-up and one timed call, ours then cuFFT's.
        timeout 120 ncu --clock-control none --metrics "$metrics" --csv --launch-count 24 \
            $tf bench --backend cuda --compare cufft $args --reps 1 --max-time 0 \
            >> "$out/pyprofile.txt" 2>&1 || status=1
    done <<'CASES'
2^24 --sizes 2^24 --batches 1
2^24-model --sizes 2^24 --batches 1 --no-wisdom
2^23 --sizes 2^23 --batches 1
4096x4096 --shapes 4096x4096 --dims 2
f64-1024x4096 --sizes 4096 --batches 1024 --precision f64
CASES
fi
if want tuneany; then
    for v in "" "--groups-per-unit 2" "--groups-per-unit 3" "--groups-per-unit 4"; do
        echo "== one-pass smooth lengths, variant: ${v:-default}" | tee -a "$out/tuneany.txt"
        $tf bench --backend cuda --compare cufft --sizes 1000,1920,2187,3125,4000,5616,10000,46656,100000 \
            --reps 20 $v 2>&1 | grep -E "^ +[0-9]" | tee -a "$out/tuneany.txt" || status=1
    done
    for v in "" "--points-per-thread 32" "--points-per-thread 32 --groups-per-unit 2"; do
        echo "== smooth lengths above 16384, variant: ${v:-default}" | tee -a "$out/tuneany.txt"
        $tf bench --backend cuda --compare cufft --sizes 11979,13689,16464,16807,17496,18000,19683,21000,24576,25000,28561 \
            --reps 20 $v 2>&1 | grep -E "^ +[0-9]" | tee -a "$out/tuneany.txt" || status=1
    done
fi
if want wide; then
    $tf bench --backend cuda --compare cufft --reps 30 \
        --sizes 3125,11979,13689,16464,16807,17496,18000,19683,21000,24576,25000,28561 2>&1 |
        tee "$out/wide.txt" || status=1
fi
# library's kernels_validate module needs no GPU: skipped wherever library runs whole (the
# skip matches nothing in sar and resources).
if want tests; then
    for dev in cuda H100; do
        for t in .carry/tests/*; do
            echo "== $t on $dev"
            TIERFFT_TEST_DEVICE=$dev "$t" --test-threads=1 --skip kernels_validate:: 2>&1 |
                tee -a "$out/tests-$dev.log" | grep -E "^test |test result|panicked|run on" || status=1
        done
    done
fi
if want vulkantests; then
    # The whole suite through wgpu/Vulkan alone (after a change to Vulkan's plans).
    for t in .carry/tests/*; do
        echo "== $t on H100 (Vulkan)"
        TIERFFT_TEST_DEVICE=H100 "$t" --test-threads=1 --skip kernels_validate:: 2>&1 |
            tee -a "$out/tests-vulkan.log" | grep -E "test result|panicked|FAILED|run on" || status=1
    done
fi
if want sanitize; then
    # One pass: 2^3 packed with staged load/store, 2^8, 2^11 (radix 16), 2^12 and 2^14 (16
    # points per thread); two passes: 2^19.
    for tool in memcheck racecheck; do
        echo "== compute-sanitizer $tool"
        TIERFFT_TEST_DEVICE=cuda timeout 400 compute-sanitizer --tool $tool --error-exitcode 9 \
            .carry/tests/library --test-threads=1 properties::linearity properties::impulse 2>&1 | tee "$out/sanitize-$tool.log" |
            grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result|Error|error" | head -20
        echo "exit ${PIPESTATUS[0]}"
    done
fi
if want sanitizeall; then
    families=$(.carry/tests/library --list families:: 2>/dev/null | sed -n 's/^families::\(.*\): test$/\1/p')
    for tool in ${SANITIZE_TOOLS:-memcheck synccheck initcheck racecheck}; do
        for f in $families; do
            log="$out/sanitizeall-$tool-$f.log"
            TIERFFT_TEST_DEVICE=cuda timeout ${SANITIZE_SECONDS:-150} compute-sanitizer --tool $tool \
                --error-exitcode 9 .carry/tests/library --test-threads=1 --exact families::$f > "$log" 2>&1
            code=$?
            summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tr '\n' ' ')
            result=$(grep -E "^test result" "$log" | cut -c1-40)
            echo "$tool $f: exit $code; $summary; $result"
        done
    done
fi
if want checksum; then
    TIERFFT_TEST_DEVICE=cuda .carry/tests/library --test-threads=1 checksum:: 2>&1 |
        tee "$out/checksum-tests.log" | grep -E "^test |test result|panicked" || status=1
    for tool in memcheck racecheck; do
        echo "== compute-sanitizer $tool, checksummed transforms"
        TIERFFT_TEST_DEVICE=cuda timeout ${SANITIZE_SECONDS:-150} compute-sanitizer --tool $tool \
            --error-exitcode 9 .carry/tests/library --test-threads=1 checksum::gpu_ 2>&1 |
            tee "$out/checksum-$tool.log" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result|Error" | head
    done
    for round in $(seq ${ROUNDS:-2}); do
        for v in "" "--checksum"; do
            echo "== round $round: ${v:-plain}" | tee -a "$out/checksum.txt"
            $tf bench --backend cuda --compare cufft --min-log2 ${CHECK_MIN:-8} --max-log2 ${CHECK_MAX:-24} \
                --reps ${REPS:-20} $v 2>&1 | grep -E "^ +[0-9]|rror" | tee -a "$out/checksum.txt"
            echo "== round $round: ${v:-plain}, batches ${CHECK_BATCHES:-1,16}" | tee -a "$out/checksum.txt"
            $tf bench --backend cuda --compare cufft --min-log2 ${CHECK_MIN:-8} --max-log2 ${CHECK_BATCH_MAX:-16} \
                --batches ${CHECK_BATCHES:-1,16} --reps ${REPS:-20} $v 2>&1 | grep -E "^ +[0-9]|rror" |
                tee -a "$out/checksum.txt"
        done
    done
fi
if want soak; then
    for dev in cuda H100; do
        echo "== resources on $dev"
        TIERFFT_TEST_DEVICE=$dev TIERFFT_SOAK_PLANS=${SOAK_PLANS:-1200} TIERFFT_SOAK_SECONDS=${SOAK_SECONDS:-60} \
            .carry/tests/resources --test-threads=1 --nocapture 2>&1 | tee "$out/soak-$dev.log" |
            grep -E "plans:|calls over|test result|panicked" || status=1
    done
    echo "== errors on CUDA"
    TIERFFT_TEST_DEVICE=cuda .carry/tests/library --test-threads=1 errors:: 2>&1 | tee "$out/errors-cuda.log" |
        grep -E "test result|panicked|FAILED" || status=1
fi
if want multigpu; then
    # On one GPU this checks what it can: the tests (ranks sharing the GPU through host
    # memory; NCCL with one rank), the bench's paths with one rank, and that the cuFFT peer
    # builds.
    gpus=$(nvidia-smi -L | grep -c "^GPU")
    # NVLink multicast stays off (KINDS.md). cudarc looks for libnccl.so; the wheel ships
    # libnccl.so.2.
    export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
    nccl=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], "lib"))')
    mkdir -p /tmp/nccl-lib && ln -sf "$nccl/libnccl.so.2" /tmp/nccl-lib/libnccl.so
    export LD_LIBRARY_PATH=/tmp/nccl-lib:${LD_LIBRARY_PATH:-}
    { nvidia-smi topo -m; ls "$nccl"; } 2>&1 | tee "$out/multigpu-topo.txt"
    echo "== dist tests, $gpus GPU(s)"
    for t in distributed dist_focus; do
        TIERFFT_TEST_DEVICE=cuda TIERFFT_TEST_GPUS=$gpus module_tests $t --test-threads=1 --nocapture 2>&1 |
            tee -a "$out/multigpu-tests.log" | grep -E "^test |test result|panicked|relative difference" || status=1
    done
    # The row copies and exchanges under compute-sanitizer (ranks sharing GPU 0).
    echo "== compute-sanitizer memcheck, distributed transforms"
    TIERFFT_TEST_DEVICE=cuda timeout ${SANITIZE_SECONDS:-200} compute-sanitizer --tool memcheck --error-exitcode 9 \
        .carry/tests/library --test-threads=1 --exact distributed::gpu_ranks_through_host_memory 2>&1 |
        tee "$out/multigpu-memcheck.log" | grep -E "ERROR SUMMARY|test result|Error" | head -20
    echo "exit ${PIPESTATUS[0]}"
    nvcc -O2 -o /tmp/cufft_multigpu scripts/peers/cufft_multigpu.cu -lcufft 2>&1 | tee "$out/multigpu-peer-build.log"
    if (( gpus < 2 )); then
        $tf bench --backend cuda --gpus 1 --shapes 4096x4096,256x256x256 --reps 5 2>&1 | tee "$out/multigpu.txt" || status=1
        $tf sar --device cuda --gpus 1 --out /tmp/sar-1 2>&1 | grep -E "timings|error" | tee -a "$out/multigpu.txt" || status=1
        /tmp/cufft_multigpu 1 4096x4096 3 2>&1 | tee -a "$out/multigpu.txt"
    else
        shapes=${DIST_SHAPES:-4096x4096,8192x8192,16384x16384,32768x32768,256x256x256,512x512x512,1024x1024x1024}
        for n in $(seq 2 $gpus); do
            $tf bench --backend cuda --gpus $n --shapes $shapes --reps ${REPS:-20} 2>&1 | tee -a "$out/multigpu.txt" || status=1
            /tmp/cufft_multigpu $n $shapes ${REPS:-20} 2>&1 | tee -a "$out/multigpu.txt"
        done
        $tf bench --backend cuda --gpus $gpus --shapes 32768x32768,1024x1024x1024 --natural-spectrum \
            --reps ${REPS:-20} 2>&1 | tee -a "$out/multigpu.txt" || status=1
        # Each rank's slab, MiB: 4096² .. 32768² (and 256³ .. 1024³) over $gpus GPUs.
        mib=$(python3 -c "print(','.join(str(max(1, 8 * n * n // $gpus >> 20)) for n in (4096, 8192, 16384, 32768)))")
        python3 scripts/nccl_alltoall.py $gpus $mib 20 2>&1 | tee -a "$out/multigpu.txt" || status=1
        # SAR focusing spread over the GPUs against one GPU, same scene.
        for side in ${SAR_SIDES:-16384 32768}; do
            for n in 1 $gpus; do
                echo "== tierfft sar $side² on $n GPU(s)" | tee -a "$out/multigpu-sar.txt"
                $tf sar --device cuda --gpus $n --lines $side --samples $side --out "/tmp/sar-$side-$n" 2>&1 |
                    grep -E "timings|^ +[0-9]|error" | tee -a "$out/multigpu-sar.txt" || status=1
            done
        done
    fi
fi
if want resident; then
    TIERFFT_TEST_DEVICE=cuda .carry/tests/library --test-threads=1 gpu_accuracy::resident gpu_accuracy::planner_variants 2>&1 |
        tee "$out/resident-tests.log" | grep -E "^test |test result|panicked" || status=1
    TIERFFT_TEST_DEVICE=cuda timeout ${SANITIZE_SECONDS:-150} compute-sanitizer --tool memcheck --error-exitcode 9 \
        .carry/tests/library --test-threads=1 --exact gpu_accuracy::resident_chunks_are_correct 2>&1 |
        tee "$out/resident-memcheck.log" | grep -E "ERROR SUMMARY|test result|Error" | head
    for round in $(seq ${ROUNDS:-2}); do
        for v in "" "--resident-mib 12" "--resident-mib 24" "--resident-mib 32" "--resident-mib 48"; do
            echo "== round $round: ${v:-default}" | tee -a "$out/resident.txt"
            $tf bench --backend cuda --compare cufft --min-log2 18 --max-log2 24 --reps ${REPS:-20} $v 2>&1 |
                grep -E "^ +[0-9]" | tee -a "$out/resident.txt"
        done
    done
    metrics=gpu__time_duration.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum
    metrics+=,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
    for v in "" "--resident-mib 24"; do
        echo "== ncu 2^20 ${v:-default}" | tee -a "$out/resident-ncu.txt"
        # Cache control off, whole-program replay: ncu's default flushes L2 before each kernel.
        ncu --clock-control none --cache-control none --replay-mode application --metrics "$metrics" --csv \
            --kernel-name regex:fft_pass --launch-skip 4 --launch-count 8 \
            $tf bench --backend cuda --sizes 2^20 --points 2^27 --reps 2 --max-time 0 $v >> "$out/resident-ncu.txt" 2>&1 || status=1
    done
fi
if want long; then
    TIERFFT_TEST_DEVICE=cuda .carry/tests/library --test-threads=1 --exact gpu_accuracy::largest_lengths_are_correct \
        --nocapture 2>&1 | tee "$out/long-tests.log" | grep -E "error|test result|panicked" || status=1
    TIERFFT_TEST_DEVICE=cuda timeout ${SANITIZE_SECONDS:-200} compute-sanitizer --tool memcheck --error-exitcode 9 \
        .carry/tests/library --test-threads=1 --exact gpu_accuracy::largest_lengths_are_correct 2>&1 |
        tee "$out/long-memcheck.log" | grep -E "ERROR SUMMARY|test result|Error" | head
    for round in $(seq ${ROUNDS:-2}); do
        for v in "" "--min-lines 1" "--min-lines 2"; do
            echo "== round $round: ${v:-default}" | tee -a "$out/long.txt"
            $tf bench --backend cuda --compare cufft --sizes ${LONG_SIZES:-2^22,2^23,2^24,2^25,2^26,2^27,100000000,100663296} \
                --reps ${REPS:-20} $v 2>&1 | grep -E "^ +[0-9]|rror" | tee -a "$out/long.txt"
        done
    done
fi
if want small; then
    echo "== batches 1, 4, 16" | tee -a "$out/small.txt"
    $tf bench --backend cuda --compare cufft --min-log2 6 --max-log2 22 --batches 1,4,16 \
        --reps ${REPS:-20} 2>&1 | grep -vE "^\s*$" | tee -a "$out/small.txt"
    for c in 1 8 16; do
        echo "== cluster lengths, --cluster-blocks $c" | tee -a "$out/small.txt"
        $tf bench --backend cuda --compare cufft --sizes 2^15,2^16,2^17 --batches 1,4,16 \
            --cluster-blocks $c --reps ${REPS:-20} 2>&1 | grep -E "^ +[0-9]|rror" | tee -a "$out/small.txt"
    done
fi
if want runs; then
    for v in "" "--threads 512" "--threads 1024" "--min-lines 8" "--min-lines 16"; do
        echo "== ${v:-default}" | tee -a "$out/runs.txt"
        $tf bench --backend cuda --compare cufft --min-log2 18 --max-log2 27 --reps ${REPS:-20} $v 2>&1 |
            grep -E "^ +[0-9]|rror" | tee -a "$out/runs.txt"
    done
    for v in "" "--cluster-blocks 8"; do
        for dir in "" "--inverse"; do
            echo "== real ${dir:-forward} ${v:-default}" | tee -a "$out/runs.txt"
            $tf bench --backend cuda --compare cufft --shapes 1024x65536,512x131072,256x262144 --dims 1 --real \
                $dir $v --reps ${REPS:-20} 2>&1 | grep -E "^ +[0-9]|rror" | tee -a "$out/runs.txt"
        done
    done
fi
if want profilepasses; then
    metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
    metrics+=,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct
    metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
    metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
    metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
    metrics+=,launch__block_size,launch__grid_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
    metrics+=,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
    for k in 18 20 22 24 26; do
        echo "== profile 2^$k" | tee -a "$out/profilepasses.txt"
        # Every kernel of the untimed first call of each library (ours first, then cuFFT's).
        timeout 120 ncu --clock-control none --metrics "$metrics" --csv --launch-count 8 \
            $tf bench --backend cuda --compare cufft --sizes 2^$k --reps 1 --max-time 0 \
            >> "$out/profilepasses.txt" 2>&1 || status=1
    done
fi
if want pass8; then
    for v in "" "--points-per-thread 8" "--points-per-thread 8 --min-lines 8"; do
        echo "== ${v:-default}" | tee -a "$out/pass8.txt"
        $tf bench --backend cuda --compare cufft --min-log2 18 --max-log2 24 --reps ${REPS:-20} $v 2>&1 |
            grep -E "^ +[0-9]|rror" | tee -a "$out/pass8.txt"
    done
    metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct
    metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
    metrics+=,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
    for v in "" "--points-per-thread 8" "--points-per-thread 8 --min-lines 8"; do
        echo "== ncu 2^20 ${v:-default}" | tee -a "$out/pass8-ncu.txt"
        timeout 100 ncu --clock-control none --metrics "$metrics" --csv --launch-count 2 --kernel-name regex:fft_pass \
            $tf bench --backend cuda --sizes 2^20 --points 2^27 --reps 1 --max-time 0 $v >> "$out/pass8-ncu.txt" 2>&1 || status=1
    done
fi
if want lastpass; then
    for round in 1 2; do
        for v in "" "--last-pass 512" "--last-pass 1024"; do
            echo "== round $round ${v:-default}" | tee -a "$out/lastpass.txt"
            $tf bench --backend cuda --compare cufft --min-log2 19 --max-log2 23 --reps ${REPS:-20} $v 2>&1 |
                grep -E "^ +[0-9]|rror" | tee -a "$out/lastpass.txt"
        done
    done
fi
if want shortlast; then
    TIERFFT_TEST_DEVICE=cuda .carry/tests/library --test-threads=1 gpu_accuracy::lengths_2_pow_17 \
        gpu_accuracy::lengths_2_pow_21 gpu_accuracy::planner_variants gpu_accuracy::resident 2>&1 |
        grep -E "^test |test result|panicked" | tee "$out/shortlast-tests.txt" || status=1
    TIERFFT_TEST_DEVICE=cuda .carry/tests/library --test-threads=2 nd:: 2>&1 | grep -E "test result|panicked" |
        tee -a "$out/shortlast-tests.txt" || status=1
    for round in 1 2; do
        echo "== round $round" | tee -a "$out/shortlast.txt"
        $tf bench --backend cuda --compare cufft --min-log2 18 --max-log2 22 --reps ${REPS:-20} 2>&1 |
            grep -E "^ +[0-9]|rror" | tee -a "$out/shortlast.txt"
    done
    for dir in "" "--inverse"; do
        $tf bench --backend cuda --compare cufft --shapes 64x2097152 --dims 1 --real $dir --reps ${REPS:-20} 2>&1 |
            grep -E "^ +[0-9]|rror" | tee -a "$out/shortlast.txt"
    done
fi
if want racecluster; then
    for nc in 15:4 16:8 17:8; do
        k=${nc%:*}
        echo "== racecheck 2^$k in clusters of ${nc#*:}, batch 2" | tee -a "$out/racecluster.txt"
        timeout 170 compute-sanitizer --tool racecheck --error-exitcode 9 $tf bench --backend cuda --sizes 2^$k \
            --points $((2 << k)) --reps 1 --max-time 0 --cluster-blocks ${nc#*:} > "$out/racecluster-$k.log" 2>&1 ||
            status=1
        grep -E "RACECHECK SUMMARY" "$out/racecluster-$k.log" | tee -a "$out/racecluster.txt"
    done
fi
if want clusterbatch; then
    for nc in 2^15:4 2^16:8 2^17:8; do
        for c in 1 ${nc#*:}; do
            echo "== ${nc%:*}, --cluster-blocks $c" | tee -a "$out/clusterbatch.txt"
            $tf bench --backend cuda --compare cufft --sizes ${nc%:*} --batches 16,32,64,128,256,512,1024,4096 \
                --cluster-blocks $c --reps ${REPS:-20} 2>&1 | grep -E "^ +[0-9]|rror" | tee -a "$out/clusterbatch.txt"
        done
    done
fi
if want cache; then
    rm -rf "$TIERFFT_CACHE_DIR"
    for run in first second; do
        start=$(date +%s%N)
        $tf bench --backend cuda --min-log2 10 --max-log2 24 --reps 1 --points 2^20 >/dev/null 2>&1
        echo "$run run (15 plans): $(( ($(date +%s%N) - start) / 1000000 )) ms, cache holds $(ls "$TIERFFT_CACHE_DIR" | grep -c cubin) cubins"
    done | tee "$out/cache.txt"
fi
exit $status
