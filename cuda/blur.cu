/* gpuimg: the blur kernels. separable: two passes through scratch, each running down the columns
 * of what it reads and writing its sums transposed, so that both read whole rows, coalesced, and
 * the second pass's columns are the image's rows (sep_pass1, sep_pass2 below); any tap count.
 * tiled: one pass for every layout with kernels of up to 21 to 33 taps by layout (three kernels,
 * described below; onepass_max), separable otherwise. tensor: the same sums as integer matrix
 * products on the tensor cores for up to 177 taps (RGB past 81 as three grey planes; described at
 * the end), tiled otherwise. */
#include "common.cuh"

/* Position p of an axis of n through its border map (positions -rk .. n+rk-1, offset by rk): the
 * source index, or -1 (past the map, or the constant border). */
__device__ __forceinline__ int border_pos(int p, int n, int rk, const int32_t *map)
{
    return p >= -rk && p < n + rk ? map[p + rk] : -1;
}

/* separable. Pass 1: V^T[x][y][c] = sum_k w[k] in[y - r + k][x][c], V^T's pixel columns hp = h
 * rounded up to 32 rows long. Pass 2: out[y][x][c] = round(sum_k w[k] V^T[x - r + k][y][c]), the
 * same loop down V^T's columns, written back transposed through a shared-memory tile so that its
 * stores are whole rows. A thread sums R consecutive outputs of PX whole pixels (pass 1; each row
 * of them one funnel-shifted run of words) or of YL rows of one pixel column (pass 2; a vector
 * load): an input is read once for all R (R loads for R^2 multiply-adds a lane), and the weights
 * each step of R inputs needs (2R - 1) come from a zero-padded copy in shared memory, so the loop
 * does not depend on the tap count. Each sum is exact in the cheapest arithmetic that holds it
 * (SP); the result is the CPU's bit for bit. Time grows with the taps, K + R multiply-adds an output
 * and pass, not with anything else (bench/RESULTS.md, 27th session). */
#define SP_NW1 4   /* pass 1: warps a block, each R rows of the tile (8 measured 12% slower) */

template <typename T, int C> struct SP {
    static constexpr bool ALPHA = C == 2 || C == 4, WIDE = sizeof(T) == 2;
    /* Pass 1, PX pixels (S samples, NW words) a thread. 8 bits without alpha: Q8 weights, V at most
     * 255 x 256 fits 16 bits, so two samples share a 32-bit multiply-add (bytes 0, 2 and 1, 3 of a
     * word: NA = S / 2 lanes). 8 bits with alpha: floats (c a <= 65025, V < 2^24 exact). 16 bits: Q16
     * weights, V <= 65535 x 65536 < 2^32 in uint32; with alpha c a < 2^32, V < 2^48 in doubles. */
    typedef typename std::conditional<WIDE, typename std::conditional<ALPHA, double, uint32_t>::type,
                                      typename std::conditional<ALPHA, float, uint32_t>::type>::type A1;
    static constexpr int PX = !WIDE ? (C == 1 ? 8 : C == 3 ? 4 : 4 / C) : (C == 1 ? 4 : C == 2 ? 2 : C == 3 ? 2 : 1);
    static constexpr int S = PX * C, NW = S * (int)sizeof(T) / 4, NA = !WIDE && !ALPHA ? S / 2 : S;
    static constexpr int R1 = WIDE && ALPHA ? 4 : 8;   /* (16 for 8 bits with alpha measured 1.2-1.3x slower) */
    /* V^T's type: what pass 2 reads without conversion where it can */
    typedef typename std::conditional<WIDE && ALPHA, double,
                                      typename std::conditional<!WIDE && !ALPHA, float, uint32_t>::type>::type V;
    /* Pass 2, YL rows a thread, every channel. 8 bits: sums below 2^24 in floats; with alpha colour
     * reaches 2^32: uint32. 16 bits: sums below 2^48 in doubles; with alpha colour reaches 2^64: V
     * split at bit 24 and two sums of at most 2^40 each (NB lanes). */
    typedef typename std::conditional<WIDE, double, typename std::conditional<ALPHA, uint32_t, float>::type>::type A2;
    static constexpr int YL = C == 1 ? 4 : C == 2 ? 2 : 1, PER = WIDE && ALPHA ? 2 * C - 1 : C, NB = YL * PER;
    /* NW2 warps a block, each R2 pixels of the tile: 4 for 8 bits measured 4-5% faster than 8, and 5%
     * slower at 16 (RGBA sigma 8 2.22 against 2.34 ms, grey16 sigma 12 1.48 against 1.40) */
    static constexpr int R2 = WIDE ? 4 : 8, NW2 = WIDE ? 8 : 4, TW = NW2 * R2;   /* TW: a tile's pixels across */
    static constexpr int PITCH = TW * C * (int)sizeof(T) + 4;     /* staged row bytes: an odd word count */
};

/* The steps of R inputs that cover the K + R - 1 inputs R outputs need, and the zero-padded weights
 * they read (a step more): one formula for the kernels' shared-memory layout and the launcher's
 * size of it. */
__host__ __device__ constexpr int sep_steps(int ksize, int R) { return (ksize + 2 * R - 2) / R; }
__host__ __device__ constexpr int sep_nweights(int ksize, int R) { return (sep_steps(ksize, R) + 1) * R; }
/* V^T's pixel columns: h rows rounded up to 32, so that pass 1's runs of R rows and pass 2's loads of
 * YL rows are whole and aligned */
static inline size_t sep_hp(int h) { return ((size_t)h + 31) & ~(size_t)31; }

extern "C" size_t gpu_blur_scratch(int w, int h, int c, int depth)
{
    return (size_t)w * c * sep_hp(h) * ((c == 2 || c == 4) && depth == 16 ? 8 : 4);
}

/* Weights a step of R inputs needs: W[ic .. ic + 2R - 1], as 16-byte shared loads. */
template <typename A, int R> __device__ __forceinline__ void load_weights(const A *W, A (&wv)[2 * R])
{
    static_assert(2 * R * sizeof(A) % 16 == 0, "whole 16-byte words");
    uint4 u[2 * R * sizeof(A) / 16];
#pragma unroll
    for (int i = 0; i < 2 * R * (int)sizeof(A) / 16; i++)
        u[i] = reinterpret_cast<const uint4 *>(W)[i];
    memcpy(wv, u, sizeof u);
}

/* The zero-padded weights: W[t] = w[t - (R - 1)] for t < sep_nweights, 0 outside the kernel; the
 * steps (sep_steps) returned. Input i of a thread's run (position o0 - r + i) adds W[i - j + R - 1]
 * times itself to output j. */
template <typename A, int R>
__device__ __forceinline__ int fill_weights(A *W, const uint32_t *kern, int ksize, int shift)
{
    const int nc = sep_steps(ksize, R), nt = blockDim.x * blockDim.y;
    for (int t = threadIdx.y * blockDim.x + threadIdx.x; t < (nc + 1) * R; t += nt) {   /* sep_nweights */
        const int k = t - (R - 1);
        W[t] = k >= 0 && k < ksize ? (A)(kern[k] >> shift) : (A)0;
    }
    __syncthreads();
    return nc;
}

/* One step of R inputs v, W the padded weights from the step's first input on: input ii adds
 * W[ii - j + R - 1] times each of its N addends (addends(v[ii], x)) to output j's sums. */
template <int R, int N, typename A, typename E, typename F>
__device__ __forceinline__ void mac_step(const A *W, const E (&v)[R], A (&acc)[R][N], F addends)
{
    A wv[2 * R];
    load_weights<A, R>(W, wv);
#pragma unroll
    for (int ii = 0; ii < R; ii++) {
        A x[N];
        addends(v[ii], x);
#pragma unroll
        for (int j = 0; j < R; j++)
#pragma unroll
            for (int l = 0; l < N; l++)
                acc[j][l] += wv[ii - j + R - 1] * x[l];
    }
}

/* byte b of x as a float: 2^23 + byte by one byte permute (0x4B000000 is 2^23), less 2^23 */
__device__ __forceinline__ float byte_f(uint32_t x, int b)
{
    return __int_as_float(__byte_perm(x, 0x4B000000u, 0x7440u | b)) - 8388608.f;
}
/* v as a double: 2^52 + v by its bits, less 2^52 (two instructions; a conversion is 16 a clock an SM) */
__device__ __forceinline__ double u32_d(uint32_t v) { return __hiloint2double(0x43300000, (int)v) - 0x1p52; }

/* Pass 1's input: NW words of samples from p on (any sample alignment): whole words where the row
 * starts are aligned (al), else the words around them funnel-shifted; sample by sample, 0 past the
 * first nvalid, where the run is cut short (a row's last pixels; nvalid 0 for the constant border)
 * or a word would reach past the image's last byte, end. */
template <typename T, int NW>
__device__ __forceinline__ void load_run(const T *p, bool al, int nvalid, uintptr_t end, uint32_t (&v)[NW])
{
    const uintptr_t a = (uintptr_t)p, A = a & ~(uintptr_t)3;
    if (al && nvalid >= NW * 4 / (int)sizeof(T)) {
#pragma unroll
        for (int i = 0; i < NW; i++)
            v[i] = ((const uint32_t *)a)[i];
    } else if (nvalid >= NW * 4 / (int)sizeof(T) && A + 4 * (NW + 1) <= end) {
        uint32_t u[NW + 1];
#pragma unroll
        for (int i = 0; i <= NW; i++)
            u[i] = ((const uint32_t *)A)[i];
        const unsigned sh = 8 * (unsigned)(a & 3);
#pragma unroll
        for (int i = 0; i < NW; i++)
            v[i] = __funnelshift_r(u[i], u[i + 1], sh);
    } else {
#pragma unroll
        for (int i = 0; i < NW; i++)
            v[i] = 0;
#pragma unroll
        for (int k = 0; k < NW * 4 / (int)sizeof(T); k++)
            if (k < nvalid)
                v[k * sizeof(T) / 4] |= (uint32_t)p[k] << (8 * ((k * sizeof(T)) & 3));
    }
}

/* Pass 1's NA addends of a run of S samples (premultiplied with alpha). */
template <typename T, int C>
__device__ __forceinline__ void addends1(const uint32_t (&v)[SP<T, C>::NW],
                                         typename SP<T, C>::A1 (&x)[SP<T, C>::NA])
{
    typedef SP<T, C> P;
    if constexpr (!P::WIDE && !P::ALPHA) {
#pragma unroll
        for (int i = 0; i < P::NW; i++) {
            x[2 * i] = v[i] & 0x00FF00FFu;   /* samples 4i and 4i + 2 */
            x[2 * i + 1] = (v[i] >> 8) & 0x00FF00FFu;
        }
    } else if constexpr (!P::WIDE) {   /* one word: 4 / C whole pixels */
#pragma unroll
        for (int p = 0; p < 4; p += C) {
            const float a = byte_f(v[0], p + C - 1);
#pragma unroll
            for (int c = 0; c < C - 1; c++)
                x[p + c] = byte_f(v[0], p + c) * a;   /* <= 65025: exact */
            x[p + C - 1] = a;
        }
    } else {
        uint32_t s[P::S];
#pragma unroll
        for (int k = 0; k < P::S; k++)
            s[k] = (v[k / 2] >> (16 * (k & 1))) & 0xFFFFu;
        if constexpr (!P::ALPHA) {
#pragma unroll
            for (int k = 0; k < P::S; k++)
                x[k] = s[k];
        } else {
#pragma unroll
            for (int p = 0; p < P::S; p += C) {
                const uint32_t a = s[p + C - 1];
#pragma unroll
                for (int c = 0; c < C - 1; c++)
                    x[p + c] = u32_d(s[p + c] * a);   /* < 2^32 */
                x[p + C - 1] = u32_d(a);
            }
        }
    }
}

/* Pass 1's sum for sample k from one output row's lanes. */
template <typename T, int C>
__device__ __forceinline__ typename SP<T, C>::V sum1(const typename SP<T, C>::A1 (&acc)[SP<T, C>::NA], int k)
{
    typedef SP<T, C> P;
    if constexpr (!P::WIDE && !P::ALPHA)
        return (float)((acc[2 * (k / 4) + (k & 1)] >> (16 * ((k >> 1) & 1))) & 0xFFFFu);
    else if constexpr (!P::WIDE)
        return (uint32_t)acc[k];   /* an integer below 2^24 */
    else
        return acc[k];
}

template <typename T, int C>
__global__ void __launch_bounds__(32 * SP_NW1)
    sep_pass1(const T *__restrict__ in, int w, int h, typename SP<T, C>::V *__restrict__ V, int hp,
              const uint32_t *__restrict__ kern, int ksize, const int32_t *__restrict__ by)
{
    typedef SP<T, C> P;
    typedef typename P::A1 A;
    typedef typename P::V VT;
    constexpr int R = P::R1, NA = P::NA, NW = P::NW;
    extern __shared__ __align__(16) unsigned char sp_smem[];
    A *W = (A *)sp_smem;
    const int nc = fill_weights<A, R>(W, kern, ksize, P::WIDE ? 0 : 8);
    const int r = ksize / 2, x0 = ((int)blockIdx.x * 32 + (int)threadIdx.x) * P::PX;
    const long long ns = (long long)w * C;
    const int nvalid = (int)min((long long)P::S, ns - (long long)x0 * C);
    const bool al = ((uintptr_t)in & 3) == 0 && (ns * sizeof(T)) % 4 == 0;
    const uintptr_t end = (uintptr_t)(in + (size_t)h * ns);
    for (int tile = blockIdx.y; (long long)tile * SP_NW1 * R < h; tile += gridDim.y) {
        const int y0 = (tile * SP_NW1 + threadIdx.y) * R;
        if (y0 >= h || x0 >= w)
            continue;
        const bool inside = y0 - r >= 0 && y0 - r + nc * R <= h;   /* (the same for the whole warp) */
        A acc[R][NA] = {};
        uint32_t v[R][NW];
        auto load = [&](int ic) {
#pragma unroll
            for (int ii = 0; ii < R; ii++) {
                const int p = y0 - r + ic + ii, s = inside ? p : border_pos(p, h, r, by);
                load_run<T, NW>(in + (size_t)max(s, 0) * ns + (size_t)x0 * C, al, s >= 0 ? nvalid : 0, end,
                                v[ii]);
            }
        };
        auto addends = [](const uint32_t(&e)[NW], A(&x)[NA]) { addends1<T, C>(e, x); };
        for (int ic = 0; ic < nc * R; ic += R) {   /* (loads a step ahead measured 1.5x slower: registers) */
            load(ic);
            mac_step<R>(W + ic, v, acc, addends);
        }
        /* each pixel's R rows x C channels are consecutive in V^T: 16-byte stores */
#pragma unroll
        for (int px = 0; px < P::PX; px++) {
            if (x0 + px >= w)
                break;
            VT out[R * C];
#pragma unroll
            for (int j = 0; j < R; j++)
#pragma unroll
                for (int c = 0; c < C; c++)
                    out[j * C + c] = sum1<T, C>(acc[j], px * C + c);
            uint4 *dst = (uint4 *)(V + ((size_t)(x0 + px) * hp + y0) * C), u[R * C * sizeof(VT) / 16];
            memcpy(u, out, sizeof u);
#pragma unroll
            for (int i = 0; i < R * C * (int)sizeof(VT) / 16; i++)
                dst[i] = u[i];
        }
    }
}

