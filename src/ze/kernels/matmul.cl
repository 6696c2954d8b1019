/* matmul.cl -- the Level Zero backend's matrix product (src/core/backend.h's dlx_matmul_request),
 * part of the module that dlx_kernels.cl makes (it includes this file, after the elementwise
 * ops, whose complex arithmetic it uses). One kernel, dlx_matmul, for every computable dtype and
 * any strides (dlx_ze_matmul_args in ze_args.h), in two modes:
 *
 * - TILED: a work-group computes a tile of c (one tile each: no loop around barriers, which
 *   Intel's CPU compiler broke in the unoptimised SPIR-V, running one turn of it). Its 256
 *   work-items form bands of S lanes, a band per sub-group of S (without sub-groups, 16 bands
 *   of 16 work-items); a work-item computes MR rows by NR columns of c (rows band * MR + i,
 *   columns lane + j * S), so the tile is (256 / S) * MR rows by S * NR columns. For each step
 *   of TK values of the inner dim (16, 8 for complex128, at most S), the work-group copies b's
 *   TK x (S * NR) block into local memory, and each band's first TK lanes load a's MR x TK
 *   block, one column each, into registers. The band shares those values by sub-group
 *   broadcasts (a's elements never pass through local memory); without sub-groups (PoCL) each
 *   lane writes its values into local memory and the band reads them back after the barrier.
 *   Then every work-item runs TK multiply-adds on its MR x NR accumulators, reading b's row
 *   from local memory (consecutive lanes, consecutive addresses).
 * - DIRECT: a work-item per element of c, reading a's row and b's column from global memory:
 *   for thin products (a vector, or a few rows or columns) and batches of small matrices, where a
 *   tile would stay mostly idle.
 *
 * In both, an element of c sums its k products in order (l = 0, 1, ...), in the accumulator of
 * its dtype's class: float for float16, bfloat16 (each widened exactly, rounded once into c) and
 * float32; double; complex64 and complex128 as pairs, with src/common's complex multiply and add
 * (the conjugates taken on load); 64-bit wrapping integers for the integers, whose low bits go
 * into c, and for bool, which counts its true products. alpha and beta then apply as on the CPU
 * (src/cpu/matmul_small.c: the same expressions in the same order). FP_CONTRACT is OFF here as
 * for the elementwise ops (elementwise_ops.h set it for the rest of the module): no fused
 * multiply-adds, so on a device with IEEE float32 and float64 arithmetic a product is the CPU's
 * own loops' bit for bit, whatever the mode or sub-group size. */

/* The bytes of local memory of a work-group: b's block (TK x S * NR accumulators) for sub-groups
 * of up to 64 lanes, or, without sub-groups, b's block and a's shared values (12 KB at most). */
#define MM_LOCAL_BYTES 16384

/* ---- geometry: bands of S lanes */

#if defined(cl_intel_subgroups)
#define MM_SUBGROUPS 1
static uint mm_lanes(void) { return get_sub_group_size(); }
static uint mm_lane(void) { return get_sub_group_local_id(); }
static uint mm_band(void) { return get_sub_group_id(); }
#else
#define MM_SUBGROUPS 0
static uint mm_lanes(void) { return 16; }
static uint mm_lane(void) { return (uint)get_local_id(0) % 16; }
static uint mm_band(void) { return (uint)get_local_id(0) / 16; }
#endif

/* What every load and store needs: the dtype and whether elements are aligned. */
typedef struct mm_cfg {
  long dtype;
  bool aligned;
} mm_cfg;

/* Scalars of 2, 4 and 8 bytes at p: typed when aligned, else byte by byte. */
static ushort mm_u16(bool aligned, __global const uchar *p) {
  ushort v;
  if (aligned) return *(__global const ushort *)p;
  read_bytes((char *)&v, p, 2);
  return v;
}

static uint mm_u32(bool aligned, __global const uchar *p) {
  uint v;
  if (aligned) return *(__global const uint *)p;
  read_bytes((char *)&v, p, 4);
  return v;
}

static ulong mm_u64(bool aligned, __global const uchar *p) {
  ulong v;
  if (aligned) return *(__global const ulong *)p;
  read_bytes((char *)&v, p, 8);
  return v;
}

static void mm_put16(bool aligned, __global uchar *p, ushort v) {
  if (aligned)
    *(__global ushort *)p = v;
  else
    write_bytes(p, (const char *)&v, 2);
}

