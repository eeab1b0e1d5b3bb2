"""Tensor-core radix-16 experiment: are 16-point DFT butterflies faster on tensor cores
(`mma.sync`) than as scalar f32 butterflies on an NVIDIA Hopper GPU, and at what accuracy?

Run on a CUDA machine with CuPy and NumPy:

    python3 scripts/experiments/mma_radix16.py               # benchmark (exit 1 on a wrong kernel)
    python3 scripts/experiments/mma_radix16.py --self-test   # NumPy only, no GPU needed

Data: `batch` (2^22) transforms of 16 complex points, contiguous ([transform][point],
real/imaginary interleaved), far larger than the L2 cache. Every kernel loads its transforms,
applies the forward 16-point DFT scaled by 1/4 (x <- F x / 4, F[j,k] = exp(-2 pi i jk/16)) R times
in a row (R = 1, 4, 16: repeating makes the kernel compute-bound so the butterfly cost shows) and
stores F^R x / 4^R. Between repetitions the data goes through shared memory, as a real FFT's
stage exchange would. Each warp owns 32 transforms and a private shared-memory slab; global
memory is read and written in coalesced 16-byte chunks, and the slab layouts are swizzled so that
no shared access has bank conflicts (checked by --self-test).

Kernels:
  scalar_f16  f16 storage (one 32-bit f16 pair per point), f32 arithmetic: one transform per
              thread, in registers; radix-16 as two radix-4 stages (4-point DFTs, twiddles
              W16^(n2 k1) with the 1/4 folded in, 4-point DFTs, output transpose). Each repetition
              a thread takes its neighbour's transform, so the shared round trip is a real exchange.
  mma_f16     f16 storage, tensor cores: per warp, tiles of 8 transforms; Y = G B with
              mma.sync.m16n8k16.row.col.f32.f16.f16.f32, G = [F_re, -F_im] / 4 (16 x 32, f16),
              B = [X_re; X_im] for Y_re and [X_im; -X_re] for Y_im (K = 32: two k16 blocks), so
              4 mma per tile. Accumulate in f32, round to f16 at every repetition. D's fragment
              layout differs from B's, so each repetition goes through shared memory. (With X^T
              as the A operand instead, D's layout would equal A's and repetitions could chain
              in registers; a real FFT still exchanges data between its stages.)
  scalar_f32  as scalar_f16 with f32 storage.
  mma_3xtf32  f32 storage, mma.sync.m16n8k8 .tf32 with the 3xTF32 split (x = hi + lo,
              product ~ hi*hi + hi*lo + lo*hi): 24 mma per tile of 8 transforms.

For each kernel and R: the output is poisoned with NaN, the kernel runs once and is checked
(any NaN anywhere fails; relative L2 error ||got - want|| / ||want|| on the first 2^16 transforms
against float64 NumPy, from the same rounded input), then timed with CUDA events (5 warm-up runs,
median of 30). Columns: median time, GDFT/s = 16-point DFTs computed per second (batch * R /
time) / 1e9, GB/s = (bytes read + bytes written) / time, the error, registers and local memory
per thread. Exit status 1 if a kernel fails to compile, writes NaN or has an error above 1e-2
(f16 storage) or 1e-5 (f32 storage).

Accuracy caveat: (F/4)^2 reverses the point order and (F/4)^4 = I, so the exact output for
R = 4 and 16 is the input itself, and wherever an intermediate result is the (rounded) input or
its reversal, storage rounding snaps most of the error back. The R = 1 error is the per-DFT
accuracy (and a wrong kernel fails at R = 1); the R > 1 errors understate how errors accumulate
over the stages of a real FFT, whose twiddles break this symmetry. Timing is unaffected.

--self-test (NumPy only) emulates the warp: the shared layouts (bijective, 16-byte chunks
contiguous, bank-conflict degree of every access), the scalar radix-4 x 4 code, and the mma
kernels lane by lane (fragment registers mapped to matrix elements with the PTX ISA layouts,
f16 / tf32 / f32 rounding emulated) against the float64 DFT.
"""

import argparse
import shlex
import sys
from collections import Counter

import numpy as np

WARPS = 8  # warps per block
TPW = 32  # transforms per warp (one per lane in the scalar kernels, four 8-transform mma tiles)
REPS = (1, 4, 16)
CHECK = 1 << 16  # transforms compared with the float64 reference
WARMUP, RUNS = 5, 30

# Shared-memory slot of point m of the warp's transform n (0 <= n < 32), in points (a 32-bit
# word per f16 point, a float2 per f32 point). The same text is C (in the kernels) and Python
# (in the self-test): with only + * >> << & ^ and parentheses, both parse it alike. XOR swizzles
# keep 16-byte chunks whole and every access free of bank conflicts.
LAYOUTS = {
    "scalar_f16": "n * 16 + (m ^ (((n >> 1) & 3) << 2))",
    "scalar_f32": "n * 16 + (m ^ ((n & 7) << 1))",
    "mma_f16": "(n >> 1) * 32 + (((n & 1) * 16 + m) ^ (((n >> 1) & 3) << 3))",
    "mma_3xtf32": "n * 16 + (m ^ (((n ^ (n >> 2)) & 3) << 2))",
}
F16_STORAGE = {"scalar_f16": True, "mma_f16": True, "scalar_f32": False, "mma_3xtf32": False}
KERNELS = tuple(LAYOUTS)
TOLERANCE = {True: 1e-2, False: 1e-5}  # by f16 storage