/* Pass 2's addends of one input: its YL rows x C channels (consecutive in V^T). */
template <typename T, int C>
__device__ __forceinline__ void addends2(const typename SP<T, C>::V (&v)[SP<T, C>::YL * C],
                                         typename SP<T, C>::A2 (&x)[SP<T, C>::NB])
{
    typedef SP<T, C> P;
#pragma unroll
    for (int yl = 0; yl < P::YL; yl++)
#pragma unroll
        for (int ch = 0; ch < C; ch++) {
            const typename P::V e = v[yl * C + ch];
            if constexpr (P::WIDE && P::ALPHA) {   /* colour: V < 2^48 as hi 2^24 + lo */
                if (ch == C - 1) {
                    x[yl * P::PER + 2 * ch] = e;
                } else {
                    const double hi = trunc(e * 0x1p-24);
                    x[yl * P::PER + 2 * ch] = hi;
                    x[yl * P::PER + 2 * ch + 1] = fma(-hi, 0x1p24, e);
                }
            } else if constexpr (P::WIDE) {
                x[yl * P::PER + ch] = u32_d(e);
            } else {
                x[yl * P::PER + ch] = e;
            }
        }
}

/* Pass 2's output samples of one pixel from its lanes: the CPU's (S + 2^31) >> 32 on Q16 x Q16 sums,
 * (S + 2^15) >> 16 on Q8 x Q8 ones (the weights' two factors 256 cancelled); colour over alpha by
 * div_round, whose ratio the factors do not change. */
template <typename T, int C> __device__ __forceinline__ void finish2(const typename SP<T, C>::A2 *a, T (&o)[C])
{
    typedef SP<T, C> P;
    if constexpr (!P::ALPHA) {
#pragma unroll
        for (int c = 0; c < C; c++)
            if constexpr (P::WIDE)
                o[c] = (T)((__double2ull_rn(a[c]) + (1ull << 31)) >> 32);
            else
                o[c] = (T)((__float2uint_rn(a[c]) + 32768u) >> 16);
    } else if constexpr (!P::WIDE) {
        const uint32_t A = a[C - 1];
        const float rA = rcp_approx((float)A);
        o[C - 1] = (T)((A + 32768u) >> 16);
#pragma unroll
        for (int c = 0; c < C - 1; c++)
            o[c] = (T)div_round<uint32_t>(a[c], A, rA);
    } else {
        const uint64_t A = __double2ull_rn(a[2 * (C - 1)]);
        const float rA = rcp_approx((float)A);
        o[C - 1] = (T)((A + (1ull << 31)) >> 32);
#pragma unroll
        for (int c = 0; c < C - 1; c++)
            o[c] = (T)div_round<uint64_t>((__double2ull_rn(a[2 * c]) << 24) + __double2ull_rn(a[2 * c + 1]), A, rA);
    }
}

template <typename T, int C>
__global__ void __launch_bounds__(32 * SP<T, C>::NW2)
    sep_pass2(const typename SP<T, C>::V *__restrict__ V, int w, int h, int hp, T *__restrict__ out,
              const uint32_t *__restrict__ kern, int ksize, const int32_t *__restrict__ bx)
{
    typedef SP<T, C> P;
    typedef typename P::A2 A;
    typedef typename P::V VT;
    constexpr int R = P::R2, NB = P::NB, YL = P::YL, TW = P::TW, NV = YL * C;
    extern __shared__ __align__(16) unsigned char sp_smem[];
    A *W = (A *)sp_smem;
    const int nc = fill_weights<A, R>(W, kern, ksize, P::WIDE ? 0 : 8);
    uint8_t *tile_s = sp_smem + sep_nweights(ksize, R) * sizeof(A);   /* 32 YL rows of PITCH bytes: row yl 32 + lane */
    const int r = ksize / 2, lane = threadIdx.x, wp = threadIdx.y;
    const int yb = blockIdx.x * 32 * YL, y = yb + lane * YL;   /* this thread's rows y .. y + YL - 1 */
    for (int tile = blockIdx.y; (long long)tile * TW < w; tile += gridDim.y) {
        const int xt = tile * TW, x0 = xt + wp * R;
        const bool inside = x0 - r >= 0 && x0 - r + nc * R <= w;   /* (the same for the whole warp) */
        A acc[R][NB] = {};
        VT v[R][NV];
        auto load = [&](int ic) {
#pragma unroll
            for (int ii = 0; ii < R; ii++) {
                const int p = x0 - r + ic + ii, s = inside ? p : border_pos(p, w, r, bx);
                ld_vec<VT, NV>(V + ((size_t)max(s, 0) * hp + y) * C, v[ii]);
                if (s < 0)
#pragma unroll
                    for (int e = 0; e < NV; e++)
                        v[ii][e] = 0;
            }
        };
        auto addends = [](const VT(&e)[NV], A(&x)[NB]) { addends2<T, C>(e, x); };
        if (y < h && x0 < w)
            for (int ic = 0; ic < nc * R; ic += R) {
                load(ic);
                mac_step<R>(W + ic, v, acc, addends);
            }
        /* stage: row yl * 32 + lane holds this thread's R pixels at pixel column wp R, as words */
#pragma unroll
        for (int yl = 0; yl < YL; yl++) {
            T o[R * C];
#pragma unroll
            for (int j = 0; j < R; j++) {
                T px[C];
                finish2<T, C>(&acc[j][yl * P::PER], px);
#pragma unroll
                for (int c = 0; c < C; c++)
                    o[j * C + c] = px[c];
            }
            uint32_t *dst = (uint32_t *)(tile_s + (yl * 32 + lane) * P::PITCH + wp * R * C * sizeof(T));
            constexpr int PW = 4 / sizeof(T);   /* samples a word */
#pragma unroll
            for (int i = 0; i < R * C / PW; i++) {
                uint32_t wd = 0;
#pragma unroll
                for (int b = 0; b < PW; b++)
                    wd |= (uint32_t)o[i * PW + b] << (8 * sizeof(T) * b);
                dst[i] = wd;
            }
        }
        __syncthreads();
        /* copy out: a warp a row at a time, lanes on consecutive samples */
        const int n = min(TW, w - xt) * C;
        for (int tr = wp; tr < 32 * YL; tr += P::NW2) {
            const int yy = yb + (tr & 31) * YL + tr / 32;
            if (yy >= h)
                continue;
            const T *src = (const T *)(tile_s + tr * P::PITCH);
            T *dst = out + ((size_t)yy * w + xt) * C;
            for (int s = lane; s < n; s += 32)
                dst[s] = src[s];
        }
        __syncthreads();
    }
}

template <typename T, int C> static size_t sep_smem2(int ksize)
{
    typedef SP<T, C> P;
    return (size_t)sep_nweights(ksize, P::R2) * sizeof(typename P::A2) + 32 * P::YL * P::PITCH;
}

template <typename T, int C>
static int launch_blur(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                       const int32_t *by, void *scratch, char *err, size_t errlen)
{
    typedef SP<T, C> P;
    typedef typename P::V VT;
    VT *V = (VT *)scratch;
    const int w = in->w, h = in->h, hp = (int)sep_hp(h);
    const long long t1 = ((long long)h + SP_NW1 * P::R1 - 1) / (SP_NW1 * P::R1);
    const size_t s1 = (size_t)sep_nweights(ksize, P::R1) * sizeof(typename P::A1);
    launch(sep_pass1<T, C>, dim3((unsigned)((w + 32 * P::PX - 1) / (32 * P::PX)), (unsigned)min(t1, 65535LL)),
           dim3(32, SP_NW1), s1, P::R1 * P::PX, (const T *)in->data, w, h, V, hp, kern, ksize, by);
    LAUNCH_TRY(err, errlen);
    const long long t2 = ((long long)w + P::TW - 1) / P::TW;
    const size_t s2 = sep_smem2<T, C>(ksize);   /* under 48 KiB: weights of up to 801 taps, a 9 KiB tile */
    launch(sep_pass2<T, C>, dim3((unsigned)((h + 32 * P::YL - 1) / (32 * P::YL)), (unsigned)min(t2, 65535LL)),
           dim3(32, P::NW2), s2, P::R2 * P::YL, (const VT *)V, w, h, hp, (T *)out->data, kern, ksize, bx);
    LAUNCH_TRY(err, errlen);
    return 0;
}

/* Byte column q (any integer) of an image row of w pixels of C bytes, through the border map bx
 * of pixel positions -rk .. w+rk-1 (the identity inside the row): the byte, or 0 for the constant
 * border. The staging of the one-pass and tensor kernels where a word reaches past a row's end. */
template <int C>
__device__ __forceinline__ uint32_t border_byte(const uint8_t *row, int q, int w, int rk, const int32_t *bx)
{
    const int px = q >= 0 ? q / C : -((-q + C - 1) / C), ch = q - px * C;   /* int: rows are at most 2^24 pixels */
    const int mx = border_pos(px, w, rk, bx);
    return mx >= 0 ? row[(size_t)mx * C + ch] : 0u;
}

/* put_transposed's words that are not whole (rare) */
template <int C>
__device__ __forceinline__ void put_partial(uint8_t *row, int j0, uint32_t v, int nsb, int c0, int c1)
{
    for (int b = 0; b < 4; b++) {
        const int jb = j0 + b, ch = jb % C;
        if (jb >= 0 && jb < nsb && ch >= c0 && ch < c1)
            row[jb] = (uint8_t)(v >> (8 * b));
    }
}

/* A fused transpose's copy-out, for staging that holds a tile pixel column a row (PT bytes: its
 * TH rows' C bytes each, in output order). Tile pixel column xl < np is output row p0 + xl, whose
 * bytes from row y0 on are staging bytes [0, nr C) of row xl. They go out as the aligned 4-byte
 * words they cover (TH C / 4 + 1 slots a row, consecutive threads on consecutive words), each the
 * funnel shift of two staged words; bytes one by one only in the words shared with neighbouring
 * tiles: the span's two ends, a short last tile, and a pixel split between two tile columns (of
 * its channels only those in the tile's image-row bytes [blo, bhi) are written). Byte by byte, this
 * copy-out was half of the tensor kernel's instructions (bench/RESULTS.md, 14th session); the
 * one-pass kernel's tiles (fused at small sizes) still go out byte by byte. */
template <int C, int TH>
__device__ __forceinline__ void put_transposed(const uint8_t *OS, int PT, uint8_t *out, int h, long long p0, int np,
                                               int y0, int nr, long long blo, long long bhi)
{
    constexpr int NS = TH * C / 4 + 1;
    const int nsb = nr * C;
    const size_t hc = (size_t)h * C;
    uint8_t *const base = out + ((size_t)p0 * h + y0) * C;   /* output row p0's span */
    const unsigned a0 = (unsigned)(uintptr_t)base, hcl = (unsigned)hc;
    for (int e = threadIdx.x; e < np * NS; e += blockDim.x) {
        const int xl = e / NS, k = e - xl * NS;
        const int sh = (int)((a0 + (unsigned)xl * hcl) & 3u), j0 = 4 * k - sh;   /* span byte of the word's first */
        if (j0 >= nsb)
            continue;
        const uint32_t *sw = (const uint32_t *)(OS + xl * PT);   /* (the last slot's high word lies past the span) */
        const uint32_t hiw = k < NS - 1 ? sw[k] : 0u, low = k ? sw[k - 1] : 0u;
        const uint32_t v = __funnelshift_rc(low, hiw, 32 - 8 * sh);
        uint8_t *row = base + xl * hc;
        bool whole = j0 >= 0 && j0 + 4 <= nsb;
        int c0 = 0, c1 = C;
        if (C != 1 && (xl == 0 || xl == np - 1)) {   /* a pixel split between two tile columns */
            const long long b0 = (p0 + xl) * C;
            c0 = (int)max(0LL, blo - b0);
            c1 = (int)min((long long)C, bhi - b0);
            whole = whole && c0 == 0 && c1 == C;
        }
        if (whole)
            *(uint32_t *)(row + j0) = v;
        else
            put_partial<C>(row, j0, v, nsb, c0, c1);
    }
}

