/* ops.h -- tensor operations of the core: argument checks, dtype rules and dispatch to the
 * backends. Everything here works on any device and never touches Lua. Each function that reads
 * or writes data first refuses borrowed memory whose loan has ended (dlx_buffer_check). */
#ifndef DLX_CORE_OPS_H
#define DLX_CORE_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/backend.h"
#include "core/scalar.h"
#include "core/tensor.h"

/* True when the bytes a and b touch intersect (only possible within one buffer). */
bool dlx_tensors_may_overlap(const dlx_tensor *a, const dlx_tensor *b);
/* True when a and b are the same view: buffer, dtype, offset, shape and strides. */
bool dlx_tensors_same_view(const dlx_tensor *a, const dlx_tensor *b);
/* Writes need a writable destination whose elements are distinct memory locations: ValueError
 * for a read-only dst or one with a broadcast (stride-0) dim. */
int dlx_check_writable(const dlx_tensor *dst, dlx_error *err);

/* dst[...] = src, with src broadcast to dst's shape, cast to dst's dtype, across devices.
 * ValueError for a read-only dst or one with internal overlap (a stride-0 dim of size > 1);
 * overlapping src and dst go through a temporary. */
int dlx_copy(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err);
/* out = a new C-contiguous tensor with src's values, as dtype on device (both may differ). */
int dlx_clone_as(dlx_tensor *out, const dlx_tensor *src, dlx_dtype dtype, DLDevice device,
                 dlx_error *err);
/* The same in a kind of memory (see dlx_buffer_new_memory). */
int dlx_clone_as_memory(dlx_tensor *out, const dlx_tensor *src, dlx_dtype dtype, DLDevice device,
                        dlx_memory memory, dlx_error *err);
/* The kind of memory t lives in: DLX_MEMORY_DEFAULT on backends with one kind. */
dlx_memory dlx_tensor_memory(const dlx_tensor *t);
/* out = a new C-contiguous tensor of shape and dtype on like's device, in like's kind of memory
 * (the temporaries and results of an op on like). */
int dlx_empty_on(dlx_tensor *out, const dlx_tensor *like, const int64_t *shape, int32_t ndim,
                 dlx_dtype dtype, dlx_error *err);
/* out = t with its dim `from` moved to place `to` (the others keep their order), C-contiguous on
 * t's device and memory; t itself when it is C-contiguous and from == to. Closes t. */
int dlx_move_dim(dlx_tensor *out, dlx_tensor *t, int32_t from, int32_t to, dlx_error *err);
/* Every element of dst = value. ValueError for a read-only or broadcast dst; TypeError for a
 * storage-only dtype or a complex value into a real tensor. */
int dlx_fill(const dlx_tensor *dst, const dlx_scalar *value, dlx_error *err);

/* The dtype a reduction produces from `in`, or TypeError (storage-only dtypes; min, max,
 * argmin and argmax of complex): sum and prod give int64 for bool and integers (uint64 for
 * uint64) and keep float and complex types; mean gives float64 for bool and integers;
 * min and max keep the dtype; argmin and argmax give int64; all and any give bool. */
int dlx_reduce_dtype(dlx_reduce_op op, dlx_dtype in, dlx_dtype *out, dlx_error *err);
/* out = op over the dims in the bitmask (0-based); keepdim keeps them as size 1.
 * ArgMin/ArgMax take one dim or all of them (flattened index); ValueError otherwise, and for
 * min/max/argmin/argmax over an empty extent. */
int dlx_reduce(dlx_tensor *out, dlx_reduce_op op, const dlx_tensor *src, uint64_t dims,
               bool keepdim, dlx_error *err);
/* The two ends of a reduction of src over the dims in the bitmask (dlx_reduce, dlx_reduce_stat):
 * dst = a fresh tensor of dtype on src's device, src's shape with those dims of size 1; then, once
 * the backend returned rc, out = dst without those dims unless keepdim (rc != 0: dst closed).
 * dlx_reduced_done returns rc. */
int dlx_reduced_empty(dlx_tensor *dst, const dlx_tensor *src, uint64_t dims, dlx_dtype dtype,
                      dlx_error *err);
int dlx_reduced_done(dlx_tensor *out, dlx_tensor *dst, int rc, uint64_t dims, bool keepdim);

/* Reads the element at index (0-based, ndim entries; NULL for a 0-d tensor) on any device,
 * as a bool, int64, uint64, float64 or complex128 scalar. TypeError for storage-only dtypes. */
int dlx_get_element(const dlx_tensor *t, const int64_t *index, dlx_scalar *out, dlx_error *err);
/* out = a C-contiguous host (CPU) copy of t whose dtype is the widest of its kind: bool stays
 * bool, signed ints become int64, unsigned uint64, floats float64, complex complex128.
 * Used to read many elements at once (totable, printing). */
int dlx_to_host_wide(dlx_tensor *out, const dlx_tensor *t, dlx_error *err);

#endif
