/* gpuimg bench: the GPU's alpha divisions (cuda/common.cuh) against the CPU's integers, on the GPU.
 *  - div_small, the exact 1:2 alpha resize's: every A in [0, 4095] and every S in [0, 255 A],
 *    against floor((2S + A) / 2A): about 2.1e9 pairs.
 *  - div_round, round(S / A) ties up (the CPU's q + (r >= A - r)), in its two ranges: 8-bit sums in
 *    uint32_t, every A in [0, 2^24) with the S at and around each of its 256 ties and exact
 *    quotients plus 64 others (about 2.3e10 pairs); 16-bit sums in uint64_t (A < 2^48, quotients to
 *    65535), 2^22 A's of every bit length with 66 quotients each, S at and around them.
 * Each line gives the pairs checked, how many differ (the first few printed), and how many a
 * weakened formula gets wrong, which shows the check can fail: div_small without its 2^-14,
 * div_round with 1/2 in place of 1/2 + 1/16. Exit 0 when none differ. Build on a machine with a
 * GPU: nvcc -O3 -std=c++17 -Icuda -I. -o div_check bench/div_check.cu */
#include <cstdio>
#include "cuda/common.cuh"

enum { SMALL, R8, R16, NCHK };
__device__ unsigned long long bad[NCHK], checked[NCHK], weak[NCHK];
__device__ unsigned long long first_bad[NCHK][4][2];

__device__ void differs(int chk, unsigned long long S, unsigned long long A)
{
    const unsigned long long k = atomicAdd(&bad[chk], 1ull);
    if (k < 4) {
        first_bad[chk][k][0] = S;
        first_bad[chk][k][1] = A;
    }
}

__global__ void check_small(void)
{
    const uint32_t A = blockIdx.x, top = 255u * A;
    const float Af = (float)A, r1 = rcp_refined(2.0f * Af);
    unsigned long long n = 0, nw = 0;
    for (uint32_t S = threadIdx.x; S <= top; S += blockDim.x, n++) {
        const uint32_t want = A ? (2u * S + A) / (2u * A) : 0u;
        if (div_small(S, Af, r1) != want)
            differs(SMALL, S, A);
        if (A && __float2uint_rd(fmaf(2.0f, (float)S, Af) * r1) != want)
            nw++;
    }
    atomicAdd(&checked[SMALL], n);
    atomicAdd(&weak[SMALL], nw);
}

/* div_round with 1/2 for 1/2 + 1/16: an estimate just below a tie comes out one low */
template <typename U> __device__ uint32_t div_weak(U S, U A, float rA)
{
    typedef typename std::make_signed<U>::type I;
    const uint32_t e = __float2uint_rz(fmaf((float)S, rA, 0.5f));
    return e - ((I)(2 * S + A - (U)e * (2 * A)) < 0);
}

/* one (S, A) of div_round's range, against the CPU's formula */
template <typename U> __device__ void one_round(int chk, U S, U A, float rA, unsigned long long &nw)
{
    const U q = A ? S / A : 0, r = A ? S % A : 0;
    const uint32_t want = A ? (uint32_t)(q + (r >= A - r)) : 0u;
    if (div_round(S, A, rA) != want)
        differs(chk, S, A);
    nw += div_weak(S, A, rA) != want;
}

/* S at and around quotient k's tie (k A + A / 2) and around k A itself, kept in [0, top A] */
template <typename U>
__device__ unsigned long long around(int chk, U A, uint32_t k, uint32_t top, float rA, unsigned long long &nw)
{
    unsigned long long n = 0;
    const U tie = (U)k * A + A / 2, ex = (U)k * A, hi = (U)top * A;
    for (int d = -2; d <= 2; d++)
        if ((d >= 0 || tie >= (U)-d) && tie + d <= hi) {
            one_round<U>(chk, tie + d, A, rA, nw);
            n++;
        }
    for (int d = -1; d <= 1; d += 2)
        if ((d > 0 || ex >= 1) && ex + d <= hi) {
            one_round<U>(chk, ex + d, A, rA, nw);
            n++;
        }
    return n;
}

__device__ uint64_t mix(uint64_t x)   /* splitmix64's finaliser */
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

__global__ void check_round8(void)   /* a thread an A in [0, 2^24) */
{
    const uint32_t A = blockIdx.x * blockDim.x + threadIdx.x;
    const float rA = rcp_approx((float)A);
    unsigned long long n = 0, nw = 0;
    for (uint32_t k = 0; k < 256; k++)
        n += around<uint32_t>(R8, A, k, 255, rA, nw);
    for (uint32_t i = 0; i < 64; i++, n++)
        one_round<uint32_t>(R8, (uint32_t)(mix(((uint64_t)A << 6) | i) % (255ull * A + 1)), A, rA, nw);
    atomicAdd(&checked[R8], n);
    atomicAdd(&weak[R8], nw);
}

__global__ void check_round16(void)   /* a thread a random A below 2^bits, bits 1..48 */
{
    const uint64_t id = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x, bits = 1 + id % 48;
    const uint64_t A = mix(id) & ((1ull << bits) - 1);
    const float rA = rcp_approx((float)A);
    unsigned long long n = 0, nw = 0;
    n += around<uint64_t>(R16, A, 0, 65535, rA, nw);
    n += around<uint64_t>(R16, A, 65535, 65535, rA, nw);
    for (uint32_t i = 0; i < 64; i++)
        n += around<uint64_t>(R16, A, (uint32_t)(mix(id * 64 + i + (1ull << 40)) % 65536), 65535, rA, nw);
    atomicAdd(&checked[R16], n);
    atomicAdd(&weak[R16], nw);
}

int main(void)
{
    check_small<<<4096, 256>>>();
    check_round8<<<(1 << 24) / 256, 256>>>();
    check_round16<<<(1 << 22) / 256, 256>>>();
    if (cudaDeviceSynchronize() != cudaSuccess) {
        fprintf(stderr, "div_check: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 2;
    }
    unsigned long long nb[NCHK], nc[NCHK], nw[NCHK], fb[NCHK][4][2];
    cudaMemcpyFromSymbol(nb, bad, sizeof nb);
    cudaMemcpyFromSymbol(nc, checked, sizeof nc);
    cudaMemcpyFromSymbol(nw, weak, sizeof nw);
    cudaMemcpyFromSymbol(fb, first_bad, sizeof fb);
    static const char *what[NCHK] = { "div_small (A 0..4095, S 0..255 A)", "div_round, 8-bit sums (uint32_t, A < 2^24)",
                                      "div_round, 16-bit sums (uint64_t, A < 2^48)" };
    static const char *wk[NCHK] = { "without its 2^-14", "with 1/2 for 1/2 + 1/16", "with 1/2 for 1/2 + 1/16" };
    int rc = 0;
    for (int c = 0; c < NCHK; c++) {
        for (unsigned long long k = 0; k < nb[c] && k < 4; k++)
            printf("differs: S=%llu A=%llu\n", fb[c][k][0], fb[c][k][1]);
        printf("%s: %llu pairs checked, %llu differ (%s: %llu)\n", what[c], nc[c], nb[c], wk[c], nw[c]);
        rc |= nb[c] != 0;
    }
    return rc;
}