/* tiled (q8): the one-pass kernel for 8-bit grey, RGB and RGBA, whose weights are Q8 (multiples of
 * 256 in the Q16 table: OpenCV's kernel). Every sum then stays below 2^24, so it is exact in the
 * arithmetic the SMs are fastest at:
 *  - the input tile (byte rows with their halo, border maps applied) is staged in shared memory as
 *    bytes, 4 a word, Q8_SU words a thread-step with their loads in flight together;
 *  - down: a thread owns one word column (4 samples) x Q8_RV rows; the bytes of a word are split
 *    into two words of two 16-bit lanes (bytes 0,2 and 1,3), mirrored taps are added first, and
 *    one 32-bit multiply-add applies a weight to two samples: V = sum w*p <= 255*256 never carries
 *    out of its lane;
 *  - across: V as floats; a thread owns Q8_CH consecutive output bytes of a row and sums
 *    S = sum w*V <= 2^24 in float FMAs (exact), then (S + 2^15) >> 16 by float tricks;
 *  - RGBA (a word is a pixel): down, the premultiplied samples c a (and a) summed in uint32,
 *    V <= 256 * 255 * 255; across, S = sum w*V < 2^32 in uint32 (mirrored taps added first both
 *    ways), alpha (A + 2^15) >> 16 and colour div_round(S, A): the separable engine's integers
 *    with both weights' factor 256 * 256 cancelled (10109x4542: 3.83 -> 0.98 ms, 19th session).
 * KS is the tap count rounded up to a compiled size; the kernel is centred in it with zeros. */
#define Q8_TH 32    /* output rows per tile */
#define Q8_TB 192   /* output bytes per tile row: 64 RGB pixels or 192 grey */
#define Q8_RV 8     /* rows per thread going down */
#define Q8_CH 16    /* output bytes per thread going across */
#define Q8_MAXK 33
#define Q8_SU 4     /* staged words a thread-step */

template <int C, int KS> struct Q8 {
    static constexpr int R = KS / 2;
    static constexpr int NB = Q8_TB + (KS - 1) * C;    /* input bytes a tile row needs */
    static constexpr int PB = (NB + 15) & ~15;         /* row pitch, bytes (u8) and floats (V) */
    static constexpr int ROWS = Q8_TH + KS - 1;
    static constexpr int PV = PB / 16 * 20;            /* V row pitch, floats: 4 pad after every 16 */
    static constexpr int PO = Q8_TB + 16;              /* output staging row pitch, bytes */
    static constexpr size_t SMEM = (size_t)ROWS * PB + (size_t)Q8_TH * PV * 4 + (size_t)Q8_TH * PO;
};

/* An integer below 2^23 as a float, and back, without the slow conversion units. */
static __device__ __forceinline__ float u2f(uint32_t bits_with_exponent) { return __int_as_float(bits_with_exponent) - 8388608.f; }
static __device__ __forceinline__ uint32_t round16(float S)
{
    return __float_as_uint(__fadd_rd(fmaf(S, 1.f / 65536.f, 0.5f), 8388608.f)) & 255u;
}

template <int C, int KS, bool TR>
__global__ void __launch_bounds__(256) blur_q8(const uint8_t *__restrict__ in, int w, int h, uint8_t *__restrict__ out,
                                               const uint32_t *__restrict__ kern, int ksize,
                                               const int32_t *__restrict__ bx, const int32_t *__restrict__ by)
{
    typedef Q8<C, KS> G;
    constexpr bool ALPHA = C == 4;
    extern __shared__ __align__(16) unsigned char q8s[];
    uint8_t *IN = q8s;
    float *V = (float *)(q8s + (size_t)G::ROWS * G::PB);
    uint8_t *OS = (uint8_t *)(V + (size_t)Q8_TH * G::PV);
    __shared__ int rowsrc[G::ROWS];
    const int tid = threadIdx.x, rk = ksize / 2, pad = G::R - rk;
    uint32_t wi[KS];
    float wf[KS];
#pragma unroll
    for (int k = 0; k < KS; k++) {
        const int kk = k - pad;
        wi[k] = kk >= 0 && kk < ksize ? kern[kk] >> 8 : 0u;
        wf[k] = (float)wi[k];
    }
    const size_t rowbytes = (size_t)w * C, total = rowbytes * h;
    const int x0 = blockIdx.x * (Q8_TB / C), bc0 = (x0 - G::R) * C;   /* byte column of IN column 0 */
    const bool inside = x0 - G::R >= 0 && x0 - G::R + G::NB / C <= w;
    for (int tb = blockIdx.y; tb * Q8_TH < h; tb += gridDim.y) {
        const int y0 = tb * Q8_TH;
        for (int i = tid; i < G::ROWS; i += blockDim.x) {
            const int p = y0 - G::R + i;
            rowsrc[i] = border_pos(p, h, rk, by);
        }
        __syncthreads();
        /* stage the tile: shared words, Q8_SU a thread-step, their global loads all issued before any
         * is used (a word at a time, each thread waited out one load's latency after another) */
        constexpr int NWS = G::ROWS * (G::PB / 4);
        for (int e0 = tid; e0 < NWS; e0 += Q8_SU * blockDim.x) {
            uint32_t lo[Q8_SU], hi[Q8_SU], sh[Q8_SU];
#pragma unroll
            for (int u = 0; u < Q8_SU; u++) {
                const int e = e0 + u * blockDim.x, i = e / (G::PB / 4), q = e - i * (G::PB / 4);
                lo[u] = hi[u] = sh[u] = 0;
                const int sr = e < NWS ? rowsrc[i] : -1;
                if (sr >= 0 && 4 * q < G::NB) {
                    const size_t a = (size_t)sr * rowbytes + bc0 + 4 * q;   /* valid when inside */
                    const size_t a0 = a & ~(size_t)3;
                    if (inside && a0 + 8 <= total) {
                        const uint32_t *g = (const uint32_t *)(in + a0);
                        lo[u] = __ldg(g);
                        hi[u] = __ldg(g + 1);
                        sh[u] = 8 * (unsigned)(a & 3);
                    } else {
#pragma unroll
                        for (int b = 0; b < 4; b++)
                            if (4 * q + b < G::NB)
                                lo[u] |= border_byte<C>(in + (size_t)sr * rowbytes, bc0 + 4 * q + b, w, rk, bx)
                                         << (8 * b);
                    }
                }
            }
#pragma unroll
            for (int u = 0; u < Q8_SU; u++) {
                const int e = e0 + u * blockDim.x, i = e / (G::PB / 4), q = e - i * (G::PB / 4);
                if (e < NWS)
                    ((uint32_t *)(IN + (size_t)i * G::PB))[q] = __funnelshift_r(lo[u], hi[u], sh[u]);
            }
        }
        __syncthreads();
        /* down: word column q, rows g*Q8_RV .. +Q8_RV-1, two samples a multiply-add */
        for (int e = tid; e < (G::PB / 4) * (Q8_TH / Q8_RV); e += blockDim.x) {
            const int g = e / (G::PB / 4), q = e - g * (G::PB / 4);
            if constexpr (ALPHA) {   /* a word is a pixel: c a and a */
                uint32_t pm[Q8_RV + KS - 1][4];
#pragma unroll
                for (int i = 0; i < Q8_RV + KS - 1; i++) {
                    const uint32_t wd = ((const uint32_t *)(IN + (size_t)(g * Q8_RV + i) * G::PB))[q], a = wd >> 24;
                    pm[i][0] = (wd & 255u) * a;
                    pm[i][1] = ((wd >> 8) & 255u) * a;
                    pm[i][2] = ((wd >> 16) & 255u) * a;
                    pm[i][3] = a;
                }
#pragma unroll
                for (int j = 0; j < Q8_RV; j++) {
                    uint32_t v[4];
#pragma unroll
                    for (int c = 0; c < 4; c++) {
                        v[c] = wi[G::R] * pm[j + G::R][c];
#pragma unroll
                        for (int k = 0; k < G::R; k++)
                            v[c] += wi[k] * (pm[j + k][c] + pm[j + KS - 1 - k][c]);
                    }
                    ((uint4 *)(V + (size_t)(g * Q8_RV + j) * G::PV))[q + q / 4] = make_uint4(v[0], v[1], v[2], v[3]);
                }
            } else {
                uint32_t lo[Q8_RV + KS - 1], hi[Q8_RV + KS - 1];
#pragma unroll
                for (int i = 0; i < Q8_RV + KS - 1; i++) {
                    const uint32_t wd = ((const uint32_t *)(IN + (size_t)(g * Q8_RV + i) * G::PB))[q];
                    lo[i] = wd & 0x00FF00FFu;
                    hi[i] = (wd >> 8) & 0x00FF00FFu;
                }
#pragma unroll
                for (int j = 0; j < Q8_RV; j++) {
                    uint32_t al = wi[G::R] * lo[j + G::R], ah = wi[G::R] * hi[j + G::R];
#pragma unroll
                    for (int k = 0; k < G::R; k++) {
                        al += wi[k] * (lo[j + k] + lo[j + KS - 1 - k]);
                        ah += wi[k] * (hi[j + k] + hi[j + KS - 1 - k]);
                    }
                    float4 v;   /* lanes back in byte order: 0 = al.lo, 1 = ah.lo, 2 = al.hi, 3 = ah.hi */
                    v.x = u2f(__byte_perm(al, 0x4B000000u, 0x7610));
                    v.y = u2f(__byte_perm(ah, 0x4B000000u, 0x7610));
                    v.z = u2f(__byte_perm(al, 0x4B000000u, 0x7632));
                    v.w = u2f(__byte_perm(ah, 0x4B000000u, 0x7632));
                    ((float4 *)(V + (size_t)(g * Q8_RV + j) * G::PV))[q + q / 4] = v;
                }
            }
        }
        __syncthreads();
        /* across: row y, output bytes m*Q8_CH .. +Q8_CH-1 of the tile, into the staging rows at the
         * byte offset the row has in global memory mod 4, so that the copy-out moves aligned words */
        constexpr int NV = (Q8_CH + (KS - 1) * C + 3) / 4, NM = Q8_TB / Q8_CH;
        for (int e = tid; e < Q8_TH * NM; e += blockDim.x) {
            const int y = e / NM, m = e - y * NM;
            float vals[4 * NV];
            /* logical float column 16m + 4t sits at float4 5m + t + t/4: 8 lanes cover all banks */
            const float4 *src = (const float4 *)(V + (size_t)y * G::PV) + 5 * m;
#pragma unroll
            for (int t = 0; t < NV; t++) {
                const float4 f = src[t + t / 4];
                vals[4 * t] = f.x;
                vals[4 * t + 1] = f.y;
                vals[4 * t + 2] = f.z;
                vals[4 * t + 3] = f.w;
            }
            const int sh = TR ? 0 : (int)(((size_t)(y0 + y) * rowbytes + (size_t)x0 * C) & 3);
            uint8_t *o = OS + y * G::PO + sh + m * Q8_CH;
            if constexpr (ALPHA) {   /* S = sum w V < 2^32 exact, A < 2^24; colour = round(S / A) */
                uint32_t S[Q8_CH];
#pragma unroll
                for (int b = 0; b < Q8_CH; b++) {
                    S[b] = wi[G::R] * __float_as_uint(vals[b + G::R * C]);
#pragma unroll
                    for (int k = 0; k < G::R; k++)
                        S[b] += wi[k]
                                * (__float_as_uint(vals[b + k * C]) + __float_as_uint(vals[b + (KS - 1 - k) * C]));
                }
#pragma unroll
                for (int b = 0; b < Q8_CH; b += 4) {
                    const uint32_t A = S[b + 3], Sc[3] = { S[b], S[b + 1], S[b + 2] };
                    *(uint32_t *)(o + b) = straight8<4>((A + 32768u) >> 16, Sc, A);
                }
            } else {
#pragma unroll
                for (int b = 0; b < Q8_CH; b++) {
                    float S = 0.f;
#pragma unroll
                    for (int k = 0; k < KS; k++)
                        S = fmaf(wf[k], vals[b + k * C], S);
                    o[b] = (uint8_t)round16(S);
                }
            }
        }
        __syncthreads();
        if (TR) {
            /* copy out transposed: tile column x becomes output row x; consecutive threads write
             * consecutive bytes of it (the tile's rows, C bytes each) */
            const int np = min(Q8_TB / C, w - x0), nr = min(Q8_TH, h - y0);
            for (int e = tid; e < np * Q8_TH * C; e += blockDim.x) {
                const int x = e / (Q8_TH * C), j = e - x * (Q8_TH * C), y = j / C, ch = j - y * C;
                if (y < nr)
                    out[((size_t)(x0 + x) * h + y0 + y) * C + ch] = OS[y * G::PO + x * C + ch];
            }
        } else {
            /* copy out: whole aligned words, bytes only at the two ends of a row */
            const int nb = min(Q8_TB, (int)(rowbytes - (size_t)x0 * C));
            for (int e = tid; e < Q8_TH * (Q8_TB / 4 + 1); e += blockDim.x) {
                const int y = e / (Q8_TB / 4 + 1), k = e - y * (Q8_TB / 4 + 1), oy = y0 + y;
                if (oy >= h)
                    continue;
                const size_t g0 = (size_t)oy * rowbytes + (size_t)x0 * C;
                const int sh = (int)(g0 & 3), lo = 4 * k, hi = lo + 4;   /* staging bytes of this word */
                if (hi <= sh || lo >= sh + nb)
                    continue;
                uint8_t *gw = out + (g0 - sh) + lo;
                const uint8_t *sw = OS + y * G::PO + lo;
                if (lo >= sh && hi <= sh + nb)
                    *(uint32_t *)gw = *(const uint32_t *)sw;
                else
                    for (int b = max(lo, sh); b < min(hi, sh + nb); b++)
                        gw[b - lo] = sw[b - lo];
            }
        }
        __syncthreads();   /* the tile is refilled for the next tile row */
    }
}

template <int C, int KS, bool TR>
static int launch_q8t(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                      const int32_t *by, char *err, size_t errlen)
{
    typedef Q8<C, KS> G;
    CUDA_TRY(cudaFuncSetAttribute(blur_q8<C, KS, TR>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)G::SMEM), err,
             errlen);
    const unsigned ty = (unsigned)((in->h + Q8_TH - 1) / Q8_TH);
    launch(blur_q8<C, KS, TR>, dim3((unsigned)((in->w + Q8_TB / C - 1) / (Q8_TB / C)), ty > 65535 ? 65535 : ty), 256,
           G::SMEM, Q8_TB * Q8_TH / C / 256, (const uint8_t *)in->data, in->w, in->h, (uint8_t *)out->data, kern, ksize,
           bx, by);
    LAUNCH_TRY(err, errlen);
    return 0;
}

