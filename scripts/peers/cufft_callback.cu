// cuFFT with the multiply in an LTO callback: the fairest cuFFT peer of tierfft's fused
// FFT → multiply → inverse FFT. The forward plan's store callback multiplies each
// output point by the filter (and the 1/n scale) on its way to memory, so cuFFT makes two
// trips over the data where its plain pipeline makes three.
//
// Built as a shared library on the GPU machine (scripts/device-run.sh, step chaincb):
//   nvcc -O2 -shared -Xcompiler -fPIC -o libtierfft_cufft_callback.so \
//        scripts/peers/cufft_callback.cu -lcufft -lnvrtc
// and loaded by `tierfft bench --backend cuda --compare cufft --chain --callback-peer LIB`,
// which runs it on tierfft's own input and filter buffers, on tierfft's stream, timed by the
// same CUDA events and interleaved with both other pipelines. The callback is compiled to
// LTO-IR with NVRTC at plan time (cufftXtSetJITCallback links it into cuFFT's kernels).
//
// C interface (every call returns 0 or a cufftResult / NVRTC / CUDA error code; the text of
// the last failure is in tierfft_peer_last_error()):
//   tierfft_peer_chain_create(n, batch, filter, scale, inverse_first, stream, &handle)
//   tierfft_peer_chain_run(handle, input, output)
//   tierfft_peer_chain_destroy(handle)
#include <cuda_runtime.h>
#include <cufftXt.h>
#include <nvrtc.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

std::string last_error;

// The store callback, compiled at run time with the length as a constant (TIERFFT_N), so
// that `offset % n` is a mask or a multiply, not a 64-bit division. The signature is cuFFT's
// cufftJITCallbackStoreC; `info` points at a ChainInfo in device memory.
const char* kCallbackSource = R"(
struct ChainInfo {
    const float2* filter;
    float scale;
};

__device__ void tierfft_chain_store(void* out, unsigned long long offset, float2 v,
                                    void* info, void* shared) {
    const ChainInfo* c = static_cast<const ChainInfo*>(info);
    const float2 h = __ldg(&c->filter[offset % TIERFFT_N]);
    static_cast<float2*>(out)[offset] =
        make_float2((v.x * h.x - v.y * h.y) * c->scale, (v.x * h.y + v.y * h.x) * c->scale);
}
)";

struct ChainInfo {
    const float2* filter;
    float scale;
};

struct Chain {
    cufftHandle first = 0, second = 0;
    bool has_first = false, has_second = false;
    ChainInfo* info = nullptr;
    float2* scratch = nullptr;
    int first_dir = CUFFT_FORWARD, second_dir = CUFFT_INVERSE;
};

int fail(const std::string& what, int code) {
    last_error = what + " failed with code " + std::to_string(code);
    return code == 0 ? -1 : code;
}

// The callback for length `n` as LTO-IR for the current device's architecture.
int compile_callback(int n, std::vector<char>& ir) {
    int device = 0, major = 0, minor = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    const std::string arch = "-arch=compute_" + std::to_string(10 * major + minor);
    const std::string length = "-DTIERFFT_N=" + std::to_string(n) + "ull";
    const char* options[] = {arch.c_str(), length.c_str(), "-rdc=true", "-dlto"};
    nvrtcProgram prog;
    nvrtcResult r = nvrtcCreateProgram(&prog, kCallbackSource, "tierfft_chain_store.cu", 0,
                                       nullptr, nullptr);
    if (r != NVRTC_SUCCESS) return fail("nvrtcCreateProgram", r);
    r = nvrtcCompileProgram(prog, 4, options);
    if (r != NVRTC_SUCCESS) {
        size_t size = 0;
        nvrtcGetProgramLogSize(prog, &size);
        std::string log(size, '\0');
        nvrtcGetProgramLog(prog, log.data());
        nvrtcDestroyProgram(&prog);
        return fail("compiling the callback (" + log + ")", r);
    }
    size_t size = 0;
    nvrtcGetLTOIRSize(prog, &size);
    ir.resize(size);
    r = nvrtcGetLTOIR(prog, ir.data());
    nvrtcDestroyProgram(&prog);
    return r == NVRTC_SUCCESS ? 0 : fail("nvrtcGetLTOIR", r);
}

}  // namespace

