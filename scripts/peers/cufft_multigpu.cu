// cuFFT's own multi-GPU transforms (cufftXt over the GPUs of one host): the peer of
// `tierfft bench --gpus N`. Complex forward transforms, in place, the output
// left in cuFFT's shuffled (transposed) layout as ours is, timed the same way: host clock
// from the call until every GPU is done, median of REPS runs after one untimed run.
//
// Built and run on the GPU machine by scripts/device-run.sh (step multigpu):
//   nvcc -O2 -o cufft_multigpu scripts/peers/cufft_multigpu.cu -lcufft
//   ./cufft_multigpu GPUS SHAPE[,SHAPE...] REPS      (SHAPE: 4096x4096 or 512x512x512)
#include <cuda_runtime.h>
#include <cufftXt.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

// Reports a failed call with where it was made and moves on to the next shape.
#define TRY(call)                                                                  \
    do {                                                                           \
        int status_ = static_cast<int>(call);                                      \
        if (status_ != 0) {                                                        \
            std::printf("%16s   failed: %s = %d (line %d)\n", name.c_str(), #call,  \
                        status_, __LINE__);                                        \
            return;                                                                \
        }                                                                          \
    } while (0)

static std::vector<long long> parse_shape(const std::string& s) {
    std::vector<long long> shape;
    std::stringstream in(s);
    std::string axis;
    while (std::getline(in, axis, 'x')) shape.push_back(std::atoll(axis.c_str()));
    return shape;
}

static void sync_all(int gpus) {
    for (int g = 0; g < gpus; ++g) {
        cudaSetDevice(g);
        cudaDeviceSynchronize();
    }
}

static void run(int gpus, const std::string& name, int reps) {
    std::vector<long long> shape = parse_shape(name);
    std::vector<int> ids(gpus);
    for (int g = 0; g < gpus; ++g) ids[g] = g;
    size_t elements = 1;
    for (long long n : shape) elements *= static_cast<size_t>(n);

    cufftHandle plan;
    TRY(cufftCreate(&plan));
    TRY(cufftXtSetGPUs(plan, gpus, ids.data()));
    std::vector<size_t> work(gpus);
    if (shape.size() == 2) {
        TRY(cufftMakePlan2d(plan, (int)shape[0], (int)shape[1], CUFFT_C2C, work.data()));
    } else if (shape.size() == 3) {
        TRY(cufftMakePlan3d(plan, (int)shape[0], (int)shape[1], (int)shape[2], CUFFT_C2C,
                            work.data()));
    } else {
        std::printf("%16s   skipped: 2-D and 3-D only\n", name.c_str());
        return;
    }
    cudaLibXtDesc* data = nullptr;
    TRY(cufftXtMalloc(plan, &data, CUFFT_XT_FORMAT_INPLACE));
    std::vector<float2> host(elements);
    unsigned long long s = 0x9e3779b97f4a7c15ull;
    for (float2& z : host) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        z.x = (float)(s >> 40) / (float)(1 << 23) - 1.0f;
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        z.y = (float)(s >> 40) / (float)(1 << 23) - 1.0f;
    }
    TRY(cufftXtMemcpy(plan, data, host.data(), CUFFT_COPY_HOST_TO_DEVICE));
    TRY(cufftXtExecDescriptorC2C(plan, data, data, CUFFT_FORWARD));
    sync_all(gpus);
    std::vector<double> seconds;
    for (int r = 0; r < reps; ++r) {
        auto t = std::chrono::steady_clock::now();
        TRY(cufftXtExecDescriptorC2C(plan, data, data, CUFFT_FORWARD));
        sync_all(gpus);
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
    }
    std::sort(seconds.begin(), seconds.end());
    size_t workspace = 0;
    for (size_t w : work) workspace = std::max(workspace, w);
    std::printf("%16s %5d %10.3f %12.1f\n", name.c_str(), gpus, 1e3 * seconds[seconds.size() / 2],
                workspace / 1048576.0);
    cufftXtFree(data);
    cufftDestroy(plan);
}

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s GPUS SHAPE[,SHAPE...] [REPS]\n", argv[0]);
        return 2;
    }
    int gpus = std::atoi(argv[1]);
    int reps = argc > 3 ? std::atoi(argv[3]) : 20;
    int version = 0;
    cufftGetVersion(&version);
    std::printf("cuFFT %d multi-GPU (cufftXt), %d GPUs, complex forward in place, median of %d\n",
                version, gpus, reps);
    std::printf("%16s %5s %10s %12s\n", "shape", "gpus", "cuFFT ms", "work MiB/GPU");
    std::stringstream in(argv[2]);
    std::string name;
    while (std::getline(in, name, ',')) run(gpus, name, reps);
    return 0;
}