def ppc(name):
    """Points per 16-byte chunk: four f16 pairs or two f32 pairs."""
    return 4 if F16_STORAGE[name] else 2


def dft_stack():
    """G = [F_re, -F_im] / 4 (16 x 32): G [X_re; X_im] = Re(F X) / 4, G [X_im; -X_re] = Im(F X) / 4."""
    jk = np.outer(np.arange(16), np.arange(16))
    f = np.exp(-2j * np.pi * jk / 16) / 4
    return np.concatenate([f.real, -f.imag], axis=1)


# W16^j / 4 = c - i s for the twiddles of the scalar kernels (one table for C and the self-test).
TW_C = np.cos(2 * np.pi * np.arange(16) / 16) / 4
TW_S = np.sin(2 * np.pi * np.arange(16) / 16) / 4
TW_H = np.sqrt(0.5) / 4


def c_float(v):
    return repr(float(v)) + "f"


# ----------------------------------------------------------------------------- CUDA sources

COMMON = r"""
typedef unsigned int u32;
constexpr int WARPS = @WARPS@;
constexpr int TPW = @TPW@;
constexpr int PPC = @PPC@;        // points per 16-byte chunk
constexpr int CPT = 16 / PPC;     // chunks per transform

// Shared slot of point m of the warp's transform n, in points; chunk c = points PPC c .. PPC c + PPC - 1.
__device__ __forceinline__ int unit(int n, int m) { return @LAYOUT@; }
__device__ __forceinline__ int chunk(int n, int c) { return unit(n, c * PPC) / PPC; }

// Coalesced copies of the warp's 32 transforms (contiguous in global memory) to and from its slab.
__device__ __forceinline__ void copy_in(uint4* slab, const uint4* __restrict__ src, int lane) {
    #pragma unroll
    for (int i = 0; i < TPW * CPT / 32; ++i) {
        const int k = i * 32 + lane;
        slab[chunk(k / CPT, k % CPT)] = src[k];
    }
}
__device__ __forceinline__ void copy_out(const uint4* slab, uint4* __restrict__ dst, int lane) {
    #pragma unroll
    for (int i = 0; i < TPW * CPT / 32; ++i) {
        const int k = i * 32 + lane;
        dst[k] = slab[chunk(k / CPT, k % CPT)];
    }
}

// f16 pair (real part in the low half) <-> float2.
__device__ __forceinline__ float2 unpack_h2(u32 w) {
    float2 v;
    asm("{ .reg .b16 lo, hi;\n\t mov.b32 {lo, hi}, %2;\n\t cvt.f32.f16 %0, lo;\n\t cvt.f32.f16 %1, hi; }"
        : "=f"(v.x), "=f"(v.y) : "r"(w));
    return v;
}
__device__ __forceinline__ u32 pack_h2(float2 v) {
    u32 w;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(v.y), "f"(v.x));  // first source -> upper half
    return w;
}
"""

# The 16-byte chunk <-> PPC points of the scalar kernels.
CHUNK_F16 = r"""
__device__ __forceinline__ void unpack_chunk(uint4 q, float2* p) {
    p[0] = unpack_h2(q.x); p[1] = unpack_h2(q.y); p[2] = unpack_h2(q.z); p[3] = unpack_h2(q.w);
}
__device__ __forceinline__ uint4 pack_chunk(const float2* p) {
    return make_uint4(pack_h2(p[0]), pack_h2(p[1]), pack_h2(p[2]), pack_h2(p[3]));
}
"""
CHUNK_F32 = r"""
__device__ __forceinline__ void unpack_chunk(uint4 q, float2* p) {
    p[0] = make_float2(__uint_as_float(q.x), __uint_as_float(q.y));
    p[1] = make_float2(__uint_as_float(q.z), __uint_as_float(q.w));
}
__device__ __forceinline__ uint4 pack_chunk(const float2* p) {
    return make_uint4(__float_as_uint(p[0].x), __float_as_uint(p[0].y), __float_as_uint(p[1].x), __float_as_uint(p[1].y));
}
"""