static void mm_put32(bool aligned, __global uchar *p, uint v) {
  if (aligned)
    *(__global uint *)p = v;
  else
    write_bytes(p, (const char *)&v, 4);
}

static void mm_put64(bool aligned, __global uchar *p, ulong v) {
  if (aligned)
    *(__global ulong *)p = v;
  else
    write_bytes(p, (const char *)&v, 8);
}

/* Each class X has: mm_zero_X, mm_load_X (an element of a or b, conjugated when asked),
 * mm_mac_X (acc + x * y), mm_share_X (lane's value of x, sub-groups only) and mm_store_X
 * (alpha * acc + beta * c into c, as src/cpu/matmul_small.c computes it). */

/* float16, bfloat16, float32 in float */
static float mm_zero_f(void) { return 0.0f; }

static float mm_load_f(mm_cfg cfg, __global const uchar *p, long conj) {
  ushort h;
  (void)conj;
  if (cfg.dtype == DLX_FLOAT32) return as_float(mm_u32(cfg.aligned, p));
  h = mm_u16(cfg.aligned, p);
  return cfg.dtype == DLX_FLOAT16 ? dlx_half_to_float(h) : dlx_bf16_to_float(h);
}

static float mm_mac_f(float acc, float x, float y) { return acc + x * y; }

static void mm_store_f(mm_cfg cfg, __global const dlx_ze_matmul_args *g, __global uchar *p,
                       float acc) {
  float alpha = (float)g->alpha_f[0], beta = (float)g->beta_f[0], v;
  if (alpha == 1 && g->beta_zero)
    v = acc;
  else if (g->beta_zero)
    v = alpha * acc;
  else
    v = alpha * acc + beta * mm_load_f(cfg, p, 0);
  if (cfg.dtype == DLX_FLOAT32)
    mm_put32(cfg.aligned, p, as_uint(v));
  else
    mm_put16(cfg.aligned, p,
             cfg.dtype == DLX_FLOAT16 ? dlx_float_to_half(v) : dlx_float_to_bf16(v));
}

/* float64 */
static double mm_zero_d(void) { return 0.0; }

static double mm_load_d(mm_cfg cfg, __global const uchar *p, long conj) {
  (void)conj;
  return as_double(mm_u64(cfg.aligned, p));
}

static double mm_mac_d(double acc, double x, double y) { return acc + x * y; }

static void mm_store_d(mm_cfg cfg, __global const dlx_ze_matmul_args *g, __global uchar *p,
                       double acc) {
  double alpha = g->alpha_f[0], beta = g->beta_f[0], v;
  if (alpha == 1 && g->beta_zero)
    v = acc;
  else if (g->beta_zero)
    v = alpha * acc;
  else
    v = alpha * acc + beta * mm_load_d(cfg, p, 0);
  mm_put64(cfg.aligned, p, as_ulong(v));
}

/* complex64: parts of 4 bytes */
static dlx_c64 mm_zero_cf(void) { return dlx_c64_of(0, 0); }

static dlx_c64 mm_load_cf(mm_cfg cfg, __global const uchar *p, long conj) {
  float re = as_float(mm_u32(cfg.aligned, p)), im = as_float(mm_u32(cfg.aligned, p + 4));
  return dlx_c64_of(re, conj ? -im : im);
}

static dlx_c64 mm_mac_cf(dlx_c64 acc, dlx_c64 x, dlx_c64 y) {
  return dlx_ewk_add_complex64(acc, dlx_ewk_mul_complex64(x, y));
}

static void mm_store_cf(mm_cfg cfg, __global const dlx_ze_matmul_args *g, __global uchar *p,
                        dlx_c64 acc) {
  dlx_c64 alpha = dlx_c64_of((float)g->alpha_f[0], (float)g->alpha_f[1]);
  dlx_c64 v = dlx_ewk_mul_complex64(alpha, acc);
  if (!g->beta_zero) {
    dlx_c64 beta = dlx_c64_of((float)g->beta_f[0], (float)g->beta_f[1]);
    v = dlx_ewk_add_complex64(v, dlx_ewk_mul_complex64(beta, mm_load_cf(cfg, p, 0)));
  }
  mm_put32(cfg.aligned, p, as_uint(v.re));
  mm_put32(cfg.aligned, p + 4, as_uint(v.im));
}

/* complex128: parts of 8 bytes */
static dlx_c128 mm_zero_cd(void) { return dlx_c128_of(0, 0); }

static dlx_c128 mm_load_cd(mm_cfg cfg, __global const uchar *p, long conj) {
  double re = as_double(mm_u64(cfg.aligned, p)), im = as_double(mm_u64(cfg.aligned, p + 8));
  return dlx_c128_of(re, conj ? -im : im);
}