template <int C, int KS>
static int launch_q8(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                     const int32_t *by, char *err, size_t errlen)
{
    return out->transposed ? launch_q8t<C, KS, true>(in, out, kern, ksize, bx, by, err, errlen)
                           : launch_q8t<C, KS, false>(in, out, kern, ksize, bx, by, err, errlen);
}

/* The compiled tap counts (a kernel runs in the smallest that holds it). */
#define Q8_SIZES(X) X(3) X(5) X(7) X(9) X(11) X(13) X(17) X(21) X(25) X(33)

/* f(std::integral_constant<int, K>) for the smallest compiled K that holds ksize taps; -1 if none */
template <typename F> static int by_tap_count(int ksize, F f)
{
#define KS_TRY(K)                                                                                  \
    if (ksize <= K)                                                                                \
        return f(std::integral_constant<int, K>());
    Q8_SIZES(KS_TRY)
#undef KS_TRY
    return -1;
}

template <int C>
static int dispatch_q8(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                       const int32_t *by, char *err, size_t errlen)
{
    return by_tap_count(ksize, [&](auto K) {
        return launch_q8<C, decltype(K)::value>(in, out, kern, ksize, bx, by, err, errlen);
    });
}

/* tiled for 16-bit grey and RGB: one pass over tiles of TP pixels x B16_TH rows, the separable
 * engine's integers (Q16 weights: across H = sum w * in < 2^32 in uint32, down sum w * H in uint64,
 * rounded once). The tile's input (halo and border maps applied) is staged as samples, a thread a
 * sample column (its source offset worked out once for all rows) of every RG-th row, the rows'
 * byte offsets worked out once a tile; H of every staged row is made once into shared memory,
 * then down; both ways a thread makes 4 neighbouring sums from KS + 3 loads. The two-pass kernel
 * wrote and read H through global scratch with a tap loop of run-time bounds: at 45.9 Mpx grey16
 * 0.97 -> 0.30 ms, RGB16 1.95 -> 0.90 (a sample a thread, staged a sample at a time with its
 * index arithmetic: 0.45 and 1.76; bench/RESULTS.md, 20th session). Staging by row offsets and
 * row groups took grey16 sigma 2 0.296 -> 0.283 ms and RGB16 0.91 -> 0.88 (H100, 30th session);
 * the profile: 131 instructions a sample, a quarter of them staging, issue-bound. */
#define B16_TH 32
/* The byte offset in the image of staged rows y .. y + n - 1 (taken through the border map, rows
 * rowbytes apart), -1 for none, worked out by the block's threads once a tile so that a load adds
 * it rather than multiplying a row index (blur16, blur_alpha). */
__device__ __forceinline__ void row_offsets(long long *ro, int n, int y, int h, int rk, const int32_t *by,
                                            long long rowbytes)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        const int r = border_pos(y + i, h, rk, by);
        ro[i] = r >= 0 ? r * rowbytes : -1;
    }
}
/* a + w v, exact: 32-bit, or a 64-bit sum of 32-bit values (one wide multiply-add) */
__device__ __forceinline__ uint32_t mac(uint32_t a, uint32_t w, uint32_t v) { return a + w * v; }
__device__ __forceinline__ uint64_t mac(uint64_t a, uint32_t w, uint32_t v) { return a + (uint64_t)w * v; }
/* the 4 neighbouring sums a[j] += sum_k w[k] p[(k + j) S], j = 0..3, from KS + 3 loads */
template <int S, int KS, typename A, typename E>
__device__ __forceinline__ void sums4(const E *p, const uint32_t (&wk)[KS], A (&a)[4])
{
#pragma unroll
    for (int k = 0; k < KS + 3; k++) {
        const uint32_t v = p[k * S];
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (k - j >= 0 && k - j < KS)
                a[j] = mac(a[j], wk[k - j], v);
    }
}
/* sums4 for a symmetric kernel (w[k] = w[KS - 1 - k]: the blur's), mirrored samples added first:
 * (KS + 1) / 2 multiply-adds a sum instead of KS. The caller sees that the pair sums fit 32 bits. */
template <int S, int KS, typename A, typename E>
__device__ __forceinline__ void sums4_sym(const E *p, const uint32_t (&wk)[KS], A (&a)[4])
{
    static_assert(KS % 2 == 1, "a centre tap");
    constexpr int R = KS / 2;
    uint32_t v[KS + 3];
#pragma unroll
    for (int k = 0; k < KS + 3; k++)
        v[k] = p[k * S];
#pragma unroll
    for (int j = 0; j < 4; j++) {
        a[j] = mac(a[j], wk[R], v[j + R]);
#pragma unroll
        for (int k = 0; k < R; k++)
            a[j] = mac(a[j], wk[k], v[j + k] + v[j + KS - 1 - k]);
    }
}
template <int C> struct B16 {
    static constexpr int TP = C == 1 ? 128 : 64;   /* output pixels a tile row */
};
template <int C, int KS>
__global__ void __launch_bounds__(256) blur16(const uint16_t *__restrict__ in, int w, int h, uint16_t *__restrict__ out,
                                              const uint32_t *__restrict__ kern, int ksize,
                                              const int32_t *__restrict__ bx, const int32_t *__restrict__ by)
{
    constexpr int R = KS / 2, TS = B16<C>::TP * C;     /* output samples a tile row */
    constexpr int NS = TS + (KS - 1) * C, ROWS = B16_TH + KS - 1;
    extern __shared__ __align__(16) unsigned char b16s[];
    uint16_t *IN = (uint16_t *)b16s;                       /* ROWS x NS samples */
    uint32_t *H = (uint32_t *)(b16s + ((size_t)ROWS * NS * 2 + 15) / 16 * 16);   /* ROWS x TS */
    __shared__ long long rowoff[ROWS];   /* a staged row's first byte in the image, -1: none */
    const int tid = threadIdx.x, rk = ksize / 2, pad = R - rk;
    const long long rowlen = (long long)w * C;
    uint32_t wk[KS];
#pragma unroll
    for (int k = 0; k < KS; k++) {
        const int kk = k - pad;
        wk[k] = kk >= 0 && kk < ksize ? kern[kk] : 0u;
    }
    const int x0 = blockIdx.x * B16<C>::TP;
    const int ns = min(TS, (w - x0) * C);   /* output samples of this tile's rows */
    for (int tb = blockIdx.y; tb * B16_TH < h; tb += gridDim.y) {
        const int y0 = tb * B16_TH;
        row_offsets(rowoff, ROWS, y0 - R, h, rk, by, 2 * rowlen);
        __syncthreads();
        /* stage: a thread a sample column of every RG-th row (RG row groups, so that all threads
         * take part where a row has fewer samples than the block threads), its source offset worked
         * out once, 4 rows at once */
        constexpr int RG = (256 + NS - 1) / NS;
        for (int e = tid; e < RG * NS; e += blockDim.x) {
            const int g = e / NS, q = e - g * NS;
            const int px = x0 - R + q / C;
            const int mx = px >= 0 && px < w ? px : border_pos(px, w, rk, bx);   /* (identity inside) */
            const int co = mx >= 0 ? 2 * (mx * C + q % C) : -1;   /* (bytes: no scaling a load) */
            for (int i0 = g; i0 < ROWS; i0 += 4 * RG) {
                uint16_t v[4];
#pragma unroll
                for (int u = 0; u < 4; u++) {
                    const int i = i0 + u * RG;
                    const long long ro = i < ROWS ? rowoff[i] : -1;
                    v[u] = ro >= 0 && co >= 0 ? *(const uint16_t *)((const char *)in + ro + co) : (uint16_t)0;
                }
#pragma unroll
                for (int u = 0; u < 4; u++)
                    if (i0 + u * RG < ROWS)
                        IN[(i0 + u * RG) * NS + q] = v[u];
            }
        }
        __syncthreads();
        /* across: a thread 4 neighbouring pixels' sums of one channel of a row, their taps' samples
         * read once (KS + 3 loads for 4 sums) */
        constexpr int GR = TS / 4;   /* groups a row */
        for (int e = tid; e < ROWS * GR; e += blockDim.x) {
            const int i = e / GR, g = e - i * GR, o = (g / C) * 4 * C + g % C;
            const uint16_t *p = IN + i * NS + o;
            uint32_t a[4] = {};
            sums4<C>(p, wk, a);
#pragma unroll
            for (int j = 0; j < 4; j++)
                H[i * TS + o + j * C] = a[j];
        }
        __syncthreads();
        /* down: a thread 4 rows of one output sample, the H column read once (KS + 3 loads; the
         * groups' reads stay inside the staged rows and columns: 4 sums need KS + 3 taps) */
        const int nr = min(B16_TH, h - y0);
        for (int e = tid; e < B16_TH / 4 * TS; e += blockDim.x) {
            const int y = e / TS * 4, o = e - y / 4 * TS;
            if (y >= nr || o >= ns)
                continue;
            const uint32_t *p = H + y * TS + o;
            uint64_t a[4] = { 1ull << 31, 1ull << 31, 1ull << 31, 1ull << 31 };
            sums4<TS>(p, wk, a);
            uint16_t *d = out + (y0 + y) * rowlen + x0 * C + o;
#pragma unroll
            for (int j = 0; j < 4; j++)
                if (y + j < nr)
                    d[j * rowlen] = (uint16_t)(a[j] >> 32);
        }
        __syncthreads();   /* the tile is refilled for the next tile row */
    }
}

template <int C, int KS> static constexpr size_t b16_smem()
{
    constexpr int TS = B16<C>::TP * C, NS = TS + (KS - 1) * C, ROWS = B16_TH + KS - 1;
    return ((size_t)ROWS * NS * 2 + 15) / 16 * 16 + (size_t)ROWS * TS * 4;
}

template <int C, int KS>
static int launch_b16(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                      const int32_t *by, char *err, size_t errlen)
{
    constexpr size_t SMEM = b16_smem<C, KS>();
    CUDA_TRY(cudaFuncSetAttribute(blur16<C, KS>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM), err, errlen);
    const unsigned ty = (unsigned)((in->h + B16_TH - 1) / B16_TH);
    launch(blur16<C, KS>, dim3((unsigned)((in->w + B16<C>::TP - 1) / B16<C>::TP), ty > 65535 ? 65535 : ty), 256, SMEM,
           B16<C>::TP * B16_TH / 256, (const uint16_t *)in->data, in->w, in->h, (uint16_t *)out->data, kern, ksize, bx,
           by);
    LAUNCH_TRY(err, errlen);
    return 0;
}

template <int C>
static int dispatch_b16(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                        const int32_t *by, char *err, size_t errlen)
{
    return by_tap_count(ksize, [&](auto K) {
        return launch_b16<C, decltype(K)::value>(in, out, kern, ksize, bx, by, err, errlen);
    });
}

/* tiled for the alpha layouts the kernels above do not take: grey+alpha (8 and 16 bit) and 16-bit
 * RGBA. One pass over tiles of 128 / C pixels x B16_TH rows, the separable engine's integers with
 * colour premultiplied: staged P = c a (and a) in uint32; across H = sum w P < 2^48, kept in 32-bit
 * words (H >> 16 and H & 65535, so that every product of the down pass is one multiply-add, where
 * 64-bit H took five); down S = sum w H < 2^64; then alpha (S_a + 2^31) >> 32 and colour
 * div_round(S_c, S_a), 0 where S_a = 0: the CPU's integers summed in another order, so the same
 * bits. 8-bit: the same with the weights' common factor 256 cancelled both ways (as blur_q8), all
 * in 32 bits, mirrored taps added first. Both ways a thread makes 4 neighbouring sums of one
 * channel (sums4, sums4_sym), and a pixel's C channels lie on neighbouring lanes: across, a warp's
 * lanes are the channels of 32 / C rows, whose pitch (NS = C mod 32 words) puts them on distinct
 * banks; down, a warp's lanes are 32 neighbouring samples, the colour lanes taking S_a from their
 * pixel's alpha lane by a shuffle. The two-pass kernel moved the column sums through global memory
 * as uint64 (bench/RESULTS.md, 23rd session: at 45.9 Mpx RGBA16 4.09 -> 2.25 ms, grey+alpha 1.18 ->
 * 0.45 and 1.91 -> 1.16; the integer multiply-adds are the bound). */
template <typename T, int C, int KS> struct BA {
    /* 8-bit: Q8 weights (the 8-bit kernels' are multiples of 256, as blur_q8 takes them), so
     * H < 2^24 and S < 2^32, all 32-bit; 16-bit: H < 2^48 in two uint32 planes (H >> 16 and
     * H & 65535), S < 2^64 */
    static constexpr int NH = sizeof(T) == 1 ? 1 : 2;
    typedef typename std::conditional<sizeof(T) == 1, uint32_t, uint64_t>::type ST;   /* sums, both ways */
    static constexpr int WS = sizeof(T) == 1 ? 8 : 0;        /* weight shift: 8-bit weights are Q8 */
    static constexpr ST HALF = (ST)1 << (2 * (16 - WS) - 1);
    static constexpr int TP = 128 / C;                       /* output pixels a tile row */
    static constexpr int TS = TP * C;                        /* output samples a tile row */
    static constexpr int NP = TP + KS - 1;                   /* staged pixel columns */
    static constexpr int ROWS = B16_TH + KS - 1;
    static constexpr int NS = (NP * C - C + 31) / 32 * 32 + C;   /* staged row pitch, words: C mod 32 */
    static constexpr int HP = TS + C;                        /* H row pitch, words: C mod 32 */
    static constexpr size_t SMEM = ((size_t)NH * HP + NS) * ROWS * 4;
};

