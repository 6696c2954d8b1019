/* conv.c -- convolutions composed of copies, fills and the matmul entry (see conv.h), so that
 * every device with those runs them without an entry of its own. The spatial dims are seen as
 * three, the missing ones in front of size 1. The columns are made a slice of the output at a
 * time (several images, or rows of one image), so their memory stays bounded: on the host a
 * slice small enough for the caches, which keeps the copy and the product fast; on a GPU a
 * large one, which keeps the launches few. */
#include "core/conv.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/device.h"
#include "core/linalg.h"
#include "core/ops.h"
#include "core/promote.h"

#define S DLX_CONV_MAX_SPATIAL

/* Bytes of columns per slice (bench/conv.py measured the host's: bench/RESULTS.md). */
#define HOST_COLUMN_BYTES (2 << 20)
#define DEVICE_COLUMN_BYTES (256 << 20)

typedef struct geometry {
  int64_t n, c, c_out, groups, c_group, out_group; /* c_group: channels per group */
  int64_t in[S], kernel[S], out[S];                /* the missing dims of size 1 */
  int64_t stride[S], dilation[S], lo[S], hi[S];
  dlx_dtype dtype;
} geometry;

static const char *shape_of(const dlx_tensor *t, char *buf) {
  return dlx_shape_text(buf, DLX_SHAPE_TEXT, t->shape, t->ndim);
}

/* Sizes joined by " x ", as PyTorch's message about the kernel size writes them. */
static const char *sizes_text(char *buf, size_t cap, const int64_t *sizes, int32_t first) {
  size_t used = 0;
  buf[0] = '\0';
  for (int32_t s = first; s < S && used < cap; s++)
    used += (size_t)snprintf(buf + used, cap - used, "%s%lld", s > first ? " x " : "",
                             (long long)sizes[s]);
  return buf;
}

static int check_numbers(const dlx_conv_args *a, dlx_error *err) {
  if (a->nspatial < 1 || a->nspatial > S)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: %d spatial dims (expected 1 to %d)", a->name,
                    (int)a->nspatial, S);
  for (int32_t s = 0; s < a->nspatial; s++) {
    if (a->stride[s] < 1)
      return dlx_fail(err, DLX_VALUE_ERROR, "%s: non-positive stride is not supported", a->name);
    if (a->pad_lo[s] < 0 || a->pad_hi[s] < 0)
      return dlx_fail(err, DLX_VALUE_ERROR, "%s: negative padding is not supported", a->name);
    if (a->dilation[s] < 1)
      return dlx_fail(err, DLX_VALUE_ERROR, "%s: dilation should be greater than zero", a->name);
    /* so that the sums of sizes and paddings, and the products below, stay far from overflow */
    if (a->stride[s] > INT32_MAX || a->pad_lo[s] > INT32_MAX || a->pad_hi[s] > INT32_MAX ||
        a->dilation[s] > INT32_MAX)
      return dlx_fail(err, DLX_VALUE_ERROR,
                      "%s: stride, padding and dilation must be below 2^31 (spatial dim %d)",
                      a->name, (int)s + 1);
  }
  if (a->groups < 1)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: non-positive groups is not supported", a->name);
  return 0;
}

static int check_tensors(const dlx_conv_args *a, dlx_error *err) {
  const dlx_tensor *all[3] = {a->input, a->weight, a->bias};
  char s1[DLX_SHAPE_TEXT], s2[DLX_SHAPE_TEXT];
  int32_t ndim = a->nspatial + 2;
  for (int i = 0; i < 3; i++) {
    char d1[48], d2[48];
    int rc = all[i] != NULL ? dlx_buffer_check(all[i]->buffer, err) : 0;
    if (rc != 0) return rc;
    if (all[i] != NULL && !dlx_device_equal(dlx_tensor_device(all[0]), dlx_tensor_device(all[i])))
      return dlx_fail(err, DLX_DEVICE_ERROR, "%s: tensors on different devices (%s and %s)",
                      a->name, dlx_device_format(dlx_tensor_device(all[0]), d1, sizeof d1),
                      dlx_device_format(dlx_tensor_device(all[i]), d2, sizeof d2));
  }
  if (a->input->ndim != ndim)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: expected a %d-d batched input, got size %s", a->name,
                    (int)ndim, shape_of(a->input, s1));
  if (a->weight->ndim != ndim)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "%s: expected a %d-d weight (out_channels, in_channels / groups, kernel "
                    "sizes), got size %s",
                    a->name, (int)ndim, shape_of(a->weight, s1));
  if (a->weight->shape[0] % a->groups != 0)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "%s: Given groups=%lld, expected weight to be divisible by %lld at dimension "
                    "0, but got weight of size %s instead",
                    a->name, (long long)a->groups, (long long)a->groups, shape_of(a->weight, s1));
  if (a->input->shape[1] != a->weight->shape[1] * a->groups)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "%s: Given groups=%lld, weight of size %s, expected input%s to have %lld "
                    "channels, but got %lld channels instead",
                    a->name, (long long)a->groups, shape_of(a->weight, s1), shape_of(a->input, s2),
                    (long long)(a->weight->shape[1] * a->groups), (long long)a->input->shape[1]);
  if (a->bias != NULL && (a->bias->ndim != 1 || a->bias->shape[0] != a->weight->shape[0]))
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "%s: Given weight of size %s, expected bias to be 1-dimensional with %lld "
                    "elements, but got bias of size %s instead",
                    a->name, shape_of(a->weight, s1), (long long)a->weight->shape[0],
                    shape_of(a->bias, s2));
  return 0;
}