static dlx_c128 mm_mac_cd(dlx_c128 acc, dlx_c128 x, dlx_c128 y) {
  return dlx_ewk_add_complex128(acc, dlx_ewk_mul_complex128(x, y));
}

static void mm_store_cd(mm_cfg cfg, __global const dlx_ze_matmul_args *g, __global uchar *p,
                        dlx_c128 acc) {
  dlx_c128 v = dlx_ewk_mul_complex128(dlx_c128_of(g->alpha_f[0], g->alpha_f[1]), acc);
  if (!g->beta_zero)
    v = dlx_ewk_add_complex128(
        v, dlx_ewk_mul_complex128(dlx_c128_of(g->beta_f[0], g->beta_f[1]), mm_load_cd(cfg, p, 0)));
  mm_put64(cfg.aligned, p, as_ulong(v.re));
  mm_put64(cfg.aligned, p + 8, as_ulong(v.im));
}

/* bool and the integers in 64 bits, wrapping: signed dtypes sign-extend, bool is 0 or 1 */
static ulong mm_zero_i(void) { return 0; }

static ulong mm_load_i(mm_cfg cfg, __global const uchar *p, long conj) {
  (void)conj;
  switch (cfg.dtype) {
  case DLX_BOOL:
    return p[0] != 0;
  case DLX_INT8:
    return (ulong)(long)(char)p[0];
  case DLX_UINT8:
    return p[0];
  case DLX_INT16:
    return (ulong)(long)(short)mm_u16(cfg.aligned, p);
  case DLX_UINT16:
    return mm_u16(cfg.aligned, p);
  case DLX_INT32:
    return (ulong)(long)(int)mm_u32(cfg.aligned, p);
  case DLX_UINT32:
    return mm_u32(cfg.aligned, p);
  default: /* int64, uint64 */
    return mm_u64(cfg.aligned, p);
  }
}

static ulong mm_mac_i(ulong acc, ulong x, ulong y) { return acc + x * y; }

static void mm_store_i(mm_cfg cfg, __global const dlx_ze_matmul_args *g, __global uchar *p,
                       ulong acc) {
  ulong v;
  if (cfg.dtype == DLX_BOOL) { /* (alpha and any) or (beta and c) */
    p[0] = (g->alpha_i != 0 && acc != 0) || (!g->beta_zero && g->beta_i != 0 && p[0] != 0);
    return;
  }
  v = g->alpha_i * acc;
  if (!g->beta_zero) v += g->beta_i * mm_load_i(cfg, p, 0);
  switch (cfg.dtype) {
  case DLX_INT8:
  case DLX_UINT8:
    p[0] = (uchar)v;
    break;
  case DLX_INT16:
  case DLX_UINT16:
    mm_put16(cfg.aligned, p, (ushort)v);
    break;
  case DLX_INT32:
  case DLX_UINT32:
    mm_put32(cfg.aligned, p, (uint)v);
    break;
  default:
    mm_put64(cfg.aligned, p, v);
  }
}

/* The value x of lane `from` of the sub-group (the same lane for all: a broadcast). complex
 * values travel as two parts. (sub_group_broadcast rather than intel_sub_group_shuffle: Intel's
 * CPU OpenCL compiler 2026.2 crashes on shuffles of 64-bit values in sub-groups of 4.) */
#if MM_SUBGROUPS
static float mm_share_f(float x, uint from) { return sub_group_broadcast(x, from); }
static double mm_share_d(double x, uint from) { return sub_group_broadcast(x, from); }
static dlx_c64 mm_share_cf(dlx_c64 x, uint from) {
  return dlx_c64_of(mm_share_f(x.re, from), mm_share_f(x.im, from));
}
static dlx_c128 mm_share_cd(dlx_c128 x, uint from) {
  return dlx_c128_of(mm_share_d(x.re, from), mm_share_d(x.im, from));
}
static ulong mm_share_i(ulong x, uint from) { return sub_group_broadcast(x, from); }
#endif

static mm_cfg mm_cfg_of(__global const dlx_ze_matmul_args *g) {
  mm_cfg cfg;
  cfg.dtype = g->dtype;
  cfg.aligned = g->aligned != 0;
  return cfg;
}

/* ---- DIRECT: a work-item per element of c */

