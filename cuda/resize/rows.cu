/* gpuimg: resize, rows: two taps an axis, grey out, a block a column segment of a run of rows. Exact. */
#include "cuda/resize/resize.cuh"

/* rows (vector, 8-bit grey out, two taps an axis, shrinking): a block makes one column segment of
 * a run of output rows, a row at a time. The segment's span of each source row is read as 16-pixel
 * groups aligned in the flat image (16 bytes of grey, 48 of RGB: whole pixels, so RGB needs no
 * realignment) by cp.async, a warp's copies 512 consecutive bytes, RR_DEPTH row pairs ahead, so
 * that the copies in flight hold no registers. Grey groups land in place in their row; RGB ones
 * are turned into 16 Y each by gray16_words (the gray step read through) a row before their taps
 * need them, so that one barrier a row serves both. Each thread then makes RR_PX output pixels
 * x = xa + t + RR_T i of the row (its taps kept in registers for the whole run), a warp's stores
 * 32 consecutive bytes. Unlike the warp kernel reading through gray (a warp a 224-pixel segment,
 * its rows staged whole and turned into Y by the warp, which is slower), a source byte costs about
 * what it costs the gray kernel, and the taps are grey's. */
#define RR_T 128   /* threads a block */
#define RR_PX 8    /* output pixels a thread */
#define RR_GPT 2   /* groups a thread copies (and, RGB, turns into Y) of a row pair */
#define RR_DEPTH(GRAY) ((GRAY) ? 2 : 4)   /* row pairs whose copies are in flight */

/* where a row's span lies in the flat image: its first group, the groups it takes, and the byte
 * of its first pixel in the first group */
struct rr_row { long long g0; int ng, sh; };
__device__ __forceinline__ rr_row rr_span(int r, int iw, int c0, int c1)
{
    const long long p = (long long)r * iw + c0;
    return { p >> 4, (int)(((p + (c1 - c0) + 15) >> 4) - (p >> 4)), (int)(p & 15) };
}

/* the 16 bytes at src into shared memory at d, byte by byte within [in, in + nb): where cp.async
 * may not copy them (the image's last chunk; an unaligned buffer) */
__device__ __noinline__ void rr_chunk_in(unsigned d, const uint8_t *src, const uint8_t *in, long long nb)
{
    const uint4 w = load16_in((uintptr_t)src, (uintptr_t)in, (uintptr_t)(in + nb));
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(d), "r"(w.x), "r"(w.y), "r"(w.z), "r"(w.w)
                 : "memory");
}