SCALAR = r"""
// Forward 4-point DFT in place, natural order.
__device__ __forceinline__ void dft4(float2& a, float2& b, float2& c, float2& d) {
    const float2 s0 = make_float2(a.x + c.x, a.y + c.y), d0 = make_float2(a.x - c.x, a.y - c.y);
    const float2 s1 = make_float2(b.x + d.x, b.y + d.y), d1 = make_float2(b.x - d.x, b.y - d.y);
    a = make_float2(s0.x + s1.x, s0.y + s1.y);
    c = make_float2(s0.x - s1.x, s0.y - s1.y);
    b = make_float2(d0.x + d1.y, d0.y - d1.x);  // d0 - i d1
    d = make_float2(d0.x - d1.y, d0.y + d1.x);  // d0 + i d1
}

// a W16^j / 4: the repetition's 1/4 rides on the twiddles. j is a constant after unrolling, so
// the trivial twiddles cost only the scaling; j = n2 k1 takes the values 0, 1, 2, 3, 4, 6, 9.
__device__ __forceinline__ float2 twiddle(float2 a, int j) {
    const float q = 0.25f, h = @TW_H@;
    if (j == 0) return make_float2(q * a.x, q * a.y);
    if (j == 4) return make_float2(q * a.y, -q * a.x);                   // -i
    if (j == 2) return make_float2(h * (a.x + a.y), h * (a.y - a.x));    // (1 - i) / sqrt 2
    if (j == 6) return make_float2(h * (a.y - a.x), -h * (a.x + a.y));   // (-1 - i) / sqrt 2
    const float c = j == 1 ? @C1@ : j == 3 ? @C3@ : @C9@;
    const float s = j == 1 ? @S1@ : j == 3 ? @S3@ : @S9@;
    return make_float2(a.x * c + a.y * s, a.y * c - a.x * s);           // a (c - i s)
}

// X[k1 + 4 k2] = sum_n2 W4^(n2 k2) W16^(n2 k1) sum_n1 W4^(n1 k1) x[4 n1 + n2], scaled by 1/4;
// on return x[4 k1 + k2] holds X[k1 + 4 k2].
__device__ __forceinline__ void dft16(float2 (&x)[16]) {
    #pragma unroll
    for (int n2 = 0; n2 < 4; ++n2) dft4(x[n2], x[4 + n2], x[8 + n2], x[12 + n2]);
    #pragma unroll
    for (int k1 = 0; k1 < 4; ++k1) {
        #pragma unroll
        for (int n2 = 0; n2 < 4; ++n2) x[4 * k1 + n2] = twiddle(x[4 * k1 + n2], n2 * k1);
    }
    #pragma unroll
    for (int k1 = 0; k1 < 4; ++k1) dft4(x[4 * k1], x[4 * k1 + 1], x[4 * k1 + 2], x[4 * k1 + 3]);
}

extern "C" __global__ void __launch_bounds__(WARPS * 32)
@NAME@(const uint4* __restrict__ in, uint4* __restrict__ out, int reps)
{
    __shared__ uint4 smem[WARPS * TPW * CPT];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint4* slab = smem + warp * TPW * CPT;
    const size_t base = ((size_t)blockIdx.x * WARPS + warp) * TPW * CPT;
    copy_in(slab, in + base, lane);
    for (int r = 0; r < reps; ++r) {
        __syncwarp();
        const int n = lane ^ (r & 1);  // every other repetition the neighbour's transform
        float2 x[16];
        #pragma unroll
        for (int c = 0; c < CPT; ++c) unpack_chunk(slab[chunk(n, c)], x + PPC * c);
        dft16(x);
        #pragma unroll
        for (int c = 0; c < CPT; ++c) {
            float2 y[PPC];
            #pragma unroll
            for (int j = 0; j < PPC; ++j) {
                const int k = PPC * c + j;
                y[j] = x[4 * (k & 3) + (k >> 2)];
            }
            slab[chunk(n, c)] = pack_chunk(y);
        }
    }
    __syncwarp();
    copy_out(slab, out + base, lane);
}
"""

# Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type"), with
# g = lane >> 2, t = lane & 3: A a0a1 (g, 2t..2t+1), a2a3 (g+8, 2t..), a4a5 (g, 2t+8..), a6a7
# (g+8, 2t+8..); B b0b1 (rows 2t, 2t+1; col g), b2b3 (rows 2t+8, 2t+9; col g); C/D c0c1 (g, 2t..2t+1),
# c2c3 (g+8, 2t..2t+1). Rows of B and D are the 16 points, columns the tile's 8 transforms.
MMA_F16 = r"""
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

extern "C" __global__ void __launch_bounds__(WARPS * 32)
mma_f16(const uint4* __restrict__ in, uint4* __restrict__ out, const u32* __restrict__ gmat, int reps)
{
    __shared__ uint4 smem[WARPS * TPW * CPT];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    uint4* slab = smem + warp * TPW * CPT;
    u32* words = reinterpret_cast<u32*>(slab);
    const size_t base = ((size_t)blockIdx.x * WARPS + warp) * TPW * CPT;

    // A fragments of G (16 x 32 f16, row-major: 16 words a row), one per k16 block.
    u32 a[2][4];
    #pragma unroll
    for (int kb = 0; kb < 2; ++kb) {
        a[kb][0] = gmat[g * 16 + kb * 8 + t];
        a[kb][1] = gmat[(g + 8) * 16 + kb * 8 + t];
        a[kb][2] = gmat[g * 16 + kb * 8 + t + 4];
        a[kb][3] = gmat[(g + 8) * 16 + kb * 8 + t + 4];
    }
    copy_in(slab, in + base, lane);
    for (int r = 0; r < reps; ++r) {
        __syncwarp();
        // Points 2t, 2t+1 and 2t+8, 2t+9 of transform g of each tile: two adjacent words each.
        uint2 lo[TPW / 8], hi[TPW / 8];
        #pragma unroll
        for (int tile = 0; tile < TPW / 8; ++tile) {
            lo[tile] = *reinterpret_cast<const uint2*>(words + unit(tile * 8 + g, 2 * t));
            hi[tile] = *reinterpret_cast<const uint2*>(words + unit(tile * 8 + g, 2 * t + 8));
        }
        __syncwarp();  // all reads of the slab before any write
        #pragma unroll
        for (int tile = 0; tile < TPW / 8; ++tile) {
            const u32 re0 = __byte_perm(lo[tile].x, lo[tile].y, 0x5410), re1 = __byte_perm(hi[tile].x, hi[tile].y, 0x5410);
            const u32 im0 = __byte_perm(lo[tile].x, lo[tile].y, 0x7632), im1 = __byte_perm(hi[tile].x, hi[tile].y, 0x7632);
            const u32 neg = 0x80008000u;  // flips the sign of both halves
            // B registers [part][k16 block][reg]: [X_re; X_im] for Y_re, [X_im; -X_re] for Y_im.
            const u32 b[2][2][2] = {{{re0, re1}, {im0, im1}}, {{im0, im1}, {re0 ^ neg, re1 ^ neg}}};
            float y[2][4] = {};
            #pragma unroll
            for (int part = 0; part < 2; ++part) {
                #pragma unroll
                for (int kb = 0; kb < 2; ++kb) mma_m16n8k16(y[part], a[kb], b[part][kb][0], b[part][kb][1]);
            }
            #pragma unroll
            for (int i = 0; i < 4; ++i)
                words[unit(tile * 8 + 2 * t + (i & 1), g + 8 * (i >> 1))] = pack_h2(make_float2(y[0][i], y[1][i]));
        }
    }
    __syncwarp();
    copy_out(slab, out + base, lane);
}
"""

