/* count.h -- counting and searching: histc (PyTorch's), histogram (NumPy's), bincount and
 * searchsorted. The core checks the arguments, finds the range and the edges, lays the data out
 * contiguous and calls the backends' count_op (core/backend.h; a device without it raises a
 * DeviceError). */
#ifndef DLX_CORE_COUNT_H
#define DLX_CORE_COUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/backend.h"
#include "core/tensor.h"

/* PyTorch's histc: out = the counts of src's elements (a float dtype, TypeError otherwise) in
 * bins (>= 1) equal bins over [lo, hi], a 1-d tensor of src's dtype. lo == hi: the data's min
 * and max; a range still empty grows by 1 each side; a range not finite or lo > hi is a
 * ValueError. Elements outside the range and NaN are not counted; hi goes in the last bin. */
int dlx_histc(dlx_tensor *out, const dlx_tensor *src, int64_t bins, double lo, double hi,
              dlx_error *err);

/* NumPy's histogram of src's elements (an integer or real float dtype): hist and edges. The bins
 * are edges_in (1-d, at least 2, not decreasing), or else bins (>= 1) equal bins over range
 * (NULL: the data's min and max; [0, 1] for no data; an empty range grows by 0.5 each side),
 * whose edges are NumPy's linspace (float32 for float32, float16 and bfloat16 data, float64
 * otherwise). Each element counts in the bin b with edges[b] <= x < edges[b + 1], the last bin
 * closed; the others and NaN are left out. hist is int64 counts, the sums of weights (src's
 * shape; summed in float64, in weights' dtype), or with density float64 counts / (total x bin
 * width). */
int dlx_histogram(dlx_tensor *hist, dlx_tensor *edges, const dlx_tensor *src, int64_t bins,
                  const dlx_tensor *edges_in, const double *range, const dlx_tensor *weights,
                  bool density, dlx_error *err);

/* NumPy's bincount: out[v] = the count of v in src (1-d, bool or an integer dtype, non-negative),
 * of max(max + 1, minlength) elements, int64; with weights (src's length, a real dtype) their
 * float64 sums. */
int dlx_bincount(dlx_tensor *out, const dlx_tensor *src, const dlx_tensor *weights,
                 int64_t minlength, dlx_error *err);

/* out (int64, values' shape) = the 1-based position where each value goes in sorted: 1 + the
 * count of elements below it (right: not above it), in the order of sorting (-0.0 equal to 0.0,
 * NaN above every number). sorted is 1-d, or has values' dims with the same sizes but the last,
 * each of its last-dim lines sorted. Both take their promoted dtype. name is the Lua function. */
int dlx_searchsorted(dlx_tensor *out, const dlx_tensor *sorted, const dlx_tensor *values,
                     bool right, const char *name, dlx_error *err);

#endif