static int check_dtype(const dlx_conv_args *a, dlx_dtype *dtype, dlx_error *err) {
  int rc = dlx_result_dtype(a->input->dtype, a->weight->dtype, dtype, err);
  if (rc == 0 && a->bias != NULL) rc = dlx_result_dtype(*dtype, a->bias->dtype, dtype, err);
  return rc;
}

/* The geometry of a checked call, and the output sizes (ValueError for a kernel larger than the
 * padded input). */
static int make_geometry(const dlx_conv_args *a, geometry *g, dlx_error *err) {
  int32_t first = S - a->nspatial;
  int64_t padded[S], span[S];
  char t1[96], t2[96];
  g->n = a->input->shape[0];
  g->c = a->input->shape[1];
  g->c_out = a->weight->shape[0];
  g->groups = a->groups;
  g->c_group = a->weight->shape[1];
  g->out_group = g->c_out / a->groups;
  for (int32_t s = 0; s < S; s++) {
    int32_t k = s - first; /* the caller's spatial dim, < 0 for a missing one */
    g->in[s] = k < 0 ? 1 : a->input->shape[2 + k];
    g->kernel[s] = k < 0 ? 1 : a->weight->shape[2 + k];
    g->stride[s] = k < 0 ? 1 : a->stride[k];
    g->dilation[s] = k < 0 ? 1 : a->dilation[k];
    g->lo[s] = k < 0 ? 0 : a->pad_lo[k];
    g->hi[s] = k < 0 ? 0 : a->pad_hi[k];
    padded[s] = g->in[s] + g->lo[s] + g->hi[s];
    /* a kernel so long that its span overflows (of a zero-size weight) is larger than any input */
    span[s] = g->kernel[s] - 1 > (INT64_MAX - 1) / g->dilation[s]
                  ? INT64_MAX
                  : g->dilation[s] * (g->kernel[s] - 1) + 1;
  }
  for (int32_t s = first; s < S; s++)
    if (span[s] > padded[s])
      return dlx_fail(err, DLX_VALUE_ERROR,
                      "%s: Calculated padded input size per channel: (%s). Kernel size: (%s). "
                      "Kernel size can't be greater than actual input size",
                      a->name, sizes_text(t1, sizeof t1, padded, first),
                      sizes_text(t2, sizeof t2, span, first));
  for (int32_t s = 0; s < S; s++) g->out[s] = (padded[s] - span[s]) / g->stride[s] + 1;
  return 0;
}

/* The strides of t's spatial dims, the missing ones 0. */
static void spatial_strides(const dlx_tensor *t, int32_t nspatial, int64_t *strides) {
  for (int32_t s = 0; s < S; s++)
    strides[s] = s < S - nspatial ? 0 : t->strides[2 + s - (S - nspatial)];
}

/* *padded = the input as g->dtype with the zeros of the padding around it: a new tensor whose
 * border slabs are filled and whose inside is a copy; the input itself when there is no
 * padding (the columns' copy casts it). */