template <typename T, int C, int KS>
__global__ void __launch_bounds__(256) blur_alpha(const T *__restrict__ in, int w, int h, T *__restrict__ out,
                                                  const uint32_t *__restrict__ kern, int ksize,
                                                  const int32_t *__restrict__ bx, const int32_t *__restrict__ by)
{
    typedef BA<T, C, KS> G;
    static_assert(C == 2 || C == 4, "the alpha lane is lane | (C - 1)");
    constexpr int R = KS / 2;
    extern __shared__ __align__(16) unsigned char bas[];
    uint32_t *H = (uint32_t *)bas;                            /* NH planes of ROWS x HP */
    uint32_t *IN = H + (size_t)G::NH * G::ROWS * G::HP;       /* ROWS x NS */
    __shared__ long long rowoff[G::ROWS];   /* a staged row's first byte in the image, -1: none */
    const int tid = threadIdx.x, lane = tid & 31, rk = ksize / 2, pad = R - rk;
    uint32_t wk[KS];
#pragma unroll
    for (int k = 0; k < KS; k++) {
        const int kk = k - pad;
        wk[k] = kk >= 0 && kk < ksize ? kern[kk] >> G::WS : 0u;
    }
    const size_t rowel = (size_t)w * C;
    const int x0 = blockIdx.x * G::TP;
    const int ns = min(G::TS, (w - x0) * C);   /* output samples of this tile's rows */
    for (int tb = blockIdx.y; tb * B16_TH < h; tb += gridDim.y) {
        const int y0 = tb * B16_TH;
        row_offsets(rowoff, G::ROWS, y0 - R, h, rk, by, (long long)(rowel * sizeof(T)));
        __syncthreads();
        /* stage: a thread a pixel column x 4 rows, the 4 loads in flight together, premultiplied;
         * the rows' byte offsets worked out once a tile, the column's once a thread (as blur16:
         * no 64-bit multiply a load) */
        constexpr int RG = (G::ROWS + 3) / 4;
        for (int e = tid; e < G::NP * RG; e += blockDim.x) {
            const int q = e % G::NP, i0 = e / G::NP * 4, px = x0 - R + q;
            const int mx = px >= 0 && px < w ? px : border_pos(px, w, rk, bx);   /* (identity inside) */
            const int co = mx >= 0 ? mx * C * (int)sizeof(T) : -1;
            T v[4][C];
#pragma unroll
            for (int u = 0; u < 4; u++) {
                const long long ro = i0 + u < G::ROWS ? rowoff[i0 + u] : -1;
                if (ro >= 0 && co >= 0)
                    ld_vec<T, C>((const T *)((const char *)in + ro + co), v[u]);
                else
#pragma unroll
                    for (int c = 0; c < C; c++)
                        v[u][c] = 0;
            }
#pragma unroll
            for (int u = 0; u < 4; u++)
                if (i0 + u < G::ROWS) {
                    const uint32_t a = v[u][C - 1];
                    uint32_t pm[C];
#pragma unroll
                    for (int c = 0; c < C - 1; c++)
                        pm[c] = v[u][c] * a;
                    pm[C - 1] = a;
                    st_vec<uint32_t, C>(IN + (i0 + u) * G::NS + q * C, pm);
                }
        }
        __syncthreads();
        /* across: channel e % C of row e / C % ROWS, pixels 4g .. 4g + 3 */
        for (int e = tid; e < G::ROWS * G::TS / 4; e += blockDim.x) {
            const int c = e % C, i = e / C % G::ROWS, o = e / (C * G::ROWS) * 4 * C + c;
            typename G::ST a[4] = {};
            if constexpr (G::NH == 1)
                sums4_sym<C>(IN + i * G::NS + o, wk, a);   /* P < 2^16: pairs fit */
            else
                sums4<C>(IN + i * G::NS + o, wk, a);
#pragma unroll
            for (int j = 0; j < 4; j++) {
                H[i * G::HP + o + j * C] = (uint32_t)(a[j] >> (G::NH == 2 ? 16 : 0));
                if (G::NH == 2)
                    H[(G::ROWS + i) * G::HP + o + j * C] = (uint32_t)a[j] & 65535u;
            }
        }
        __syncthreads();
        /* down: sample o of rows y .. y + 3 (every thread the same number of steps: the shuffle) */
        const int nr = min(B16_TH, h - y0);
        static_assert(B16_TH / 4 * G::TS % 256 == 0, "whole warps");
        for (int e = tid; e < B16_TH / 4 * G::TS; e += blockDim.x) {
            const int o = e % G::TS, y = e / G::TS * 4;
            typename G::ST a[4] = {};
            /* 8-bit: H < 2^24, pairs fit; 16-bit: S = 2^16 sum w (H >> 16) + sum w (H & 65535) */
            if constexpr (G::NH == 1)
                sums4_sym<G::HP>(H + y * G::HP + o, wk, a);
            else
                sums4<G::HP>(H + y * G::HP + o, wk, a);
            if constexpr (G::NH == 2) {
                uint32_t l[4] = {};
                sums4<G::HP>(H + (G::ROWS + y) * G::HP + o, wk, l);
#pragma unroll
                for (int j = 0; j < 4; j++)
                    a[j] = (a[j] << 16) + l[j];
            }
            T *d = out + (size_t)(y0 + y) * rowel + (size_t)x0 * C + o;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const typename G::ST A = __shfl_sync(0xffffffffu, a[j], lane | (C - 1));
                const uint32_t v = o % C == C - 1 ? (uint32_t)((a[j] + G::HALF) >> (2 * (16 - G::WS)))
                                                  : div_round(a[j], A, rcp_approx((float)A));
                if (y + j < nr && o < ns)
                    d[(size_t)j * rowel] = (T)v;
            }
        }
        __syncthreads();   /* the tile is refilled for the next tile row */
    }
}

template <typename T, int C, int KS>
static int launch_ba(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                     const int32_t *by, char *err, size_t errlen)
{
    typedef BA<T, C, KS> G;
    CUDA_TRY(cudaFuncSetAttribute(blur_alpha<T, C, KS>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)G::SMEM),
             err, errlen);
    const unsigned ty = (unsigned)((in->h + B16_TH - 1) / B16_TH);
    launch(blur_alpha<T, C, KS>, dim3((unsigned)((in->w + G::TP - 1) / G::TP), ty > 65535 ? 65535 : ty), 256,
           G::SMEM, G::TP * B16_TH / 256, (const T *)in->data, in->w, in->h, (T *)out->data, kern, ksize, bx, by);
    LAUNCH_TRY(err, errlen);
    return 0;
}

template <typename T, int C>
static int dispatch_ba(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize, const int32_t *bx,
                       const int32_t *by, char *err, size_t errlen)
{
    return by_tap_count(ksize, [&](auto K) {
        return launch_ba<T, C, decltype(K)::value>(in, out, kern, ksize, bx, by, err, errlen);
    });
}

/* blur_alpha's layouts (8-bit RGBA through it measured level with blur_q8, 0.93-0.94 ms against
 * 0.96 at 45.9 Mpx, and blur_q8 also writes transposed: bench/RESULTS.md, 23rd session) */
static int alpha_onepass(int c, int depth) { return c == 2 || (c == 4 && depth == 16); }

/* The most taps a layout blurs in one pass (blur_q8 for 8-bit grey, RGB, RGBA; blur16 for 16-bit
 * grey, RGB; blur_alpha), past which the two-pass kernel measured faster (H200, 10109x4542, ms,
 * bench/RESULTS.md, 27th session): 8-bit RGBA 1.25 against 1.65 at 19 taps, 2.09 against 1.65 at 25
 * (1920x1080: 0.103 against 0.099); 16-bit RGB 1.41 / 1.72 at 25, 2.26 / 2.04 at 33; 16-bit RGBA
 * 3.22 / 3.55 and 5.25 / 4.24; 16-bit grey+alpha 1.68 / 1.75 and 2.77 / 2.06. 8-bit grey+alpha is
 * level at 33 (1.01 / 1.00), 16-bit grey 0.57 / 0.66 there. */
static int onepass_max(int c, int depth)
{
    return depth == 8 ? (c == 4 ? 21 : Q8_MAXK) : (c == 1 ? Q8_MAXK : 25);
}

extern "C" int gpu_blur_tiled_scratchless(int c, int depth, int ksize)
{
    return ksize > 1 && ksize <= onepass_max(c, depth);
}

extern "C" int gpu_blur_onepass_applies(int c, int depth, int ksize)
{
    return depth == 8 && (c == 1 || c == 3 || c == 4) && gpu_blur_tiled_scratchless(c, depth, ksize);
}

extern "C" int gpu_blur_tiled(const struct gpu_image *in, const struct gpu_image *out, const uint32_t *kern, int ksize,
                              const int32_t *bx, const int32_t *by, void *scratch, char *err, size_t errlen)
{
    if (in->gray_from || (out->transposed && !gpu_blur_onepass_applies(in->c, in->depth, ksize))) {
        snprintf(err, errlen, "gpu_blur_tiled: no fused kernel for this image");
        return (int)cudaErrorInvalidValue;
    }
    if (!out->transposed && gpu_blur_tiled_scratchless(in->c, in->depth, ksize)) {
        if (in->depth == 16 && (in->c == 1 || in->c == 3))
            return in->c == 1 ? dispatch_b16<1>(in, out, kern, ksize, bx, by, err, errlen)
                              : dispatch_b16<3>(in, out, kern, ksize, bx, by, err, errlen);
        if (alpha_onepass(in->c, in->depth))
            return in->depth == 8 ? dispatch_ba<uint8_t, 2>(in, out, kern, ksize, bx, by, err, errlen)
                   : in->c == 2   ? dispatch_ba<uint16_t, 2>(in, out, kern, ksize, bx, by, err, errlen)
                                  : dispatch_ba<uint16_t, 4>(in, out, kern, ksize, bx, by, err, errlen);
    }
    if (!gpu_blur_onepass_applies(in->c, in->depth, ksize))   /* same bits, two passes */
        return gpu_blur_separable(in, out, kern, ksize, bx, by, scratch, err, errlen);
    return in->c == 1   ? dispatch_q8<1>(in, out, kern, ksize, bx, by, err, errlen)
           : in->c == 3 ? dispatch_q8<3>(in, out, kern, ksize, bx, by, err, errlen)
                        : dispatch_q8<4>(in, out, kern, ksize, bx, by, err, errlen);
}

extern "C" int gpu_blur_separable(const struct gpu_image *in, const struct gpu_image *out, const uint32_t *kern,
                                  int ksize, const int32_t *bx, const int32_t *by, void *scratch, char *err,
                                  size_t errlen)
{
    return DISPATCH_TC(in->depth, in->c, launch_blur, in, out, kern, ksize, bx, by, scratch, err, errlen);
}

/* tensor: the same blur as two integer matrix products on the tensor cores (mma.sync m16n8k32,
 * u8 x u8 -> s32: exact), for 8-bit images whose Q8 weights are below 256 and kernels of up to
 * TN_MAXK1 taps (RGB past TN_MAXK3 as grey planes: tensor_planes; grey+alpha and RGBA up to
 * TN_MAXK2 and TN_MAXK4).
 * A block owns TN_W output bytes (16 column groups of 16: a tile need not hold whole pixels, every
 * byte is its own sum) x TH rows (32 or 64: launch_tall); warp w takes column groups w and w + 8.
 *  - stage: the tile's input rows (halo and border maps applied), each row realigned from its
 *    aligned 16-byte words and stored as 16-byte words: staged byte s of row r is byte column
 *    x0 - R*C + s of image row y0 - R + r;
 *  - across: for 16 output bytes, H^T (16 x 8 rows) = T (16 x K) * IN^T (K x 8 rows), T the banded
 *    Toeplitz matrix of the weights (T[m][m + C j] = w[j]), constant, held in registers; IN^T's
 *    fragments are 8 staged rows of 16 bytes each (ldmatrix). H <= 255 * 256 fits 16 bits;
 *  - down: out (16 rows x 8 bytes) = W (16 x K rows) * H (K rows x 8 bytes), done for H's low
 *    and high bytes (S = 256 hi + lo). The across step's accumulators hold, per thread, H of two
 *    consecutive rows for one byte: packed four at a time they are the down step's B fragments
 *    directly, with W's columns permuted to match (ro below), so H never goes through memory;
 *  - out: (S + 2^15) >> 16, bits 16..23 of lo + 256 hi, as byte pairs into a staging tile at the
 *    row's global alignment mod 16 rounded down to 4, copied out in aligned 16-byte words shifted
 *    by the rest (or, for a fused transpose, staged a pixel column a row and written as aligned
 *    4-byte words of the output rows: put_transposed).
 * RGBA and grey+alpha (PM) are blurred premultiplied, as the CPU does it: the realignment stages
 * each pixel's c a (< 2^16) as two byte planes, IN (low bytes and alpha) and IN2 (high bytes and
 * 0); across runs on both, H = H_lo + 256 H_hi < 2^24, and down on H's three bytes gives the exact
 * sums S < 2^32 that the epilogue divides by alpha's (the CPU's integers, so the same bits).
 * Against the one-pass kernels at 10109x4542: RGBA 0.96 -> 0.40 ms (blur_q8; H100, bench/
 * RESULTS.md, 28th session), grey+alpha 0.45 -> 0.18 (blur_alpha; 29th session).
 * Blocks are persistent (the A fragments are built once a block, while the kernel before it in the
 * stream finishes: launch_early) and the next tile's rows are copied asynchronously while this
 * tile is computed: on sm_90 a bulk copy (the copy engine) a row, counted on an mbarrier, before
 * that 16-byte cp.async; the realignment to the tile's byte columns is a shared-to-shared step.
 * About 0.5 instructions a warp per output byte against the one-pass kernel's 2.8 (bench/
 * RESULTS.md, eighth and 21st sessions). */
#define TN_W 256
#define TN_THREADS 256

/* The compiled tap counts past 17 (the work steps with TN's KH and KV, 32-byte and 32-row k steps,
 * not with the taps: grey's KH = KV = 2 from 19 to 49 taps, 3 to 81...; RGB's KH 3, 4 and 5 up to
 * 27, 37 and 49, then 7 and 8; RGBA's 3, 4 and 5 up to 21, 29 and 37, then 7; grey+alpha's 2, 3
 * and 4 up to 25, 41 and 49), grey's up to where a block's shared memory still fits an SM. Grey+alpha and
 * RGBA stop at 49 taps (sigma 8; RGBA's KH 7): RGBA's 64-row tiles use 255 registers from 29 taps
 * and spill 108 bytes at 49, one block an SM, and are still 2.2x the two-pass kernel there (1.02
 * against 2.21 ms at 45.9 Mpx, H100; 37 taps 0.85 against 1.98), grey+alpha's 3.0x (0.40 against
 * 1.19), bench/RESULTS.md, 29th session. RGB past 81 taps runs as three grey planes
 * (tensor_planes): at 97 and 113 taps the RGB tiles, one block an SM with 255 registers, measured
 * slower than the planes (91 taps 0.90 ms against 0.85; 113 taps 1.43 against 0.84), and at 65 and
 * 81 faster (0.61-0.65 against about 0.68: a plane 0.18, the split and join 0.13), 26th session. */
