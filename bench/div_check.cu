/* gpuimg bench: div_small (cuda/common.cuh), the exact 1:2 alpha resize's colour division, against
 * integer division for every A in [0, 4095] and every S in [0, 255 A]: about 2.1e9 pairs, a few
 * milliseconds on the GPU. Prints the pairs that differ (at most 10) and their count; exit 0 when
 * none. It also counts the pairs that would differ without div_small's 2^-14. Build on a machine with a GPU: nvcc -O3 -std=c++17 -Icuda -I. -o div_check bench/div_check.cu */
#include <cstdio>
#include "common.cuh"

__device__ unsigned long long bad, checked, bad_nobias;
__device__ uint32_t first_bad[10][2];

__global__ void check(void)
{
    const uint32_t A = blockIdx.x, top = 255u * A;
    const float Af = (float)A, r1 = rcp_refined(2.0f * Af);
    unsigned long long nbad = 0, n = 0;
    for (uint32_t S = threadIdx.x; S <= top; S += blockDim.x, n++) {
        const uint32_t want = A ? (2u * S + A) / (2u * A) : 0u, got = div_small(S, Af, r1);
        if (got != want) {
            const unsigned long long k = atomicAdd(&bad, 1ull);
            if (k < 10) {
                first_bad[k][0] = S;
                first_bad[k][1] = A;
            }
            nbad++;
        }
        /* the same without the 2^-14 lift: exact quotients come out one low (shows the check can fail) */
        if (A && __float2uint_rd(fmaf(2.0f, (float)S, Af) * r1) != want)
            atomicAdd(&bad_nobias, 1ull);
    }
    atomicAdd(&checked, n);
}

int main(void)
{
    check<<<4096, 256>>>();
    if (cudaDeviceSynchronize() != cudaSuccess) {
        fprintf(stderr, "div_check: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 2;
    }
    unsigned long long nb = 0, nc = 0, nn = 0;
    uint32_t fb[10][2];
    cudaMemcpyFromSymbol(&nb, bad, sizeof nb);
    cudaMemcpyFromSymbol(&nc, checked, sizeof nc);
    cudaMemcpyFromSymbol(fb, first_bad, sizeof fb);
    cudaMemcpyFromSymbol(&nn, bad_nobias, sizeof nn);
    for (unsigned long long k = 0; k < nb && k < 10; k++)
        printf("differs: S=%u A=%u\n", fb[k][0], fb[k][1]);
    printf("div_small: %llu pairs checked (A 0..4095, S 0..255 A), %llu differ (without its 2^-14: %llu)\n", nc, nb,
           nn);
    return nb != 0;
}