static int pad_input(dlx_tensor *padded, const dlx_tensor *in, int32_t nspatial, const geometry *g,
                     dlx_error *err) {
  int64_t shape[2 + S];
  int32_t first = S - nspatial, ndim = 2 + nspatial;
  dlx_scalar zero;
  dlx_tensor inside;
  bool any = false;
  int rc;
  for (int32_t s = 0; s < S; s++) any = any || g->lo[s] > 0 || g->hi[s] > 0;
  if (!any) {
    dlx_tensor_share(padded, in);
    return 0;
  }
  shape[0] = g->n;
  shape[1] = g->c;
  for (int32_t s = first; s < S; s++) shape[2 + s - first] = g->in[s] + g->lo[s] + g->hi[s];
  rc = dlx_tensor_empty(padded, shape, ndim, g->dtype, dlx_tensor_device(in), err);
  if (rc != 0) return rc;
  memset(&zero, 0, sizeof zero);
  zero.kind = DLX_KIND_INT;
  inside = *padded; /* a borrowed view: narrowed dim by dim, a border slab filled at each */
  for (int32_t s = first; s < S && rc == 0; s++) {
    int32_t d = 2 + s - first;
    dlx_tensor slab = inside;
    slab.shape[d] = g->lo[s];
    if (g->lo[s] > 0) rc = dlx_fill(&slab, &zero, err);
    slab.offset = inside.offset + (g->lo[s] + g->in[s]) * inside.strides[d];
    slab.shape[d] = g->hi[s];
    if (rc == 0 && g->hi[s] > 0) rc = dlx_fill(&slab, &zero, err);
    inside.offset += g->lo[s] * inside.strides[d];
    inside.shape[d] = g->in[s];
  }
  if (rc == 0) rc = dlx_copy(&inside, in, err);
  if (rc != 0) dlx_tensor_close(padded);
  return rc;
}

/* How the output is cut into slices: `images` images at a time when one image's columns fit the
 * budget; else one image at a time and `rows` positions of spatial dim `dim` (the first of
 * size > 1: the dims before it are of size 1), each standing for `inner` output positions. */
typedef struct slicing {
  int64_t images, rows, inner;
  int32_t dim;
} slicing;

static slicing slice_output(const geometry *g, int64_t budget) {
  slicing p;
  int64_t per_position = g->groups * g->c_group, positions = 1;
  for (int32_t s = 0; s < S; s++) per_position *= g->kernel[s];
  for (int32_t s = 0; s < S; s++) positions *= g->out[s];
  if (per_position < 1) per_position = 1;
  p.dim = 0;
  while (p.dim < S - 1 && g->out[p.dim] == 1) p.dim++;
  p.inner = 1;
  for (int32_t s = p.dim + 1; s < S; s++) p.inner *= g->out[s];
  if (per_position * positions <= budget) {
    p.images = budget / (per_position * positions);
    if (p.images > g->n) p.images = g->n;
    p.rows = g->out[p.dim];
  } else {
    p.images = 1;
    p.rows = budget / (per_position * p.inner);
    if (p.rows < 1) p.rows = 1;
  }
  return p;
}

typedef struct conv_run {
  const geometry *g;
  dlx_tensor src;       /* the padded input */
  dlx_tensor weight;    /* (groups, out_group, c_group * kernel) */
  dlx_tensor bias;      /* (groups, out_group, 1), when has_bias */
  dlx_tensor columns;   /* a 1-d buffer for the largest slice */
  dlx_tensor bias_copy; /* the bias, contiguous and of the result's dtype, for the entry */
  dlx_tensor out;       /* (n, c_out, out...) */
  bool has_bias;
  int32_t nspatial;
  const char *name;
} conv_run;