#define TN_SIZES1(X) X(49) X(81) X(113) X(145) X(177)
#define TN_SIZES3(X) X(27) X(37) X(49) X(65) X(81)
#define TN_SIZES2(X) X(25) X(41) X(49)
#define TN_SIZES4(X) X(21) X(29) X(37) X(49)
#define TN_MAXK2 49
#define TN_MAXK4 49
#define TN_MAXK1 177
#define TN_MAXK3 81
/* sm_90's shared memory: an SM's 228 KiB (1 KiB reserved a block), a block's at most 227 KiB */
#define SM90_SMEM_SM 233472
#define SM90_SMEM_BLOCK 232448

template <int C, int KS, int TH> struct TN {
    /* PM (RGBA, grey+alpha): colour premultiplied, P = c a < 2^16 staged as two byte planes (see
     * blur_tensor) */
    static constexpr bool PM = C == 2 || C == 4;
    static constexpr int NPL = PM ? 2 : 1;
    static constexpr int R = KS / 2, HB = R * C;
    static constexpr int KH = (16 + 2 * HB + 31) / 32;   /* across: 32-byte k steps for 16 outputs */
    static constexpr int KV = (15 + KS + 31) / 32;       /* down: 32-row k steps for 16 outputs */
    static constexpr int NT = TH / 8 - 2 + 4 * KV;       /* across: 8-row n tiles (TH / 16 m tiles down) */
    static constexpr int ROWS = 8 * NT;                  /* staged rows, >= TH + KS - 1 */
    static constexpr int NQ = 15 + 2 * KH;               /* staged 16-byte words a row: odd, so 8 rows
                                                            of one ldmatrix hit 8 different bank groups */
    static constexpr int PB = 16 * NQ;
    static constexpr int PR = PB + 16;                   /* raw rows: the aligned words the staged ones are cut from */
    static constexpr int PO = TN_W + 16;                 /* output staging pitch: 17 words */
    /* transposed (a fused transpose): the staging holds a tile pixel column a row, its TH rows' C
     * bytes each in output order, NPT rows (pixels a tile column band touches) of PT bytes; no
     * larger than the plain staging (more would cost a block an SM) */
    static constexpr int PT = TH * C, NPT = C == 1 ? TN_W : (TN_W + C - 1) / C + 1;
    static_assert(NPT * PT <= TH * PO, "transposed staging");
    static constexpr size_t SMEM = (size_t)ROWS * (NPL * PB + PR) + 16 + (size_t)TH * PO + 2 * ROWS * (8 + 4) + 16;
    /* FITS: a block's shared memory fits sm_90's; MINB: the blocks an SM it allows there, 1 to 4,
     * the register cap (4 for 32-row tiles and 3 for 64-row ones up to 17 taps, 3 to 1 beyond; with
     * the second plane, RGBA 4 or 3 and 2 up to 17 taps, then 2 or 1 and 1, grey+alpha 4 and 2,
     * then 2 and 1) */
    static constexpr bool FITS = SMEM <= SM90_SMEM_BLOCK;
    static constexpr int BY_SMEM = (int)(SM90_SMEM_SM / (SMEM + 1024));
    static constexpr int MINB = BY_SMEM < 1 ? 1 : BY_SMEM < 4 ? BY_SMEM : 4;
};

/* Weight j of the compiled KS taps (the ksize-tap kernel centred in zeros), Q8. */
template <int KS>
__device__ __forceinline__ uint32_t tn_weight(const uint32_t *kern, int ksize, int j)
{
    const int kk = j - (KS / 2 - ksize / 2);
    return j >= 0 && j < KS && kk >= 0 && kk < ksize ? __ldg(kern + kk) >> 8 : 0u;
}

/* Register r of a thread's A fragment (m16n8k32, u8): row m = g (+8 for registers 1 and 3), k = 4t
 * + byte (+16 for registers 2 and 3); entry (m, k) is weight tap(m, k) of the compiled taps (out of
 * range: 0). */
template <int KS, typename F>
__device__ __forceinline__ uint32_t a_frag(const uint32_t *kern, int ksize, int g, int t, int r, F tap)
{
    uint32_t v = 0;
#pragma unroll
    for (int i = 0; i < 4; i++)
        v |= tn_weight<KS>(kern, ksize, tap(g + 8 * (r & 1), 16 * (r >> 1) + 4 * t + i)) << (8 * i);
    return v;
}

__device__ __forceinline__ void mma_u8(uint32_t (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], const void *p)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
}

__device__ __forceinline__ void ldsm_x2(uint32_t (&r)[4], const void *p)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(s));
}

/* Bytes [a, b) of v, the value of the aligned 16-byte word at d (0 <= a < b <= 16, b - a < 16), in
 * the widest aligned pieces: at most 8 stores where a byte loop took up to 15 (the tensor blur's
 * row ends were 8% of its instructions, 21st session). */
__device__ __forceinline__ void put_part16(uint8_t *d, const uint4 &v, int a, int b)
{
    auto wd = [&](int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; };
    auto part = [&](int i) { return wd(i >> 2) >> (8 * (i & 3)); };
    if (a & 1) {
        d[a] = (uint8_t)part(a);
        a += 1;
    }
    if ((a & 2) && a + 2 <= b) {
        *(uint16_t *)(d + a) = (uint16_t)part(a);
        a += 2;
    }
    if ((a & 4) && a + 4 <= b) {
        *(uint32_t *)(d + a) = wd(a >> 2);
        a += 4;
    }
    if ((a & 8) && a + 8 <= b) {
        *(uint2 *)(d + a) = make_uint2(wd(a >> 2), wd((a >> 2) + 1));
        a += 8;
    }
    if (a + 8 <= b) {
        *(uint2 *)(d + a) = make_uint2(wd(a >> 2), wd((a >> 2) + 1));
        a += 8;
    }
    if (a + 4 <= b) {
        *(uint32_t *)(d + a) = wd(a >> 2);
        a += 4;
    }
    if (a + 2 <= b) {
        *(uint16_t *)(d + a) = (uint16_t)part(a);
        a += 2;
    }
    if (a < b)
        d[a] = (uint8_t)part(a);
}

/* 16 staged bytes from p - r3 (r3 < 4; p 16-byte aligned, p - 4 readable) */
__device__ __forceinline__ uint4 staged16(const uint8_t *p, int r3)
{
    const uint4 w = *(const uint4 *)p;
    const uint32_t m = *(const uint32_t *)(p - 4), s = 32 - 8 * r3;
    return make_uint4(__funnelshift_rc(m, w.x, s), __funnelshift_rc(w.x, w.y, s), __funnelshift_rc(w.y, w.z, s),
                      __funnelshift_rc(w.z, w.w, s));
}

/* PM: a word of pixels premultiplied, P = c a < 2^16 for each colour, as two words of byte planes.
 * RGBA (a pixel): the low bytes (P_r, P_g, P_b, a) and the high bytes (P_r >> 8, P_g >> 8, P_b >> 8,
 * 0); red and blue take one multiply (their products stay in their 16-bit halves). Grey+alpha (two
 * pixels, or one in the low half): (P_0, a_0, P_1, a_1) and (P_0 >> 8, 0, P_1 >> 8, 0), both P in
 * one word's halves. */
template <int C> __device__ __forceinline__ void premul(uint32_t px, uint32_t &pl, uint32_t &ph)
{
    if constexpr (C == 4) {
        const uint32_t a = px >> 24, rb = (px & 0x00ff00ffu) * a, g = __byte_perm(px, 0u, 0x4441) * a;
        pl = __byte_perm(rb, g, 0x7240) | (px & 0xff000000u);
        ph = __byte_perm(rb, g, 0x7351);
    } else {
        const uint32_t p = (px & 0xffu) * __byte_perm(px, 0u, 0x4441)
                           + ((__byte_perm(px, 0u, 0x4442) * (px >> 24)) << 16);
        pl = (p & 0x00ff00ffu) | (px & 0xff00ff00u);
        ph = __byte_perm(p, 0u, 0x4341);
    }
}