#define MM_DIRECT(X, ACC)                                                                          \
  static void mm_direct_##X(__global uchar *c, __global const uchar *a, __global const uchar *b,   \
                            __global const dlx_ze_matmul_args *g) {                                \
    mm_cfg cfg = mm_cfg_of(g);                                                                     \
    long total = g->batch * g->m * g->n;                                                           \
    for (long e = get_global_id(0); e < total; e += get_global_size(0)) {                          \
      long q = e / g->n, col = e - q * g->n, i = q / g->m, row = q - i * g->m;                     \
      __global const uchar *pa = a + i * g->a_bs + row * g->a_rs;                                  \
      __global const uchar *pb = b + i * g->b_bs + col * g->b_cs;                                  \
      ACC acc = mm_zero_##X();                                                                     \
      for (long l = 0; l < g->k; l++)                                                              \
        acc = mm_mac_##X(acc, mm_load_##X(cfg, pa + l * g->a_cs, g->conj_a),                       \
                         mm_load_##X(cfg, pb + l * g->b_rs, g->conj_b));                           \
      mm_store_##X(cfg, g, c + i * g->c_bs + row * g->c_rs + col * g->c_cs, acc);                  \
    }                                                                                              \
  }

/* ---- TILED: a work-group per tile of c */

/* a's value of row `r` (0 .. MR - 1) and step `kk` for every lane of the band: broadcast from
 * lane kk, or read from the band's values in local memory. */
#if MM_SUBGROUPS
#define MM_A_VALUE(X, r, kk) mm_share_##X(av[r], kk)
#define MM_A_PUBLISH(r)
#else
#define MM_A_VALUE(X, r, kk) ashare[(band * MR + (r)) * tk + (kk)]
#define MM_A_PUBLISH(r)                                                                            \
  if (lane < tk) ashare[(band * MR + (r)) * tk + lane] = av[r]
#endif

#define MM_TILED(X, ACC, CLS)                                                                      \
  static void mm_tiled_##X(__global uchar *c, __global const uchar *a, __global const uchar *b,    \
                           __global const dlx_ze_matmul_args *g, __local uchar *mem) {             \
    enum { MR = DLX_ZE_MM_MR(CLS), NR = DLX_ZE_MM_NR(CLS), TKMAX = DLX_ZE_MM_TK(CLS) };            \
    mm_cfg cfg = mm_cfg_of(g);                                                                     \
    uint lanes = mm_lanes(), lane = mm_lane(), band = mm_band();                                   \
    long tile_m = (long)(GROUP / lanes) * MR, tile_n = (long)lanes * NR;                           \
    uint tk = min(min((uint)TKMAX, lanes), (uint)(MM_LOCAL_BYTES / (tile_n * sizeof(ACC))));       \
    long tiles_n = (g->n + tile_n - 1) / tile_n;                                                   \
    long per = (g->m + tile_m - 1) / tile_m * tiles_n;                                             \
    bool b_rows = abs(g->b_cs) <= abs(g->b_rs); /* b's rows contiguous: walk them */               \
    __local ACC *btile = (__local ACC *)mem;                                                       \
    __local ACC *ashare = btile + tk * tile_n;                                                     \
    long t = g->first_tile + (long)get_group_id(0);                                                \
    (void)ashare;                                                                                  \
    if (t < g->batch * per) { /* (a work-group past this device's tiles has none) */               \
      long i = t / per, r = t - i * per, tm = r / tiles_n, tn = r - tm * tiles_n;                  \
      long row0 = tm * tile_m + band * MR, col0 = tn * tile_n;                                     \
      __global const uchar *pa = a + i * g->a_bs, *pb = b + i * g->b_bs;                           \
      ACC acc[MR][NR];                                                                             \
      for (int y = 0; y < MR; y++)                                                                 \
        for (int x = 0; x < NR; x++) acc[y][x] = mm_zero_##X();                                    \
      for (long k0 = 0; k0 < g->k; k0 += tk) {                                                     \
        uint steps = (uint)min((long)tk, g->k - k0);                                               \
        ACC av[MR];                                                                                \
        /* b's rows k0 .. k0 + steps - 1, the tile's columns (zeros past n), along b's  */         \
        /* contiguous dim */                                                                       \
        for (uint e = get_local_id(0); e < steps * tile_n; e += GROUP) {                           \
          uint kk, cc;                                                                             \
          long col;                                                                                \
          if (b_rows) {                                                                            \
            kk = e / (uint)tile_n;                                                                 \
            cc = e - kk * (uint)tile_n;                                                            \
          } else {                                                                                 \
            cc = e / steps;                                                                        \
            kk = e - cc * steps;                                                                   \
          }                                                                                        \
          col = col0 + cc;                                                                         \
          btile[kk * tile_n + cc] =                                                                \
              col < g->n ? mm_load_##X(cfg, pb + (k0 + kk) * g->b_rs + col * g->b_cs, g->conj_b)   \
                         : mm_zero_##X();                                                          \
        }                                                                                          \
        /* a's rows of the band, column k0 + lane (zeros past m) */                                \
        for (int y = 0; y < MR; y++) {                                                             \
          long row = row0 + y;                                                                     \
          av[y] = lane < steps && row < g->m                                                       \
                      ? mm_load_##X(cfg, pa + row * g->a_rs + (k0 + lane) * g->a_cs, g->conj_a)    \
                      : mm_zero_##X();                                                             \
          MM_A_PUBLISH(y);                                                                         \
        }                                                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        for (uint kk = 0; kk < steps; kk++) {                                                      \
          ACC xs[MR], ys[NR];                                                                      \
          for (int y = 0; y < MR; y++) xs[y] = MM_A_VALUE(X, y, kk);                               \
          for (int x = 0; x < NR; x++) ys[x] = btile[kk * tile_n + lane + x * lanes];              \
          for (int y = 0; y < MR; y++)                                                             \
            for (int x = 0; x < NR; x++) acc[y][x] = mm_mac_##X(acc[y][x], xs[y], ys[x]);          \
        }                                                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
      }                                                                                            \
      for (int y = 0; y < MR; y++)                                                                 \
        for (int x = 0; x < NR; x++) {                                                             \
          long row = row0 + y, col = col0 + lane + x * (long)lanes;                                \
          if (row < g->m && col < g->n)                                                            \
            mm_store_##X(cfg, g, c + i * g->c_bs + row * g->c_rs + col * g->c_cs, acc[y][x]);      \
        }                                                                                          \
    }                                                                                              \
  }