/* The output of images n0 .. n0 + images - 1, positions r0 .. r0 + rows - 1 of p.dim. */
static int conv_slice(const conv_run *r, const slicing *p, int64_t n0, int64_t images, int64_t r0,
                      int64_t rows, dlx_error *err) {
  const geometry *g = r->g;
  int64_t sp[S], count = rows * p->inner, kernel = g->c_group, positions = 1;
  dlx_tensor view = r->src, cols = r->columns, dst = r->out, unused;
  dlx_matmul_args args;
  int rc;
  for (int32_t s = 0; s < S; s++) kernel *= g->kernel[s];
  for (int32_t s = 0; s < S; s++) positions *= g->out[s];
  spatial_strides(&r->src, r->nspatial, sp);
  /* the windows: (images, groups, c_group, kernel..., out...) */
  view.ndim = 3 + 2 * S;
  view.shape[0] = images;
  view.strides[0] = r->src.strides[0];
  view.shape[1] = g->groups;
  view.strides[1] = g->c_group * r->src.strides[1];
  view.shape[2] = g->c_group;
  view.strides[2] = r->src.strides[1];
  for (int32_t s = 0; s < S; s++) { /* a dim of size 1 takes no step (which might overflow) */
    view.shape[3 + s] = g->kernel[s];
    view.strides[3 + s] = g->kernel[s] > 1 ? g->dilation[s] * sp[s] : 0;
    view.shape[3 + S + s] = s == p->dim ? rows : g->out[s];
    view.strides[3 + S + s] = g->out[s] > 1 ? g->stride[s] * sp[s] : 0;
  }
  view.offset = r->src.offset + n0 * r->src.strides[0] + r0 * view.strides[3 + S + p->dim];
  view.readonly = true;
  cols.ndim = view.ndim;
  memcpy(cols.shape, view.shape, sizeof view.shape);
  dlx_contiguous_strides(cols.shape, cols.ndim, cols.strides);
  rc = dlx_copy(&cols, &view, err);
  if (rc != 0) return rc;
  /* columns as (images, groups, kernel, count); out as (images, groups, out_group, count) */
  cols.ndim = 4;
  cols.shape[0] = images;
  cols.shape[1] = g->groups;
  cols.shape[2] = kernel;
  cols.shape[3] = count;
  dlx_contiguous_strides(cols.shape, 4, cols.strides);
  dst.ndim = 4;
  dst.shape[0] = images;
  dst.strides[0] = g->c_out * positions;
  dst.shape[1] = g->groups;
  dst.strides[1] = g->out_group * positions;
  dst.shape[2] = g->out_group;
  dst.strides[2] = positions;
  dst.shape[3] = count;
  dst.strides[3] = 1;
  dst.offset = r->out.offset + n0 * g->c_out * positions + r0 * p->inner;
  args = dlx_matmul_args_of(r->name, &r->weight, &cols);
  args.dst = &dst;
  if (r->has_bias) {
    args.c = &r->bias;
    args.beta.kind = DLX_KIND_INT;
    args.beta.v.i = 1;
  }
  return dlx_matmul(&unused, &args, err); /* into dst: unused is not touched */
}

static int run_slices(const conv_run *r, const slicing *p, dlx_error *err) {
  const geometry *g = r->g;
  int rc = 0;
  for (int64_t n0 = 0; n0 < g->n && rc == 0; n0 += p->images) {
    int64_t images = g->n - n0 < p->images ? g->n - n0 : p->images;
    for (int64_t r0 = 0; r0 < g->out[p->dim] && rc == 0; r0 += p->rows) {
      int64_t rows = g->out[p->dim] - r0 < p->rows ? g->out[p->dim] - r0 : p->rows;
      rc = conv_slice(r, p, n0, images, r0, rows, err);
    }
  }
  return rc;
}

/* The weight as (groups, out_group, c_group * kernel), C-contiguous and of the result's dtype (a
 * copy when it is not). */
static int weight_matrix(dlx_tensor *w, const dlx_tensor *weight, const geometry *g,
                         dlx_error *err) {
  int64_t shape[3] = {g->groups, g->out_group, 0};
  int rc = 0;
  if (dlx_tensor_is_contiguous(weight) && weight->dtype == g->dtype)
    dlx_tensor_share(w, weight);
  else
    rc = dlx_clone_as(w, weight, g->dtype, dlx_tensor_device(weight), err);
  if (rc != 0) return rc;
  shape[2] = g->c_group;
  for (int32_t s = 0; s < S; s++) shape[2] *= g->kernel[s];
  w->ndim = 3;
  memcpy(w->shape, shape, sizeof shape);
  dlx_contiguous_strides(w->shape, 3, w->strides);
  return 0;
}

static int run_conv(conv_run *r, const dlx_conv_args *a, dlx_error *err) {
  const geometry *g = r->g;
  DLDevice device = dlx_tensor_device(a->input);
  int64_t budget =
      dlx_device_type_is_host_like(device.device_type) ? HOST_COLUMN_BYTES : DEVICE_COLUMN_BYTES;
  slicing p = slice_output(g, budget / (dlx_dtype_bits(g->dtype) / 8));
  int64_t size = p.images * g->groups * g->c_group * p.rows * p.inner;
  int rc;
  for (int32_t s = 0; s < S; s++) size *= g->kernel[s];
  if (a->bias != NULL) {
    r->has_bias = true;
    r->bias = *a->bias; /* borrowed */
    r->bias.ndim = 3;
    r->bias.shape[0] = g->groups;
    r->bias.shape[1] = g->out_group;
    r->bias.shape[2] = 1;
    r->bias.strides[0] = g->out_group * a->bias->strides[0];
    r->bias.strides[1] = a->bias->strides[0];
    r->bias.strides[2] = 0;
  }
  rc = weight_matrix(&r->weight, a->weight, g, err);
  if (rc == 0) rc = pad_input(&r->src, a->input, a->nspatial, g, err);
  if (rc == 0) rc = dlx_tensor_empty(&r->columns, &size, 1, g->dtype, device, err);
  if (rc == 0) rc = run_slices(r, &p, err);
  return rc;
}