/* (registers capped at the blocks an SM that its shared memory allows: TN::MINB) */
template <int C, int KS, bool TR, int TH>
__global__ void __launch_bounds__(TN_THREADS, TN<C, KS, TH>::MINB)
    blur_tensor(const uint8_t *__restrict__ in, int w, int h, uint8_t *__restrict__ out,
                const uint32_t *__restrict__ kern, int ksize, const int32_t *__restrict__ bx,
                const int32_t *__restrict__ by)
{
    typedef TN<C, KS, TH> G;
    extern __shared__ __align__(16) unsigned char tns[];
    uint8_t *IN = tns, *IN2 = IN + (size_t)G::ROWS * G::PB, *RAW = IN + (size_t)G::NPL * G::ROWS * G::PB,
            *OS = RAW + (size_t)G::ROWS * G::PR + 16;
    /* (IN2: PM's high-byte plane; 16 bytes between RAW and OS: staged16 reads 4 before a staging row)
     * staged row i of the tile (index k) and of the next one (k ^ 1): src, where the asynchronous copy
     * reads it (the first aligned word of its span) for a raw row, else the image row's offset (or -1:
     * the constant border's zeros); at, a raw row's RAW byte of staged byte 0 (i PR + the span's
     * shift), -1 for the others */
    long long(*src)[G::ROWS] = (long long(*)[G::ROWS])(OS + (size_t)TH * G::PO);
    int(*at)[G::ROWS] = (int(*)[G::ROWS])(src + 2);
    uint64_t *bar = (uint64_t *)(at + 2);   /* sm_90: the rows of buffer b have arrived on bar[b] */
    const int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5, g = lane >> 2, t = lane & 3;
    const int rk = ksize / 2;
    /* the constant A fragments: across, T[m][m + C j] = w[j]; down, W[m][k] = w[32 ks + ro(k) - m],
     * ro(k) the H row that k position holds in the packing below (16 (k / 16) + {0, 1, 8, 9}[k % 4]
     * + 2 ((k / 4) % 4)) */
    uint32_t a1[G::KH][4], a2[G::KV][4];
#pragma unroll
    for (int r = 0; r < 4; r++) {
#pragma unroll
        for (int ks = 0; ks < G::KH; ks++)
            a1[ks][r] = a_frag<KS>(kern, ksize, g, t, r, [&](int m, int k) {
                const int d = 32 * ks + k - m;
                return d >= 0 && d % C == 0 ? d / C : -1;
            });
#pragma unroll
        for (int ks = 0; ks < G::KV; ks++)
            a2[ks][r] = a_frag<KS>(kern, ksize, g, t, r, [&](int m, int k) {
                return 32 * ks + (k & 16) + 8 * ((k & 3) >> 1) + 2 * ((k >> 2) & 3) + (k & 1) - m;
            });
    }
    /* int: rows are at most 2^27 bytes and the launcher keeps the tile count below 2^31 */
    const int rowbytes = w * C, ncol = (rowbytes + TN_W - 1) / TN_W, nrow = (h + TH - 1) / TH;
    const long long total = (long long)rowbytes * h;
    /* The rows of a tile. Staged row i belongs to thread 32 (i % 8) + i / 8 (every warp fills in
     * and issues a few): map_row gives its image row through the border map (loaded a tile ahead,
     * its latency hidden behind a realignment), fill_row where it comes from. A row comes through
     * the asynchronous copy when its aligned span of NQ + 1 words lies inside the image, even where
     * the span runs past the row's ends: in a tile at the image's left or right edge the HB staged
     * bytes past the row's end (the only ones an output reads) are then put right by fix_edges. */
    static_assert(G::ROWS <= TN_THREADS, "a thread a staged row");
    const int myrow = 8 * lane + wid;
    auto map_row = [&](int y0) {
        const int p = y0 - G::R + myrow;
        /* border_pos written out: through the helper this kernel compiled 8 instructions longer */
        return myrow < G::ROWS && p >= -rk && p < h + rk ? by[p + rk] : -1;
    };
    auto fill_row = [&](int b, int xb0, int sr) {
        if (myrow < G::ROWS) {
            const long long ro = sr >= 0 ? (long long)sr * rowbytes : -1, a = ro + xb0 - G::HB;
            const int sh = (int)(((size_t)in + (size_t)a) & 15);
            const bool raw = ro >= 0 && a - sh >= 0 && a - sh + G::PR <= total;
            src[b][myrow] = raw ? (long long)(size_t)(in + (a - sh)) : ro;
            at[b][myrow] = raw ? myrow * G::PR + sh : -1;
        }
    };
    /* the raw rows into RAW: on sm_90 one bulk copy a row by the thread that filled it in, its bytes
     * counted on bar[b] (all ROWS threads arrive), so the block issues 80 copies, not 1600 16-byte
     * ones (those were 9% of the instructions, 21st session); before sm_90, 16-byte copies by the
     * whole block */
    auto issue = [&](int b) {
#if __CUDA_ARCH__ >= 900
        if (myrow < G::ROWS) {
            if (at[b][myrow] >= 0) {
                mbar_arrive_tx(&bar[b], G::PR);
                bulk_g2s(RAW + myrow * G::PR, (const void *)(size_t)src[b][myrow], G::PR, &bar[b]);
            } else
                mbar_arrive(&bar[b]);
        }
#else
        for (int e = tid; e < G::ROWS * (G::NQ + 1); e += TN_THREADS) {
            const int i = e / (G::NQ + 1), j = e - i * (G::NQ + 1);
            if (at[b][i] >= 0)
                cp_async16(RAW + i * G::PR + 16 * j, (const uint8_t *)(size_t)src[b][i] + 16 * j);
        }
        cp_async_commit();
#endif
    };
    /* persistent blocks (the fragments above are built once), consecutive ones on neighbouring
     * tiles of a row band, the next tile's rows in flight while this one is computed; tile (ty, tx)
     * steps by the grid without a division */
    int k = 0, ty = (int)blockIdx.x / ncol, tx = (int)blockIdx.x - ty * ncol;
    const int sq = (int)gridDim.x / ncol, sx = (int)gridDim.x - sq * ncol;
#if __CUDA_ARCH__ >= 900
    if (tid == 0) {
        mbar_init(&bar[0], G::ROWS);
        mbar_init(&bar[1], G::ROWS);
        mbar_init_fence();
    }
#endif
    /* launched early (launch_early): the fragments and barriers above are made while the kernel
     * before finishes; nothing global is read or written before this wait. After the warp resize
     * (gray,resize=50%,blur=2 at 45.9 Mpx) 0.079 -> 0.074 ms, at 1080p 0.020 -> 0.014 (bench/
     * RESULTS.md, 24th session). */
    griddep_wait();
    if (ty < nrow) {
        fill_row(0, tx * TN_W, map_row(ty * TH));
        __syncthreads();
        issue(0);
    }
    /* Two barriers a tile (three in an edge tile, before fix_edges): after the realignment (IN
     * whole, RAW free for the next tile's copies, OS free of the last tile's copy-out) and before
     * the copy-out (OS whole); on sm_90 every thread waits for the rows on the mbarrier itself */
    for (int n = 0; ty < nrow; n++) {
        const int y0 = ty * TH, xb0 = tx * TN_W;   /* the tile's first row and output byte column */
        const int nbytes = min(TN_W, rowbytes - xb0);
        int nty = ty + sq, ntx = tx + sx;
        if (ntx >= ncol) {
            ntx -= ncol;
            nty++;
        }
        const bool more = nty < nrow;
        const int nsr = more ? map_row(nty * TH) : -1;   /* used after the realignment */
#if __CUDA_ARCH__ >= 900
        mbar_wait(&bar[k], (n >> 1) & 1);
#else
        cp_async_wait_all();
        __syncthreads();
#endif
        /* realign: staged word c of row i (its 16-byte word e of IN, as PB = 16 NQ) is raw bytes
         * sh + 16c .. of the row's aligned span; consecutive threads on consecutive words */
        for (int e = tid; e < G::ROWS * G::NQ; e += TN_THREADS) {
            const int i = e / G::NQ, c = e - i * G::NQ, f = at[k][i];
            uint4 v = make_uint4(0, 0, 0, 0);
            if (f >= 0) {
                const uint8_t *rw = RAW + (f & ~15) + 16 * c;
                v = cut16(*(const uint4 *)rw, *(const uint4 *)(rw + 16), f & 15);
            } else if (src[k][i] >= 0) {
                const uint8_t *row = in + src[k][i];
                const int q0 = xb0 - G::HB + 16 * c;   /* byte column of the word's first byte */
                uint32_t wd[4] = {};
#pragma unroll
                for (int b = 0; b < 16; b++)
                    wd[b >> 2] |= border_byte<C>(row, q0 + b, w, rk, bx) << (8 * (b & 3));
                v = make_uint4(wd[0], wd[1], wd[2], wd[3]);
            }
            if constexpr (G::PM) {   /* a staged word is whole pixels (tiles and halo: whole pixels) */
                uint4 pl, ph;
                premul<C>(v.x, pl.x, ph.x);
                premul<C>(v.y, pl.y, ph.y);
                premul<C>(v.z, pl.z, ph.z);
                premul<C>(v.w, pl.w, ph.w);
                *(uint4 *)(IN + 16 * e) = pl;
                *(uint4 *)(IN2 + 16 * e) = ph;
            } else
                *(uint4 *)(IN + 16 * e) = v;
        }
        /* fix_edges: a tile whose outputs read columns past a row's ends: copied rows get the
         * border map's bytes at the HB columns before byte 0 and after the row's last, where they
         * fall inside the staging (the rest past the ends is read by no output). Byte by byte
         * through the border map, whole edge tiles were 5% of the instructions and made their
         * blocks the stragglers (21st session). */
        if (xb0 < G::HB || xb0 + nbytes + G::HB > rowbytes) {
            __syncthreads();
            /* a byte at a time (PM: a pixel, premultiplied as above): NU units each side of a row */
            constexpr int U = G::PM ? C : 1, NU = G::HB / U;
            for (int e = tid; e < G::ROWS * 2 * NU; e += TN_THREADS) {
                const int i = e / (2 * NU), j = e - i * 2 * NU, f = at[k][i];
                const int q = U * (j < NU ? j - NU : (G::PM ? w : rowbytes) + j - NU), s = q - xb0 + G::HB;
                if (f >= 0 && s >= 0 && s < G::PB) {
                    const long long ro = src[k][i] - (long long)(size_t)in + (f - i * G::PR) - xb0 + G::HB;
                    if constexpr (G::PM) {   /* pixel q / C through the map once, in one load */
                        const int mx = border_pos(q / C, w, rk, bx);
                        uint32_t px = 0, pl, ph;
                        if (mx >= 0) {   /* (in + ro is the row's start, C-aligned) */
                            uint8_t pb[C];
                            ld_vec<uint8_t, C>(in + ro + (long long)mx * C, pb);
                            memcpy(&px, pb, C);
                        }
                        premul<C>(px, pl, ph);
                        if constexpr (C == 4) {
                            *(uint32_t *)(IN + i * G::PB + s) = pl;
                            *(uint32_t *)(IN2 + i * G::PB + s) = ph;
                        } else {
                            *(uint16_t *)(IN + i * G::PB + s) = (uint16_t)pl;
                            *(uint16_t *)(IN2 + i * G::PB + s) = (uint16_t)ph;
                        }
                    } else
                        IN[i * G::PB + s] = (uint8_t)border_byte<C>(in + ro, q, w, rk, bx);
                }
            }
        }
        if (more)
            fill_row(k ^ 1, ntx * TN_W, nsr);
        __syncthreads();
        if (more)
            issue(k ^ 1);
        const int r0 = xb0 % C;   /* transposed: the tile's first byte is channel r0 of its first pixel */
        /* not transposed, the outputs leave the down step as pairs of bytes (2t, 2t + 1 of a row's
         * 8-byte half), one 2-byte store each: a row is staged at its global address mod 16
         * rounded down to 4 bytes (the same 16 rows apart) and the copy-out shifts the rest. Byte
         * stores were 35% of the shared-memory wavefronts, 2.3-way conflicted (21st session). */
        const unsigned ob = (unsigned)(size_t)out + (unsigned)xb0, rb = (unsigned)rowbytes;
        uint8_t *const ost0 = OS + g * G::PO + (int)((ob + (unsigned)(y0 + g) * rb) & 12u) + 2 * t;
        uint8_t *const ost1 = OS + (g + 8) * G::PO + (int)((ob + (unsigned)(y0 + g + 8) * rb) & 12u) + 2 * t;
        uint8_t *const ostp = t & 1 ? ost1 - 2 : ost0;   /* PM: this lane's pixel (see below) */
#pragma unroll 1
        for (int cg = wid; cg < TN_W / 16; cg += 8) {
            /* across: n tile nt holds H of rows 8 nt + 2t, +1 for bytes g (d[0], d[1]) and g + 8 (d[2], d[3]) */
            uint32_t d1[G::NT][4];
            auto across = [&](const uint8_t *row, uint32_t(&d)[4]) {
                d[0] = d[1] = d[2] = d[3] = 0;
#pragma unroll
                for (int ks = 0; ks < G::KH; ks += 2) {
                    uint32_t b[4];
                    if (ks + 1 < G::KH) {
                        ldsm_x4(b, row + 32 * ks);
                        mma_u8(d, a1[ks], b[0], b[1]);
                        mma_u8(d, a1[ks + 1], b[2], b[3]);
                    } else {
                        ldsm_x2(b, row + 32 * ks);
                        mma_u8(d, a1[ks], b[0], b[1]);
                    }
                }
            };
#pragma unroll
            for (int nt = 0; nt < G::NT; nt++) {
                const int ro = (8 * nt + (lane & 7)) * G::PB + 16 * cg + 16 * (lane >> 3);
                across(IN + ro, d1[nt]);
                if constexpr (G::PM) {   /* H = H(low bytes) + 256 H(high bytes) < 2^24 */
                    uint32_t dh[4];
                    across(IN2 + ro, dh);
#pragma unroll
                    for (int r = 0; r < 4; r++)
                        d1[nt][r] += dh[r] << 8;
                }
            }
            /* down's B fragments: rows 16q + {2t, 2t+1, 8+2t, 9+2t} of byte g (nb 0) or g + 8 (nb 1),
             * bytes 0 and 1 of H (PM: and byte 2) */
            uint32_t blo[G::NT / 2][2], bhi[G::NT / 2][2], b2[G::PM ? G::NT / 2 : 1][2];
#pragma unroll
            for (int q = 0; q < G::NT / 2; q++)
#pragma unroll
                for (int nb = 0; nb < 2; nb++) {
                    const uint32_t x = __byte_perm(d1[2 * q][2 * nb], d1[2 * q][2 * nb + 1], 0x5140);
                    const uint32_t y = __byte_perm(d1[2 * q + 1][2 * nb], d1[2 * q + 1][2 * nb + 1], 0x5140);
                    blo[q][nb] = __byte_perm(x, y, 0x5410);
                    bhi[q][nb] = __byte_perm(x, y, 0x7632);
                    if constexpr (G::PM)
                        b2[q][nb] = __byte_perm(__byte_perm(d1[2 * q][2 * nb], d1[2 * q][2 * nb + 1], 0x7362),
                                                __byte_perm(d1[2 * q + 1][2 * nb], d1[2 * q + 1][2 * nb + 1], 0x7362),
                                                0x5410);
                }
#pragma unroll
            for (int mt = 0; mt < TH / 16; mt++)
#pragma unroll
                for (int nb = 0; nb < 2; nb++) {
                    /* PM: the exact sum S; else S + 2^15 for the rounding */
                    const uint32_t r0s = G::PM ? 0u : 32768u;
                    uint32_t lo[4] = { r0s, r0s, r0s, r0s }, hi[4] = { 0, 0, 0, 0 }, h2[4] = { 0, 0, 0, 0 };
#pragma unroll
                    for (int ks = 0; ks < G::KV; ks++) {
                        const int q = mt + 2 * ks;
                        mma_u8(lo, a2[ks], blo[q][nb], blo[q + 1][nb]);
                        mma_u8(hi, a2[ks], bhi[q][nb], bhi[q + 1][nb]);
                        if constexpr (G::PM)
                            mma_u8(h2, a2[ks], b2[q][nb], b2[q + 1][nb]);
                    }
                    /* lo, hi: rows 16 mt + g (+8 for 2, 3), bytes 16 cg + 8 nb + 2t (+1 for 1, 3); the
                     * output byte is bits 16..23 of lo + 256 hi (S + 2^15 < 2^24) */
                    uint32_t sb[4];
#pragma unroll
                    for (int r = 0; r < 4; r++)
                        sb[r] = lo[r] + (hi[r] << 8) + (G::PM ? h2[r] << 16 : 0u);
                    if constexpr (G::PM && C == 2) {
                        /* S = lo + 256 hi + 65536 h2 < 2^32 for each byte; bytes 2t and 2t + 1 of a
                         * row are one pixel (grey, alpha), 2 bytes out */
                        const int xb = 16 * cg + 8 * nb + 2 * t;
#pragma unroll
                        for (int hr = 0; hr < 2; hr++) {
                            const uint32_t A = sb[2 * hr + 1], S1[1] = { sb[2 * hr] };
                            const uint16_t px = (uint16_t)straight8<2>((A + 32768u) >> 16, S1, A);
                            if (TR)
                                *(uint16_t *)(OS + xb / 2 * G::PT + 2 * (16 * mt + g + 8 * hr)) = px;
                            else
                                *(uint16_t *)((hr ? ost1 : ost0) + 16 * mt * G::PO + 16 * cg + 8 * nb) = px;
                        }
                    } else if constexpr (G::PM) {
                        /* S = lo + 256 hi + 65536 h2 < 2^32 for each byte: lanes t and t ^ 1 hold two
                         * pixels (rows g and g + 8; t even channels 0, 1, t odd 2 and alpha), swapped so
                         * that each holds one whole pixel (even lanes row g, odd ones g + 8), whose three
                         * colours share one reciprocal of A: alpha (A + 2^15) >> 16, colour
                         * round(S / A). Dividing two channels a lane, as they come, took 0.487 ms
                         * against 0.404 at 10109x4542 (H100; bench/RESULTS.md, 28th session). */
                        const bool odd = t & 1;
                        const uint32_t y0 = __shfl_xor_sync(0xffffffffu, odd ? sb[0] : sb[2], 1);
                        const uint32_t y1 = __shfl_xor_sync(0xffffffffu, odd ? sb[1] : sb[3], 1);
                        const uint32_t A = odd ? sb[3] : y1;
                        const uint32_t S3[3] = { odd ? y0 : sb[0], odd ? y1 : sb[1], odd ? sb[2] : y0 };
                        const uint32_t px = straight8<4>((A + 32768u) >> 16, S3, A);
                        const int y = 16 * mt + g + (odd ? 8 : 0), xb = 16 * cg + 8 * nb + 2 * (t & 2);
                        if (TR)   /* (a tile starts on a pixel: r0 = 0) */
                            *(uint32_t *)(OS + xb / 4 * G::PT + 4 * y) = px;
                        else
                            *(uint32_t *)(ostp + 16 * mt * G::PO + 16 * cg + 8 * nb) = px;
                    } else if (TR) {   /* pixel column xl of the tile, byte y C + ch of its output row */
#pragma unroll
                        for (int r = 0; r < 4; r++) {
                            const int y = 16 * mt + g + 8 * (r >> 1), xb = 16 * cg + 8 * nb + 2 * t + (r & 1);
                            const int xl = (r0 + xb) / C, ch = r0 + xb - C * xl;
                            OS[xl * G::PT + y * C + ch] = (uint8_t)(sb[r] >> 16);
                        }
                    } else {
                        const int o = 16 * mt * G::PO + 16 * cg + 8 * nb;
                        *(uint16_t *)(ost0 + o) = (uint16_t)__byte_perm(sb[0], sb[1], 0x62);
                        *(uint16_t *)(ost1 + o) = (uint16_t)__byte_perm(sb[2], sb[3], 0x62);
                    }
                }
        }
        __syncthreads();
        const int nr = min(TH, h - y0);
        if (TR) {
            const long long p0 = xb0 / C;
            put_transposed<C, TH>(OS, G::PT, out, h, p0, (int)((xb0 + nbytes - 1) / C - p0 + 1), y0, nr, xb0,
                                    xb0 + nbytes);
        } else {
            /* whole aligned 16-byte words: row y's global bytes from xb0 are staged from its address
             * mod 16 (sh, the same 16 rows apart) rounded down to 4, so the aligned word at lo of the
             * staging row is the 16 bytes from lo - sh % 4; a thread a word slot of rows y, y + 16,
             * ..., the slots starting after a partial head */
            {
                const int y = tid >> 4;
                uint8_t *row = out + (long long)(y0 + y) * rowbytes + xb0;
                const int sh = (int)((size_t)row & 15), lo = 16 * ((tid & 15) + (sh != 0));
                if (lo + 16 <= sh + nbytes)
#pragma unroll
                    for (int j = 0; j < TH / 16; j++)
                        if (y + 16 * j < nr)
                            *(uint4 *)(row - sh + lo + 16LL * j * rowbytes) = staged16(OS + (y + 16 * j) * G::PO + lo, sh & 3);
            }
            /* the partial words at the two ends of each row (shared with the neighbouring tiles):
             * the head's bytes [sh, min(16, end)), the tail's [0, end % 16) */
            if (tid < 2 * TH && (tid >> 1) < nr) {
                const int y = tid >> 1;
                uint8_t *row = out + (long long)(y0 + y) * rowbytes + xb0;
                const int sh = (int)((size_t)row & 15), end = sh + nbytes, K = end >> 4;
                const bool head = !(tid & 1);
                const int lo = head ? 0 : 16 * K;
                if (head ? sh != 0 : (end & 15) != 0 && (K > 0 || sh == 0))
                    put_part16(row - sh + lo, staged16(OS + y * G::PO + lo, sh & 3), head ? sh : 0,
                               head ? min(16, end) : end & 15);
            }
        }
        ty = nty;
        tx = ntx;
        k ^= 1;
    }
}