# m16n8k8 .tf32 layouts (PTX ISA, "Matrix Fragments for mma.m16n8k8"): A a0 (g, t), a1 (g+8, t),
# a2 (g, t+4), a3 (g+8, t+4); B b0 (row t, col g), b1 (row t+4, col g); C/D as for m16n8k16.
MMA_3XTF32 = r"""
__device__ __forceinline__ void mma_m16n8k8(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// x = hi + lo + O(2^-22 |x|), both tf32.
__device__ __forceinline__ void split_tf32(float x, u32& hi, u32& lo) {
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(hi) : "f"(x));
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(lo) : "f"(x - __uint_as_float(hi)));
}

extern "C" __global__ void __launch_bounds__(WARPS * 32)
mma_3xtf32(const uint4* __restrict__ in, uint4* __restrict__ out, const float* __restrict__ gmat, int reps)
{
    __shared__ uint4 smem[WARPS * TPW * CPT];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    uint4* slab = smem + warp * TPW * CPT;
    float2* pts = reinterpret_cast<float2*>(slab);
    const size_t base = ((size_t)blockIdx.x * WARPS + warp) * TPW * CPT;

    // A fragments of G (16 x 32 f32, row-major), one per k8 block, split into tf32 hi + lo.
    u32 ahi[4][4], alo[4][4];
    #pragma unroll
    for (int kb = 0; kb < 4; ++kb) {
        #pragma unroll
        for (int i = 0; i < 4; ++i)
            split_tf32(gmat[(g + 8 * (i & 1)) * 32 + kb * 8 + t + 4 * (i >> 1)], ahi[kb][i], alo[kb][i]);
    }
    copy_in(slab, in + base, lane);
    for (int r = 0; r < reps; ++r) {
        __syncwarp();
        float2 x[TPW / 8][4];  // points t, t+4, t+8, t+12 of transform g of each tile
        #pragma unroll
        for (int tile = 0; tile < TPW / 8; ++tile) {
            #pragma unroll
            for (int j = 0; j < 4; ++j) x[tile][j] = pts[unit(tile * 8 + g, t + 4 * j)];
        }
        __syncwarp();  // all reads of the slab before any write
        #pragma unroll
        for (int tile = 0; tile < TPW / 8; ++tile) {
            u32 rh[4], rl[4], ih[4], il[4];
            #pragma unroll
            for (int j = 0; j < 4; ++j) {
                split_tf32(x[tile][j].x, rh[j], rl[j]);
                split_tf32(x[tile][j].y, ih[j], il[j]);
            }
            // B registers [part][k8 block][reg]: block kb holds rows 8 kb + t, 8 kb + t + 4 of
            // [X_re; X_im] (Y_re) or [X_im; -X_re] (Y_im), i.e. points j = 2 (kb & 1) + reg.
            const u32 s = 0x80000000u;  // sign bit: -x = -hi - lo
            const u32 bh[2][4][2] = {{{rh[0], rh[1]}, {rh[2], rh[3]}, {ih[0], ih[1]}, {ih[2], ih[3]}},
                                     {{ih[0], ih[1]}, {ih[2], ih[3]}, {rh[0] ^ s, rh[1] ^ s}, {rh[2] ^ s, rh[3] ^ s}}};
            const u32 bl[2][4][2] = {{{rl[0], rl[1]}, {rl[2], rl[3]}, {il[0], il[1]}, {il[2], il[3]}},
                                     {{il[0], il[1]}, {il[2], il[3]}, {rl[0] ^ s, rl[1] ^ s}, {rl[2] ^ s, rl[3] ^ s}}};
            float y[2][4] = {};
            #pragma unroll
            for (int part = 0; part < 2; ++part) {
                #pragma unroll
                for (int kb = 0; kb < 4; ++kb) {  // the small cross terms first
                    mma_m16n8k8(y[part], alo[kb], bh[part][kb][0], bh[part][kb][1]);
                    mma_m16n8k8(y[part], ahi[kb], bl[part][kb][0], bl[part][kb][1]);
                }
                #pragma unroll
                for (int kb = 0; kb < 4; ++kb) mma_m16n8k8(y[part], ahi[kb], bh[part][kb][0], bh[part][kb][1]);
            }
            #pragma unroll
            for (int i = 0; i < 4; ++i)
                pts[unit(tile * 8 + 2 * t + (i & 1), g + 8 * (i >> 1))] = make_float2(y[0][i], y[1][i]);
        }
    }
    __syncwarp();
    copy_out(slab, out + base, lane);
}
"""