extern "C" const char* tierfft_peer_last_error() { return last_error.c_str(); }

extern "C" void tierfft_peer_chain_destroy(void* handle) {
    Chain* c = static_cast<Chain*>(handle);
    if (c == nullptr) return;
    if (c->has_first) cufftDestroy(c->first);
    if (c->has_second) cufftDestroy(c->second);
    cudaFree(c->info);
    cudaFree(c->scratch);
    delete c;
}

// Plans `batch` transforms of `n` points: the first (forward unless `inverse_first`) stores
// through the callback into a scratch buffer, the second goes back into the output.
// `filter` is a device pointer to n complex values; `stream` a CUstream (null: default).
extern "C" int tierfft_peer_chain_create(int n, int batch, const void* filter, float scale,
                                         int inverse_first, void* stream, void** handle) {
    *handle = nullptr;
    Chain* c = new Chain;
    if (inverse_first) {
        c->first_dir = CUFFT_INVERSE;
        c->second_dir = CUFFT_FORWARD;
    }
    auto bail = [&](int code) {
        tierfft_peer_chain_destroy(c);
        return code;
    };
    std::vector<char> ir;
    if (int e = compile_callback(n, ir)) return bail(e);
    const ChainInfo host{static_cast<const float2*>(filter), scale};
    cudaError_t ce = cudaMalloc(&c->info, sizeof(ChainInfo));
    if (ce != cudaSuccess) return bail(fail("cudaMalloc (callback info)", ce));
    ce = cudaMemcpy(c->info, &host, sizeof(ChainInfo), cudaMemcpyHostToDevice);
    if (ce != cudaSuccess) return bail(fail("cudaMemcpy (callback info)", ce));
    ce = cudaMalloc(&c->scratch, sizeof(float2) * static_cast<size_t>(n) * batch);
    if (ce != cudaSuccess) return bail(fail("cudaMalloc (scratch)", ce));

    cufftResult r = cufftCreate(&c->first);
    if (r != CUFFT_SUCCESS) return bail(fail("cufftCreate", r));
    c->has_first = true;
    r = cufftCreate(&c->second);
    if (r != CUFFT_SUCCESS) return bail(fail("cufftCreate", r));
    c->has_second = true;
    // An LTO callback is set after cufftCreate and before the plan is made.
    void* info = c->info;
    r = cufftXtSetJITCallback(c->first, "tierfft_chain_store", ir.data(), ir.size(),
                              CUFFT_CB_ST_COMPLEX, &info);
    if (r != CUFFT_SUCCESS) return bail(fail("cufftXtSetJITCallback", r));
    size_t work = 0;
    r = cufftMakePlan1d(c->first, n, CUFFT_C2C, batch, &work);
    if (r != CUFFT_SUCCESS) return bail(fail("cufftMakePlan1d (with the callback)", r));
    r = cufftMakePlan1d(c->second, n, CUFFT_C2C, batch, &work);
    if (r != CUFFT_SUCCESS) return bail(fail("cufftMakePlan1d", r));
    for (cufftHandle p : {c->first, c->second}) {
        r = cufftSetStream(p, static_cast<cudaStream_t>(stream));
        if (r != CUFFT_SUCCESS) return bail(fail("cufftSetStream", r));
    }
    *handle = c;
    return 0;
}

// Enqueues the chain on the plan's stream: input → (FFT, callback) → scratch → IFFT → output.
extern "C" int tierfft_peer_chain_run(void* handle, const void* input, void* output) {
    Chain* c = static_cast<Chain*>(handle);
    auto in = const_cast<cufftComplex*>(static_cast<const cufftComplex*>(input));
    cufftResult r = cufftExecC2C(c->first, in, c->scratch, c->first_dir);
    if (r != CUFFT_SUCCESS) return fail("cufftExecC2C (with the callback)", r);
    r = cufftExecC2C(c->second, c->scratch, static_cast<cufftComplex*>(output), c->second_dir);
    return r == CUFFT_SUCCESS ? 0 : fail("cufftExecC2C", r);
}