/* The blocks of blur_tensor<C, KS, TR, TH> resident at once (its shared memory allowed first). */
template <int C, int KS, bool TR, int TH> static cudaError_t tensor_resident(long long *resident)
{
    const cudaError_t e = cudaFuncSetAttribute(blur_tensor<C, KS, TR, TH>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)TN<C, KS, TH>::SMEM);
    return e != cudaSuccess ? e : resident_blocks(blur_tensor<C, KS, TR, TH>, TN_THREADS, TN<C, KS, TH>::SMEM, resident);
}

/* persistent: at most the resident blocks (tensor_resident's count) */
template <int C, int KS, bool TR, int TH>
static int launch_tensor(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize,
                         const int32_t *bx, const int32_t *by, long long resident, char *err, size_t errlen)
{
    const long long ntiles = ((long long)in->w * C + TN_W - 1) / TN_W * ((in->h + TH - 1) / TH);
    launch_early(blur_tensor<C, KS, TR, TH>, dim3((unsigned)min(ntiles, resident)), TN_THREADS, TN<C, KS, TH>::SMEM,
                 TN_W * TH / C / 256, (const uint8_t *)in->data, in->w, in->h, (uint8_t *)out->data, kern, ksize,
                 bx, by);
    LAUNCH_TRY(err, errlen);
    return 0;
}

/* Tiles of 64 rows where they are at least TN_WAVES times the blocks resident at once, 32 below.
 * A 64-row tile stages and filters across 76 rows for 64 outputs (80 rows staged, against 96 for two
 * 32-row tiles) and has half the barriers an output: RGB 10109x4542 0.218 -> 0.187 ms, grey 0.081
 * -> 0.073 (sixteenth session). Its 70 KiB of shared memory leave 3 blocks an SM, not 4, and it
 * makes half the tiles, which once made the waves uneven where they are few; since the 21st
 * session's kernel one wave is enough (RGB 2560x1440 0.030 -> 0.025 ms, 3840x2160 0.045 -> 0.038,
 * grey 5055x2271 0.025 -> 0.023; grey 2560x1440 and 3840x2160 level; 4 and 2 waves measured). */
#define TN_WAVES 1
template <int C, int KS, bool TR>
static int launch_tall(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize,
                       const int32_t *bx, const int32_t *by, char *err, size_t errlen)
{
    long long resident = 0;
    if constexpr (TN<C, KS, 64>::FITS) {
        if (TN<C, KS, 64>::SMEM <= (size_t)dev_attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, 0)) {
            CUDA_TRY((tensor_resident<C, KS, TR, 64>(&resident)), err, errlen);
            const long long tiles = ((long long)in->w * C + TN_W - 1) / TN_W * ((in->h + 63) / 64);
            if (tiles >= TN_WAVES * resident)
                return launch_tensor<C, KS, TR, 64>(in, out, kern, ksize, bx, by, resident, err, errlen);
        }
    }
    CUDA_TRY((tensor_resident<C, KS, TR, 32>(&resident)), err, errlen);
    return launch_tensor<C, KS, TR, 32>(in, out, kern, ksize, bx, by, resident, err, errlen);
}

/* f(std::integral_constant<int, K>()) for the smallest compiled tensor size K that holds ksize taps
 * of C channels (as by_tap_count for the one-pass kernels); none where there is none */
template <int C, typename R, typename F> static R by_tensor_size(int ksize, R none, F f)
{
#define TN_TRY(K)                                                                                  \
    if (ksize <= K)                                                                                \
        return f(std::integral_constant<int, K>());
    TN_TRY(3) TN_TRY(5) TN_TRY(7) TN_TRY(9) TN_TRY(11) TN_TRY(13) TN_TRY(17)
    if constexpr (C == 1) {
        TN_SIZES1(TN_TRY)
    } else if constexpr (C == 2) {
        TN_SIZES2(TN_TRY)
    } else if constexpr (C == 3) {
        TN_SIZES3(TN_TRY)
    } else {
        TN_SIZES4(TN_TRY)
    }
#undef TN_TRY
    return none;
}

/* (T: the sample type, uint8_t, for DISPATCH_C) */
template <typename T, int C>
static int dispatch_tensor(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize,
                           const int32_t *bx, const int32_t *by, char *err, size_t errlen)
{
    static_assert(sizeof(T) == 1, "the tensor blur takes 8-bit samples");
    return by_tensor_size<C>(ksize, -1, [&](auto K) {
        constexpr int k = decltype(K)::value;
        return out->transposed ? launch_tall<C, k, true>(in, out, kern, ksize, bx, by, err, errlen)
                               : launch_tall<C, k, false>(in, out, kern, ksize, bx, by, err, errlen);
    });
}

/* RGB past TN_MAXK3 taps (its tiles fill an SM alone, grey's fit up to TN_MAXK1): three grey
 * planes through the grey kernel. rgb_planes<false> (split) writes the n interleaved pixels of src
 * as planes R, G, B at dst, dst + np and dst + 2np (np a multiple of 4), rgb_planes<true> (join)
 * the reverse; a thread takes 4 pixels (12 bytes as three aligned words, turned by byte permutes:
 * cudaMalloc's alignment), the last n % 4 byte by byte. */
template <bool JOIN>
__global__ void rgb_planes(const uint8_t *__restrict__ src, uint8_t *__restrict__ dst, long long n, long long np)
{
    const long long q = n >> 2, step = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i <= q; i += step) {
        if (i == q) {
            for (long long k = 4 * q; k < n; k++)
                for (int ch = 0; ch < 3; ch++) {
                    if (JOIN)
                        dst[3 * k + ch] = src[ch * np + k];
                    else
                        dst[ch * np + k] = src[3 * k + ch];
                }
        } else if (JOIN) {
            const uint32_t r = ((const uint32_t *)src)[i], g = ((const uint32_t *)(src + np))[i];
            const uint32_t b = ((const uint32_t *)(src + 2 * np))[i];
            uint32_t *d = (uint32_t *)(dst + 12 * i);
            d[0] = __byte_perm(__byte_perm(r, g, 0x1040), b, 0x3410);
            d[1] = __byte_perm(__byte_perm(g, r, 0x2601), b, 0x3250);
            d[2] = __byte_perm(__byte_perm(b, r, 0x3072), g, 0x3710);
        } else {
            const uint32_t *s = (const uint32_t *)(src + 12 * i);
            const uint32_t w0 = s[0], w1 = s[1], w2 = s[2];   /* R0G0B0R1 G1B1R2G2 B2R3G3B3 */
            ((uint32_t *)dst)[i] = __byte_perm(__byte_perm(w0, w1, 0x0630), w2, 0x5210);
            ((uint32_t *)(dst + np))[i] = __byte_perm(__byte_perm(w0, w1, 0x0741), w2, 0x6210);
            ((uint32_t *)(dst + 2 * np))[i] = __byte_perm(__byte_perm(w0, w1, 0x0052), w2, 0x7410);
        }
    }
}

/* The shared memory of the 32-row tiles (the smaller) of the compiled size that takes ksize taps
 * of C channels (T as for dispatch_tensor) */
template <typename T, int C> static size_t tensor_smem(int ksize)
{
    return by_tensor_size<C>(ksize, (size_t)-1, [](auto K) { return TN<C, decltype(K)::value, 32>::SMEM; });
}

/* 0: the tensor kernel does not take this blur; 1: it does; 2: it does as three grey planes in
 * the scratch (RGB from TN_MAXK3 to TN_MAXK1 taps). (The kernel counts its tiles in int: below 2^31
 * of 32 rows, some 35 TB of image; its blocks' shared memory must fit the GPU's: before sm_90 the
 * largest sizes do not.) */
extern "C" int gpu_blur_tensor_applies(int c, int depth, int ksize, int weights_below_256, int w, int h)
{
    if (depth != 8 || ksize < 3 || !weights_below_256
        || ((long long)w * c + TN_W - 1) / TN_W * ((h + 31) / 32) >= 0x7fffffffLL)
        return 0;
    const int planes = c == 3 && ksize > TN_MAXK3, cc = planes ? 1 : c;
    if (ksize > (cc == 1 ? TN_MAXK1 : cc == 2 ? TN_MAXK2 : cc == 3 ? TN_MAXK3 : TN_MAXK4)
        || (planes && (long long)w * h < 15)
        || DISPATCH_C(uint8_t, cc, tensor_smem, ksize) > (size_t)dev_attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, 0))
        return 0;
    return planes ? 2 : 1;
}

/* Where gpu_blur_tensor writes a transposed output: where it runs itself (gpu_blur_tensor_applies
 * 1), and where it falls back to gpu_blur_tiled, which writes it only in one pass. */
extern "C" int gpu_blur_tensor_transposes(int c, int depth, int ksize, int weights_below_256, int w, int h)
{
    return gpu_blur_tensor_applies(c, depth, ksize, weights_below_256, w, h) == 1
           || gpu_blur_onepass_applies(c, depth, ksize);
}

/* RGB as planes (gpu_blur_tensor_applies 2): split into the scratch's first 3 planes, each blurred
 * into one of the next 3, joined into out. A plane takes w h bytes rounded up to 16 (rgb_planes'
 * words and the tensor kernel's copies aligned): 6 of them fit gpu_blur_scratch's 12 w h from 15
 * pixels. */
static int tensor_planes(const gpu_image *in, const gpu_image *out, const uint32_t *kern, int ksize,
                         const int32_t *bx, const int32_t *by, void *scratch, char *err, size_t errlen)
{
    const long long n = (long long)in->w * in->h, q = n / 4 + 1, np = (n + 15) & ~15LL;
    /* (128 threads, 4 pixels a thread: gpu_parity tells the join from the two-pass kernel's 8) */
    const unsigned blocks = (unsigned)min(q / 128 + 1, 65536LL);
    uint8_t *p = (uint8_t *)scratch;
    launch(rgb_planes<false>, blocks, 128, 0, 4, (const uint8_t *)in->data, p, n, np);
    LAUNCH_TRY(err, errlen);
    for (int ch = 0; ch < 3; ch++) {
        gpu_image pi = *in, po = *out;
        pi.c = po.c = 1;
        pi.data = p + ch * np;
        po.data = p + (3 + ch) * np;
        const int r = dispatch_tensor<uint8_t, 1>(&pi, &po, kern, ksize, bx, by, err, errlen);
        if (r)
            return r;
    }
    launch(rgb_planes<true>, blocks, 128, 0, 4, (const uint8_t *)(p + 3 * np), (uint8_t *)out->data, n, np);
    LAUNCH_TRY(err, errlen);
    return 0;
}


extern "C" int gpu_blur_tensor(const struct gpu_image *in, const struct gpu_image *out, const uint32_t *kern,
                               int ksize, int weights_below_256, const int32_t *bx, const int32_t *by, void *scratch,
                               char *err, size_t errlen)
{
    const int how = in->gray_from ? 0 : gpu_blur_tensor_applies(in->c, in->depth, ksize, weights_below_256, in->w,
                                                                in->h);
    if (how == 0 || (how == 2 && (!scratch || out->transposed || (((size_t)in->data | (size_t)out->data) & 3))))
        return gpu_blur_tiled(in, out, kern, ksize, bx, by, scratch, err, errlen);   /* same bits */
    if (how == 2)
        return tensor_planes(in, out, kern, ksize, bx, by, scratch, err, errlen);
    return DISPATCH_C(uint8_t, in->c, dispatch_tensor, in, out, kern, ksize, bx, by, err, errlen);
}