/* The backend's own convolution takes the call: the float and complex dtypes of BLAS, and at
 * least one product per output. */
static bool entry_takes(const dlx_backend *backend, const geometry *g) {
  bool blas = g->dtype == DLX_FLOAT32 || g->dtype == DLX_FLOAT64 || g->dtype == DLX_COMPLEX64 ||
              g->dtype == DLX_COMPLEX128;
  return backend->conv != NULL && blas && g->c_group > 0;
}

/* *t, contiguous and of dtype: itself, or a copy that replaces it. */
static int make_contiguous(dlx_tensor *t, dlx_dtype dtype, dlx_error *err) {
  dlx_tensor copy;
  int rc;
  if (dlx_tensor_is_contiguous(t) && t->dtype == dtype) return 0;
  rc = dlx_clone_as(&copy, t, dtype, dlx_tensor_device(t), err);
  if (rc != 0) return rc;
  dlx_tensor_close(t);
  *t = copy;
  return 0;
}

static int run_entry(conv_run *r, const dlx_conv_args *a, const dlx_backend *backend,
                     dlx_error *err) {
  const geometry *g = r->g;
  dlx_conv_request q;
  int rc = weight_matrix(&r->weight, a->weight, g, err);
  if (rc == 0) rc = pad_input(&r->src, a->input, a->nspatial, g, err);
  if (rc == 0) rc = make_contiguous(&r->src, g->dtype, err);
  if (rc == 0 && a->bias != NULL) {
    dlx_tensor_share(&r->bias_copy, a->bias);
    rc = make_contiguous(&r->bias_copy, g->dtype, err);
  }
  if (rc != 0) return rc;
  memset(&q, 0, sizeof q);
  q.dtype = g->dtype;
  q.src = &r->src;
  q.weight = &r->weight;
  q.bias = a->bias != NULL ? &r->bias_copy : NULL;
  q.out = &r->out;
  q.batch = g->n;
  q.groups = g->groups;
  q.c_group = g->c_group;
  q.out_group = g->out_group;
  for (int32_t s = 0; s < S; s++) {
    q.in[s] = g->in[s] + g->lo[s] + g->hi[s];
    q.kernel[s] = g->kernel[s];
    q.out_size[s] = g->out[s];
    q.stride[s] = g->stride[s];
    q.dilation[s] = g->dilation[s];
  }
  return backend->conv(&q, err);
}

int dlx_conv(dlx_tensor *out, const dlx_conv_args *a, dlx_error *err) {
  geometry g;
  conv_run r;
  int64_t shape[2 + S];
  const dlx_backend *backend;
  int rc = check_numbers(a, err);
  if (rc == 0) rc = check_tensors(a, err);
  if (rc == 0) rc = check_dtype(a, &g.dtype, err);
  if (rc == 0) rc = make_geometry(a, &g, err);
  if (rc != 0) return rc;
  shape[0] = g.n;
  shape[1] = g.c_out;
  for (int32_t s = 0; s < a->nspatial; s++) shape[2 + s] = g.out[S - a->nspatial + s];
  rc = dlx_tensor_empty(out, shape, 2 + a->nspatial, g.dtype, dlx_tensor_device(a->input), err);
  if (rc != 0 || dlx_tensor_numel(out) == 0) return rc;
  memset(&r, 0, sizeof r);
  r.g = &g;
  r.nspatial = a->nspatial;
  r.name = a->name;
  r.out = *out;
  rc = dlx_compute_on(a->input, &backend, err);
  if (rc == 0)
    rc = entry_takes(backend, &g) ? run_entry(&r, a, backend, err) : run_conv(&r, a, err);
  dlx_tensor_close(&r.weight);
  dlx_tensor_close(&r.src);
  dlx_tensor_close(&r.columns);
  dlx_tensor_close(&r.bias_copy);
  if (rc != 0) dlx_tensor_close(out);
  return rc;
}