template <bool GRAY, bool VH>
__global__ void __launch_bounds__(RR_T) resize_rows(const uint8_t *__restrict__ in, int iw, int ih,
                                                    uint8_t *__restrict__ out, int ow, int oh,
                                                    const int32_t *__restrict__ xi, const uint32_t *__restrict__ xw,
                                                    const int32_t *__restrict__ yi, const uint32_t *__restrict__ yw,
                                                    int seg, int gs, uint64_t half, uint32_t g01, uint32_t g2)
{
    constexpr int CI = GRAY ? 3 : 1, D = RR_DEPTH(GRAY), NS = D + 1, NC = CI * RR_GPT;
    /* NS stages of copies: grey, a row pair in place (rows gs bytes apart); RGB, the pair's groups
     * one after another, 48 bytes each. Then RGB's Y: 2 buffers of a row pair. */
    extern __shared__ __align__(16) uint8_t SR[];
    griddep_launch();   /* a kernel after it launched early (the tensor blur) may take the SMs it leaves */
    const int t = threadIdx.x, nseg = (ow + seg - 1) / seg, ng = max(1, (int)gridDim.x / nseg);
    const int stage = GRAY ? 16 * NC * RR_T : 2 * gs;
    uint8_t *const Y = SR + NS * stage;
    const unsigned s0 = (unsigned)__cvta_generic_to_shared(SR);
    const long long nb = (long long)iw * ih * CI;
    const uint8_t *const end = ((uintptr_t)in & 15) == 0 ? in + nb : in;   /* cp.async's chunks end by it */
    int xa = 0, xb = 0, c0 = 0, c1 = 0, ya = 0, nk = 0;   /* the task's rows: ya + k, k < nk */
    auto rows = [&](int k, rr_row &r0, rr_row &r1) {
        const int2 q = *(const int2 *)(yi + 2 * (ya + k));
        r0 = rr_span(q.x, iw, c0, c1);
        r1 = rr_span(q.y, iw, c0, c1);
    };
    /* the k-th row pair's chunks t, t + RR_T, ... into stage st (past the task: nothing), one
     * commit either way */
    auto issue = [&](int k, int st) {
        if (k < nk) {
            /* threads h .. h + RR_T / 2 - 1 (h = 0, RR_T / 2) copy row h > 0's span: chunk j of the
             * row, j = t - h + RR_T / 2 i, from p + 16 j to the stage at d + 16 j, RGB's row 1
             * after row 0's chunks, grey's gs bytes on */
            rr_row r0, r1;
            rows(k, r0, r1);
            const bool second = t >= RR_T / 2;
            const int j0 = second ? t - RR_T / 2 : t, cn = CI * (second ? r1.ng : r0.ng);
            const uint8_t *p = in + 16 * CI * (second ? r1.g0 : r0.g0);
            const unsigned d = s0 + st * stage + (second ? (GRAY ? 16 * CI * r0.ng : gs) : 0) + 16 * j0;
            const long long room = (end - p) >> 4;   /* chunks of the row cp.async may copy */
            const int lim = room < cn ? (int)max(room, 0ll) : cn;
#pragma unroll
            for (int i = 0; i < NC; i++) {
                const int j = j0 + RR_T / 2 * i;
                if (j < lim)
                    cp_async16_s(d + 8 * RR_T * i, p + 16 * j);
                else if (j < cn)
                    rr_chunk_in(d + 8 * RR_T * i, p + 16 * j, in, nb);
            }
        }
        cp_async_commit();
    };
    /* RGB: the k-th row pair's groups in stage st as Y into buffer Yb (rows gs bytes apart) */
    auto convert = [&](int k, int st, uint8_t *Yb) {
        rr_row r0, r1;
        rows(k, r0, r1);
#pragma unroll
        for (int j = 0; j < RR_GPT; j++) {
            const int e = t + RR_T * j;
            if (e < r0.ng + r1.ng) {
                const uint8_t *p = SR + st * stage + 48 * e;
                uint32_t w[12];
#pragma unroll
                for (int i = 0; i < 3; i++) {
                    const uint4 v = *(const uint4 *)(p + 16 * i);
                    w[4 * i] = v.x;
                    w[4 * i + 1] = v.y;
                    w[4 * i + 2] = v.z;
                    w[4 * i + 3] = v.w;
                }
                *(uint4 *)(Yb + (e < r0.ng ? 16 * e : gs + 16 * (e - r0.ng))) = gray16_words(w, g01, g2);
            }
        }
    };
    for (int task = blockIdx.x; task < nseg * ng; task += gridDim.x) {
        /* consecutive blocks: the segments of one run of rows, read together */
        const int s = task % nseg, g = task / nseg;
        ya = (int)((long long)oh * g / ng);
        nk = (int)((long long)oh * (g + 1) / ng) - ya;
        if (nk <= 0)
            continue;
        xa = s * seg;
        xb = min(xa + seg, ow);
        c0 = xi[2 * xa];
        c1 = xi[2 * (xb - 1) + 1] + 1;
        int t0[RR_PX], t1[RR_PX];   /* this thread's taps (from c0) and weights */
        uint32_t w0[RR_PX], w1[RR_PX];
#pragma unroll
        for (int i = 0; i < RR_PX; i++) {
            const int x = min(xa + t + RR_T * i, xb - 1);
            t0[i] = xi[2 * x] - c0;
            t1[i] = xi[2 * x + 1] - c0;
            w0[i] = xw[2 * x];
            w1[i] = xw[2 * x + 1];
        }
        const bool whole = xa + RR_T * RR_PX <= xb;   /* every thread's pixels in the segment */
        /* row k's copies in stage k mod NS; RGB: converted an iteration ahead, into Y buffer k & 1 */
        constexpr int AHEAD = GRAY ? D + 1 : D;   /* rows the prologue copies */
#pragma unroll
        for (int j = 0; j < AHEAD; j++)
            issue(j, j);
        if constexpr (GRAY) {
            cp_async_wait_n<D>();
            __syncthreads();
            convert(0, 0, Y);
        }
        int st = 0;   /* row k's stage */
        for (int k = 0; k < nk; k++) {
            const int y = ya + k, sn = st == D ? 0 : st + 1;
            rr_row r0, r1;
            rows(k, r0, r1);
            uint2 v = make_uint2(0, 0);
            if (!VH)
                v = *(const uint2 *)(yw + 2 * y);
            cp_async_wait_n<D - 1>();   /* this thread's copies of row k (RGB: of row k + 1) */
            __syncthreads();   /* everyone's: row k is in, the stage and buffer read before are free */
            const uint8_t *P;
            if constexpr (GRAY) {
                if (k + 1 < nk)
                    convert(k + 1, sn, Y + 2 * gs * ((k + 1) & 1));
                issue(k + 1 + D, st);
                P = Y + 2 * gs * (k & 1);
            } else {
                issue(k + D, st == 0 ? D : st - 1);
                P = SR + st * stage;
            }
            st = sn;
            const uint8_t *A = P + r0.sh, *B = P + gs + r1.sh;
            uint8_t *o = out + (size_t)y * ow + xa + t;
            auto pixel = [&](int i) {
                uint32_t res;
                if (VH) {   /* (I0 + I1 + 65536) >> 17, as resize_warp's grey */
                    res = (w0[i] * (A[t0[i]] + B[t0[i]]) + w1[i] * (A[t1[i]] + B[t1[i]]) + VH_ROUND) >> 17;
                } else {
                    const uint32_t I0 = w0[i] * A[t0[i]] + w1[i] * A[t1[i]], I1 = w0[i] * B[t0[i]] + w1[i] * B[t1[i]];
                    res = mad_round32(v.x, I0, v.y, I1, half);
                }
                o[RR_T * i] = (uint8_t)res;
            };
            if (whole) {   /* (a branch a pixel cost about 3 instructions) */
#pragma unroll
                for (int i = 0; i < RR_PX; i++)
                    pixel(i);
            } else {
#pragma unroll
                for (int i = 0; i < RR_PX; i++)
                    if (xa + t + RR_T * i < xb)
                        pixel(i);
            }
        }
        __syncthreads();   /* the last row read before the next task's copies */
    }
    cp_async_wait_all();
}

