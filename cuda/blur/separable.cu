/* gpuimg: blur, separable: two passes through scratch, any tap count and layout. Exact. */
#include "cuda/blur/blur.cuh"

/* separable. Pass 1: V^T[x][y][c] = sum_k w[k] in[y - r + k][x][c], V^T's pixel columns hp = h
 * rounded up to 32 rows long. Pass 2: out[y][x][c] = round(sum_k w[k] V^T[x - r + k][y][c]), the
 * same loop down V^T's columns, written back transposed through a shared-memory tile so that its
 * stores are whole rows. A thread sums R consecutive outputs of PX whole pixels (pass 1; each row
 * of them one funnel-shifted run of words) or of YL rows of one pixel column (pass 2; a vector
 * load): an input is read once for all R (R loads for R^2 multiply-adds a lane), and the weights
 * each step of R inputs needs (2R - 1) come from a zero-padded copy in shared memory, so the loop
 * does not depend on the tap count. Each sum is exact in the cheapest arithmetic that holds it
 * (SP); the result is the CPU's bit for bit. Time grows with the taps, K + R multiply-adds an output
 * and pass, not with anything else. */
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
    /* NW2 warps a block, each R2 pixels of the tile: 4 warps for 8 bits, 8 for 16, the faster of
     * the two for each */
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

extern "C" int gpu_blur_separable(const struct gpu_image *in, const struct gpu_image *out, const uint32_t *kern,
                                  int ksize, const int32_t *bx, const int32_t *by, void *scratch, char *err,
                                  size_t errlen)
{
    return DISPATCH_TC(in->depth, in->c, launch_blur, in, out, kern, ksize, bx, by, scratch, err, errlen);
}
