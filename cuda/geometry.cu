/* gpuimg: transpose, rotate and flip kernels: out(x, y) = in(ax x + bx y + cx, ay x + by y + cy),
 * whole pixels copied as one value of BPP bytes. perpixel: a 2D grid. coalesced: GPU_PPT pixels a
 * thread along an output row, warp-stride, so writes are contiguous (reads are too for flips).
 * tiled: a 32x32 tile of the source read row by row (coalesced) into shared memory, then written
 * row by row of the output; one padding column keeps a warp's column reads off a single bank. */
#include "common.cuh"

__device__ __forceinline__ size_t src_index(const gpu_map &m, int w, int x, int y)
{
    return (size_t)(m.ay * x + m.by * y + m.cy) * w + (m.ax * x + m.bx * y + m.cx);
}

template <int BPP, bool COALESCED, int PPT = GPU_PPT>
__global__ void remap_direct(const typename PixT<BPP>::type *in, typename PixT<BPP>::type *out, int iw, int ow,
                             int oh, gpu_map m)
{
    auto px = [&](int x, int y) { out[(size_t)y * ow + x] = in[src_index(m, iw, x, y)]; };
    if (COALESCED)
        for_coalesced<PPT>(ow, oh, px);
    else
        for_perpixel(ow, oh, px);
}

#define TILE 32
#define TILE_ROWS 8

template <int BPP>
__global__ void remap_tiled(const typename PixT<BPP>::type *in, typename PixT<BPP>::type *out, int iw, int ih, int ow,
                            int oh, gpu_map m)
{
    typedef typename PixT<BPP>::type P;
    __shared__ P tile[TILE][TILE + 1];
    const int X0 = blockIdx.x * TILE, ntiles_y = (oh + TILE - 1) / TILE;
    for (int tyb = blockIdx.y; tyb < ntiles_y; tyb += gridDim.y) {
    const int Y0 = tyb * TILE;
    /* the source rectangle this output tile reads: the map is affine with unit coefficients */
    const int sx0 = m.cx + min(m.ax * X0, m.ax * (X0 + TILE - 1)) + min(m.bx * Y0, m.bx * (Y0 + TILE - 1));
    const int sy0 = m.cy + min(m.ay * X0, m.ay * (X0 + TILE - 1)) + min(m.by * Y0, m.by * (Y0 + TILE - 1));
    const int tx = threadIdx.x;
    for (int ly = threadIdx.y; ly < TILE; ly += blockDim.y) {
        const int sx = sx0 + tx, sy = sy0 + ly;
        if (sx >= 0 && sx < iw && sy >= 0 && sy < ih)
            tile[ly][tx] = in[(size_t)sy * iw + sx];
    }
    __syncthreads();
    for (int ly = threadIdx.y; ly < TILE; ly += blockDim.y) {
        const int x = X0 + tx, y = Y0 + ly;
        if (x < ow && y < oh) {
            const int sx = m.ax * x + m.bx * y + m.cx, sy = m.ay * x + m.by * y + m.cy;
            out[(size_t)y * ow + x] = tile[sy - sy0][sx - sx0];
        }
    }
    __syncthreads();   /* the tile is refilled for the next tile row */
    }
}

template <int BPP>
static int launch_remap(int variant, const gpu_image *in, const gpu_image *out, const gpu_map *m, char *err,
                        size_t errlen)
{
    typedef typename PixT<BPP>::type P;
    const P *s = (const P *)in->data;
    P *d = (P *)out->data;
    if (variant == KV_PERPIXEL) {
        const dim3 b = perpixel_block(), g = grid2d(out->w, out->h, b);
        launch(remap_direct<BPP, false>, g, b, 0, 1, s, d, in->w, out->w, out->h, *m);
    } else if (variant == KV_COALESCED) {
        const unsigned th = threads1d();
        PPT_SWITCH(ppt_choice(), launch(remap_direct<BPP, true, P>, grid_coalesced(out->w, out->h, th, P), th, 0, P, s, d,
                                        in->w, out->w, out->h, *m));
    } else {
        /* 32 columns; the rows a block has (by of the shape, 8 by default) stride over the tile */
        const int rows = g_shape.by > 0 && g_shape.by <= TILE ? g_shape.by : TILE_ROWS;
        const unsigned ty = (unsigned)((out->h + TILE - 1) / TILE);
        dim3 b(TILE, rows), g((out->w + TILE - 1) / TILE, ty > 65535 ? 65535 : ty);
        launch(remap_tiled<BPP>, g, b, 0, TILE / rows, s, d, in->w, in->h, out->w, out->h, *m);
    }
    LAUNCH_TRY(err, errlen);
    return 0;
}

extern "C" int gpu_remap(int variant, const struct gpu_image *in, const struct gpu_image *out,
                         const struct gpu_map *m, char *err, size_t errlen)
{
    return DISPATCH_BPP(bpp_of(in), launch_remap, variant, in, out, m, err, errlen);
}