def cuda_source(name):
    """The complete CUDA C source of one kernel (compiled on its own, so one failure spares the rest)."""
    if name.startswith("scalar"):
        body = (CHUNK_F16 if F16_STORAGE[name] else CHUNK_F32) + SCALAR.replace("@NAME@", name)
        consts = {"@TW_H@": c_float(TW_H)}
        for j in (1, 3, 9):
            consts[f"@C{j}@"], consts[f"@S{j}@"] = c_float(TW_C[j]), c_float(TW_S[j])
        for key, value in consts.items():
            body = body.replace(key, value)
    else:
        body = {"mma_f16": MMA_F16, "mma_3xtf32": MMA_3XTF32}[name]
    common = (COMMON.replace("@WARPS@", str(WARPS)).replace("@TPW@", str(TPW))
              .replace("@PPC@", str(ppc(name))).replace("@LAYOUT@", LAYOUTS[name]))
    return common + body


# ----------------------------------------------------------------------------- self-test (NumPy)

def unit_fn(name):
    """LAYOUTS[name] evaluated by Python on integer arrays."""
    expr = LAYOUTS[name]
    return lambda n, m: eval(expr, {}, {"n": np.asarray(n), "m": np.asarray(m)})


def chunk_fn(name):
    unit, p = unit_fn(name), ppc(name)
    return lambda n, c: unit(n, c * p) // p


LANE = np.arange(32)
G_, T_ = LANE >> 2, LANE & 3  # groupID, threadID_in_group


def check_layout(name):
    """The layout is a bijection of the slab and keeps each 16-byte chunk whole and aligned."""
    unit, p = unit_fn(name), ppc(name)
    n, m = np.meshgrid(np.arange(TPW), np.arange(16), indexing="ij")
    u = unit(n, m)
    assert sorted(u.ravel()) == list(range(TPW * 16)), f"{name}: layout is not a bijection"
    first = unit(n, m - m % p)
    assert (first % p == 0).all() and (u == first + m % p).all(), f"{name}: chunks not contiguous"