/* The segment (output pixels a block) for these taps: the fewest segments of at most RR_T RR_PX
 * pixels whose spans each fit RR_GPT groups a thread for both rows; 0 if none does that is the
 * whole row or at least 64 pixels. *gs: the bytes a staged row takes. */
static int rr_segment(int ow, const int32_t *xi, int *gs)
{
    for (int nseg = (ow + RR_T * RR_PX - 1) / (RR_T * RR_PX);; nseg++) {
        const int seg = (ow + nseg - 1) / nseg;
        if (seg < 64 && nseg > 1)
            return 0;
        int worst = 0;
        for (int xa = 0; xa < ow; xa += seg) {
            const int xb = xa + seg < ow ? xa + seg : ow, span = xi[2 * (xb - 1) + 1] + 1 - xi[2 * xa];
            const int groups = (span + 15 + 15) / 16;   /* at any alignment */
            worst = groups > worst ? groups : worst;
        }
        if (2 * worst <= RR_T * RR_GPT) {
            *gs = 16 * worst;
            return seg;
        }
    }
}

/* the segment, 0 where the span does not fit (or no layout this kernel takes); *gs for the launch */
extern "C" int gpu_resize_rows_fit(int c, int depth, int ow, const int32_t *xi, int *gs)
{
    *gs = 0;
    return depth == 8 && c == 1 ? rr_segment(ow, xi, gs) : 0;
}

template <bool GRAY>
static int launch_rows(const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi, const uint32_t *xw,
                       const int32_t *yi, const uint32_t *yw, int vhalf, int seg, int gs, char *err, size_t errlen)
{
    auto k = vhalf ? resize_rows<GRAY, true> : resize_rows<GRAY, false>;
    uint32_t g01, g2;   /* GRAY: the weights as gray16_words takes them */
    gray_pairs(in->gray_w, &g01, &g2);
    /* the kernel's stages of copies, and RGB's two buffers of Y: within the 48 KiB a launch may ask
     * for without an attribute, rr_segment keeping gs to 8 RR_T RR_GPT bytes (a row's groups at
     * most half the block's) */
    const size_t smem = (RR_DEPTH(GRAY) + 1) * (GRAY ? 3 * 16 * RR_T * RR_GPT : 2 * (size_t)gs)
                        + (GRAY ? 4 * (size_t)gs : 0);
    static_assert((RR_DEPTH(true) + 1) * 3 * 16 * RR_T * RR_GPT + 4 * 8 * RR_T * RR_GPT <= 48 * 1024
                      && (RR_DEPTH(false) + 1) * 2 * 8 * RR_T * RR_GPT <= 48 * 1024,
                  "the rows kernel's shared memory");
    long long fit = 0;
    CUDA_TRY(resident_blocks(k, RR_T, smem, &fit), err, errlen);
    const long long tasks = (out->w + seg - 1) / seg * (long long)out->h;
    launch(k, dim3((unsigned)(tasks < fit ? tasks : fit)), dim3(RR_T), smem, RR_PX, (const uint8_t *)in->data, in->w,
           in->h, (uint8_t *)out->data, out->w, out->h, xi, xw, yi, yw, seg, gs, 1ull << 31, g01, g2);
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_resize_rows(const struct gpu_image *in, const struct gpu_image *out, const int32_t *xi,
                               const uint32_t *xw, const int32_t *yi, const uint32_t *yw, int vhalf, int seg, int gs,
                               char *err, size_t errlen)
{
    const int g = in->gray_from;
    if (in->c != 1 || in->depth != 8 || (g && g != 3) || (g && (in->gray_w[0] | in->gray_w[1] | in->gray_w[2]) >= 32768)
        || seg <= 0 || gs <= 0) {
        snprintf(err, errlen, "gpu_resize_rows: no kernel for %d channels at %d bits%s", in->c, in->depth,
                 g ? " read through gray" : "");
        return (int)cudaErrorInvalidValue;
    }
    return g ? launch_rows<true>(in, out, xi, xw, yi, yw, vhalf, seg, gs, err, errlen)
             : launch_rows<false>(in, out, xi, xw, yi, yw, vhalf, seg, gs, err, errlen);
}