MM_DIRECT(f, float)
MM_DIRECT(d, double)
MM_DIRECT(cf, dlx_c64)
MM_DIRECT(cd, dlx_c128)
MM_DIRECT(i, ulong)
MM_TILED(f, float, DLX_ZE_MM_CLASS_FLOAT)
MM_TILED(d, double, DLX_ZE_MM_CLASS_DOUBLE)
MM_TILED(cf, dlx_c64, DLX_ZE_MM_CLASS_C64)
MM_TILED(cd, dlx_c128, DLX_ZE_MM_CLASS_C128)
MM_TILED(i, ulong, DLX_ZE_MM_CLASS_INTEGER)

/* tests/ze_kernels pins the sub-group size, as for the reductions. */
#if defined(DLX_ZE_TEST_SUBGROUP_SIZE)
#define MATMUL_KERNEL                                                                              \
  __kernel __attribute__((reqd_work_group_size(GROUP, 1, 1),                                       \
                          intel_reqd_sub_group_size(DLX_ZE_TEST_SUBGROUP_SIZE)))
#else
#define MATMUL_KERNEL __kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
#endif

MATMUL_KERNEL void dlx_matmul(__global uchar *c, __global const uchar *a, __global const uchar *b,
                              __global const dlx_ze_matmul_args *g) {
  __local ulong mem[MM_LOCAL_BYTES / 8];
  __local uchar *local_bytes = (__local uchar *)mem;
  bool tiled = g->mode == DLX_ZE_MATMUL_TILED;
  switch (dlx_ze_mm_class(g->dtype)) {
  case DLX_ZE_MM_CLASS_FLOAT:
    if (tiled)
      mm_tiled_f(c, a, b, g, local_bytes);
    else
      mm_direct_f(c, a, b, g);
    break;
  case DLX_ZE_MM_CLASS_DOUBLE:
    if (tiled)
      mm_tiled_d(c, a, b, g, local_bytes);
    else
      mm_direct_d(c, a, b, g);
    break;
  case DLX_ZE_MM_CLASS_C64:
    if (tiled)
      mm_tiled_cf(c, a, b, g, local_bytes);
    else
      mm_direct_cf(c, a, b, g);
    break;
  case DLX_ZE_MM_CLASS_C128:
    if (tiled)
      mm_tiled_cd(c, a, b, g, local_bytes);
    else
      mm_direct_cd(c, a, b, g);
    break;
  default:
    if (tiled)
      mm_tiled_i(c, a, b, g, local_bytes);
    else
      mm_direct_i(c, a, b, g);
    break;
  }
}