def bank_degree(addr, width):
    """Worst bank conflict of one warp-wide shared access (byte addresses, `width` bytes a lane):
    lanes are served 128 bytes at a time; words on the same bank conflict unless identical."""
    per, worst = 128 // width, 1
    for p in range(0, 32, per):
        words = {int(a) // 4 + w for a in addr[p:p + per] for w in range(width // 4)}
        worst = max(worst, max(Counter(w % 32 for w in words).values()))
    return worst


def access_patterns(name):
    """(label, byte addresses of the 32 lanes, bytes a lane) of every shared access of the kernel."""
    unit, chunk, p = unit_fn(name), chunk_fn(name), ppc(name)
    size = 16 // p  # bytes a point (a chunk is 16 bytes)
    cpt = 16 // p  # chunks a transform (16 points)
    for i in range(TPW * cpt // 32):
        k = i * 32 + LANE
        yield "copy in/out (16 B)", chunk(k // cpt, k % cpt) * 16, 16
    if name.startswith("scalar"):
        for r in (0, 1):
            for c in range(cpt):
                yield "transform read/write (16 B)", chunk(LANE ^ r, c) * 16, 16
        return
    for tile in range(TPW // 8):
        for i in range(4):
            d = unit(tile * 8 + 2 * T_ + (i & 1), G_ + 8 * (i >> 1)) * size
            yield f"D store ({size} B)", d, size
        if name == "mma_f16":
            for h in (0, 8):
                yield "B load (8 B)", unit(tile * 8 + G_, 2 * T_ + h) * 4, 8
        else:
            for j in range(4):
                yield "B load (8 B)", unit(tile * 8 + G_, T_ + 4 * j) * 8, 8


def reference(x, reps):
    """F^R x / 4^R in float64."""
    for _ in range(reps):
        x = np.fft.fft(x, axis=-1) * 0.25
    return x


def to_complex(a):
    """[..., (re, im)] -> complex128."""
    a = a.astype(np.float64)
    return a[..., 0] + 1j * a[..., 1]


def rel_err(got, want):
    return float(np.linalg.norm(got - want) / np.linalg.norm(want))


def round_f16(z):
    return (z.real.astype(np.float16).astype(np.float64)
            + 1j * z.imag.astype(np.float16).astype(np.float64))


def round_f32(z):
    return z.astype(np.complex64).astype(np.complex128)


def round_tf32(v):
    """cvt.rna.tf32.f32: round an f32 to 10 mantissa bits, ties away from zero."""
    bits = np.asarray(v, np.float32).view(np.uint32)
    return ((bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)


def split_tf32(v):
    hi = round_tf32(v)
    return hi, round_tf32(np.asarray(v, np.float64) - hi)  # v - hi is exact in f32


def copy_in(name, x):
    """The kernel's copy_in: chunk k of the warp's 32 transforms to slab chunk chunk(k / CPT, k % CPT)."""
    chunk, p = chunk_fn(name), ppc(name)
    slab = np.full(TPW * 16, np.nan + 0j)
    for k in range(TPW * 16 // p):
        n, c = divmod(k, 16 // p)
        slab[p * chunk(n, c):p * chunk(n, c) + p] = x[n, p * c:p * c + p]
    return slab


def copy_out(name, slab):
    chunk, p = chunk_fn(name), ppc(name)
    x = np.empty((TPW, 16), complex)
    for k in range(TPW * 16 // p):
        n, c = divmod(k, 16 // p)
        x[n, p * c:p * c + p] = slab[p * chunk(n, c):p * chunk(n, c) + p]
    return x


def twiddle_mirror(a, j):
    """The kernel's twiddle(): a W16^j / 4 with the same special cases."""
    q, h = 0.25, TW_H
    if j == 0:
        return q * a
    if j == 4:
        return q * a.imag - 1j * q * a.real
    if j == 2:
        return h * (a.real + a.imag) + 1j * h * (a.imag - a.real)
    if j == 6:
        return h * (a.imag - a.real) - 1j * h * (a.real + a.imag)
    assert j in (1, 3, 9), j
    c, s = TW_C[j], TW_S[j]
    return (a.real * c + a.imag * s) + 1j * (a.imag * c - a.real * s)


def dft16_mirror(x):
    """The kernel's dft16() on (..., 16) arrays: afterwards x[4 k1 + k2] = X[k1 + 4 k2]."""
    x = x.copy()

    def dft4(i):
        a, b, c, d = (x[..., k] for k in i)
        s0, d0, s1, d1 = a + c, a - c, b + d, b - d
        x[..., i[0]], x[..., i[2]] = s0 + s1, s0 - s1
        x[..., i[1]], x[..., i[3]] = d0 - 1j * d1, d0 + 1j * d1

    for n2 in range(4):
        dft4([n2, 4 + n2, 8 + n2, 12 + n2])
    for k1 in range(4):
        for n2 in range(4):
            x[..., 4 * k1 + n2] = twiddle_mirror(x[..., 4 * k1 + n2], n2 * k1)
    for k1 in range(4):
        dft4([4 * k1, 4 * k1 + 1, 4 * k1 + 2, 4 * k1 + 3])
    return x


def emulate_scalar(name, x, reps):
    """One warp of scalar_f16 / scalar_f32, lane by lane (arithmetic in float64)."""
    chunk, p = chunk_fn(name), ppc(name)
    rnd = round_f16 if F16_STORAGE[name] else round_f32
    slab = copy_in(name, x)
    out_order = [4 * (k & 3) + (k >> 2) for k in range(16)]
    for r in range(reps):
        n = LANE ^ (r & 1)
        idx = np.stack([p * chunk(n, k // p) + k % p for k in range(16)], axis=1)  # (lane, point)
        y = dft16_mirror(slab[idx])[:, out_order]
        slab[idx] = rnd(y)
    return copy_out(name, slab)


def frag_layout(shape, operand, lane, i):
    """(row, col) of element i of operand A, B or C held by `lane`, from the PTX ISA ("Matrix
    Fragments for mma.m16n8k16 with floating point type", .f16; "for mma.m16n8k8", .tf32)."""
    g, t = lane >> 2, lane & 3
    if operand == "C":
        return g + 8 * (i >= 2), 2 * t + (i & 1)
    if shape == "m16n8k16":
        if operand == "A":
            return g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >= 4)
        return 2 * t + (i & 1) + 8 * (i >= 2), g
    if operand == "A":
        return g + 8 * (i & 1), t + 4 * (i >= 2)
    return t + 4 * i, g


def mma_emulate(shape, a, b, c):
    """D = A B + C of one warp from each lane's elements (a: 32 x 8 or 4, b: 32 x 4 or 2, c: 32 x 4),
    exact products, f32 result; every matrix element must be held by exactly one (lane, i)."""
    k = 16 if shape == "m16n8k16" else 8
    lane = LANE[:, None]

    def assemble(vals, operand, rows, cols):
        r, col = frag_layout(shape, operand, lane, np.arange(vals.shape[1])[None, :])
        count = np.zeros((rows, cols), int)
        np.add.at(count, (r, col), 1)
        assert (count == 1).all(), f"{shape} {operand}: fragment does not cover the matrix once"
        m = np.empty((rows, cols))
        m[r, col] = vals
        return m

    d = assemble(a, "A", 16, k) @ assemble(b, "B", k, 8) + assemble(c, "C", 16, 8)
    r, col = frag_layout(shape, "C", lane, np.arange(4)[None, :])
    return d.astype(np.float32).astype(np.float64)[r, col]


def emulate_mma_f16(x, reps):
    """One warp of mma_f16: the kernel's register contents, with f16 rounding."""
    unit = unit_fn("mma_f16")
    gw = dft_stack().astype(np.float16).astype(np.float64).reshape(16, 16, 2)  # [row, word, half]
    # a[kb]: elements a0..a7 = (low, high) halves of the four words the kernel loads
    a = [np.concatenate([gw[G_, kb * 8 + T_], gw[G_ + 8, kb * 8 + T_],
                         gw[G_, kb * 8 + T_ + 4], gw[G_ + 8, kb * 8 + T_ + 4]], axis=1) for kb in range(2)]
    slab = copy_in("mma_f16", x)
    for _ in range(reps):
        loads = []
        for tile in range(TPW // 8):
            u0, u1 = unit(tile * 8 + G_, 2 * T_), unit(tile * 8 + G_, 2 * T_ + 8)
            loads.append(np.stack([slab[u0], slab[u0 + 1], slab[u1], slab[u1 + 1]], axis=1))
        for tile, w in enumerate(loads):
            re, im = w.real, w.imag  # b0..b3 after the byte permutes: rows 2t, 2t+1, 2t+8, 2t+9
            b = [[re, im], [im, -re]]
            y = []
            for part in range(2):
                d = np.zeros((32, 4))
                for kb in range(2):
                    d = mma_emulate("m16n8k16", a[kb], b[part][kb], d)
                y.append(d)
            for i in range(4):
                slab[unit(tile * 8 + 2 * T_ + (i & 1), G_ + 8 * (i >> 1))] = round_f16(y[0][:, i] + 1j * y[1][:, i])
    return copy_out("mma_f16", slab)


def emulate_mma_3xtf32(x, reps):
    """One warp of mma_3xtf32: the kernel's register contents, with tf32 splits and f32 storage."""
    unit = unit_fn("mma_3xtf32")
    gm = dft_stack().astype(np.float32)
    ahi, alo = [], []
    for kb in range(4):
        v = np.stack([gm[G_ + 8 * (i & 1), kb * 8 + T_ + 4 * (i >> 1)] for i in range(4)], axis=1)
        h, lo = split_tf32(v)
        ahi.append(h)
        alo.append(lo)
    slab = copy_in("mma_3xtf32", x)
    for _ in range(reps):
        xs = [np.stack([slab[unit(tile * 8 + G_, T_ + 4 * j)] for j in range(4)], axis=1)
              for tile in range(TPW // 8)]
        for tile, xt in enumerate(xs):
            (rh, rl), (ih, il) = split_tf32(xt.real), split_tf32(xt.imag)
            bh = [[rh[:, :2], rh[:, 2:], ih[:, :2], ih[:, 2:]], [ih[:, :2], ih[:, 2:], -rh[:, :2], -rh[:, 2:]]]
            bl = [[rl[:, :2], rl[:, 2:], il[:, :2], il[:, 2:]], [il[:, :2], il[:, 2:], -rl[:, :2], -rl[:, 2:]]]
            y = []
            for part in range(2):
                d = np.zeros((32, 4))
                for kb in range(4):
                    d = mma_emulate("m16n8k8", alo[kb], bh[part][kb], d)
                    d = mma_emulate("m16n8k8", ahi[kb], bl[part][kb], d)
                for kb in range(4):
                    d = mma_emulate("m16n8k8", ahi[kb], bh[part][kb], d)
                y.append(d)
            for i in range(4):
                slab[unit(tile * 8 + 2 * T_ + (i & 1), G_ + 8 * (i >> 1))] = round_f32(y[0][:, i] + 1j * y[1][:, i])
    return copy_out("mma_3xtf32", slab)


EMULATORS = {
    "scalar_f16": lambda x, reps: emulate_scalar("scalar_f16", x, reps),
    "mma_f16": emulate_mma_f16,
    "scalar_f32": lambda x, reps: emulate_scalar("scalar_f32", x, reps),
    "mma_3xtf32": emulate_mma_3xtf32,
}


def self_test():
    """NumPy-only checks of the layouts, bank conflicts and fragment mapping; returns the exit status."""
    ok = True
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (1000, 16)) + 1j * rng.uniform(-1, 1, (1000, 16))
    got = dft16_mirror(x)[:, [4 * (k & 3) + (k >> 2) for k in range(16)]]
    err = rel_err(got, np.fft.fft(x, axis=-1) * 0.25)
    print(f"scalar radix-4 x 4 DFT (float64) vs np.fft: rel err {err:.1e}")
    ok &= err < 1e-14
    for name in KERNELS:
        check_layout(name)
        worst = {}
        for label, addr, width in access_patterns(name):
            worst[label] = max(worst.get(label, 1), bank_degree(addr, width))
        print(f"{name}: layout ok; bank conflict degree " + ", ".join(f"{k}: {v}" for k, v in worst.items()))
        ok &= all(v == 1 for v in worst.values())
        rng = np.random.default_rng(3)
        x = rng.uniform(-1, 1, (TPW, 16)) + 1j * rng.uniform(-1, 1, (TPW, 16))
        x = round_f16(x) if F16_STORAGE[name] else round_f32(x)
        for reps in REPS:
            err = rel_err(EMULATORS[name](x, reps), reference(x, reps))
            bad = not err <= TOLERANCE[F16_STORAGE[name]]
            ok &= not bad
            print(f"  emulated warp, R={reps:2d}: rel L2 err {err:.2e}{'  FAIL' if bad else ''}")
    print("self-test", "passed" if ok else "FAILED")
    return 0 if ok else 1


# ----------------------------------------------------------------------------- benchmark (CuPy)

def benchmark(log2_batch):
    import cupy

    batch = 1 << log2_batch
    per_block = WARPS * TPW
    assert batch % per_block == 0 and batch >= CHECK, "batch must be a multiple of 256 and >= 2^16"
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    gpu = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    print("GPU:", gpu, f"(sm_{props['major']}{props['minor']}),",
          f"CuPy {cupy.__version__}, CUDA runtime {cupy.cuda.runtime.runtimeGetVersion()}")
    print("command:", shlex.join([sys.executable] + sys.argv))
    print(f"batch {batch} transforms of 16 points, {WARPS * 32} threads a block, {TPW} transforms a warp\n")

    cupy.random.seed(0)
    x32 = cupy.random.rand(batch, 16, 2, dtype=cupy.float32) * 2 - 1  # [transform][point][re, im]
    inputs = {True: x32.astype(cupy.float16), False: x32}
    outputs = {f16: cupy.empty_like(v) for f16, v in inputs.items()}
    tables = {"mma_f16": cupy.asarray(dft_stack().astype(np.float16)),
              "mma_3xtf32": cupy.asarray(dft_stack().astype(np.float32))}
    host_x = {f16: to_complex(v[:CHECK].get()) for f16, v in inputs.items()}  # the rounded input

    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    failures, times = [], {}
    print(f"{'kernel':<11} {'R':>3} {'median us':>10} {'GDFT/s':>8} {'GB/s':>7} {'rel L2 err':>11}"
          f" {'regs':>5} {'lmem B':>7}")
    for name in KERNELS:
        f16 = F16_STORAGE[name]
        try:
            kernel = cupy.RawKernel(cuda_source(name), name)  # NVRTC; CuPy adds -arch of the device
            regs, lmem = kernel.num_regs, kernel.local_size_bytes  # forces the compile
        except Exception as e:  # a compile error must not hide the other kernels
            print(f"{name}: COMPILE FAILED: {type(e).__name__}: {e}")
            failures.append(f"{name}: compile failed")
            continue
        inp, out = inputs[f16], outputs[f16]
        args = (inp, out) + ((tables[name],) if name in tables else ())

        def launch(reps):
            kernel((batch // per_block,), (WARPS * 32,), args + (np.int32(reps),))

        for reps in REPS:
            out.fill(np.nan)
            launch(reps)
            nan_anywhere = bool(cupy.isnan(out).any())
            err = rel_err(to_complex(out[:CHECK].get()), reference(host_x[f16], reps))
            samples = []
            for i in range(WARMUP + RUNS):
                start.record()
                launch(reps)
                stop.record()
                stop.synchronize()
                if i >= WARMUP:
                    samples.append(cupy.cuda.get_elapsed_time(start, stop) * 1e3)
            us = float(np.median(samples))
            times[name, reps] = us
            status = ""
            if nan_anywhere or not err <= TOLERANCE[f16]:
                reason = "NaN in output" if nan_anywhere else f"error above {TOLERANCE[f16]:g}"
                status = "  FAIL: " + reason
                failures.append(f"{name} R={reps}: {reason}")
            print(f"{name:<11} {reps:>3} {us:>10.1f} {batch * reps / us / 1e3:>8.2f}"
                  f" {2 * inp.nbytes / us / 1e3:>7.0f} {err:>11.2e} {regs:>5} {lmem:>7}{status}")

    print()
    for mma, scalar in (("mma_f16", "scalar_f16"), ("mma_3xtf32", "scalar_f32")):
        ratios = [f"R={r}: {times[mma, r] / times[scalar, r]:.2f}" for r in REPS
                  if (mma, r) in times and (scalar, r) in times]
        if ratios:
            print(f"time {mma} / {scalar}: " + ", ".join(ratios))
    if failures:
        print("\nFAILED:\n  " + "\n  ".join(failures))
        return 1
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--self-test", action="store_true",
                        help="check layouts, bank conflicts and the mma fragment mapping with NumPy only")
    parser.add_argument("--log2-batch", type=int, default=22, help="log2 of the number of transforms (22)")
    args = parser.parse_args()
    sys.exit(self_test() if args.self_test else benchmark(args.log2_batch))


if __name__ == "__main__":
    main()
