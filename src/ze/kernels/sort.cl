/* sort.cl -- the Level Zero backend's sort_rows, part of the module that dlx_kernels.cl makes:
 * the three phases of dlx_ze_sort_args (ze_args.h), a work-item per element (grid-stride). The
 * keys are src/common/sort_keys.h's, widened to 64 bits. */
#include "common/sort_keys.h"

/* (key, position) of a is after that of b. */
static bool sort_after(ulong ka, long pa, ulong kb, long pb) {
  return ka > kb || (ka == kb && pa > pb);
}

static void sort_keys(__global const uchar *src, __global ulong *keys, __global long *pos,
                      __global const dlx_ze_sort_args *a) {
  long total = a->rows * a->padded;
  for (long g = get_global_id(0); g < total; g += get_global_size(0)) {
    long r = g / a->padded, i = g - r * a->padded;
    ulong element = 0; /* aligned for the widest key */
    if (i < a->n) {
      read_bytes((char *)&element, src + (r * a->n + i) * a->itemsize, (int)a->itemsize);
      keys[g] = dlx_sort_key_at((int)a->key_kind, &element) ^ a->flip;
    } else {
      keys[g] = ~(ulong)0;
    }
    pos[g] = i;
  }
}

static void sort_step(__global ulong *keys, __global long *pos,
                      __global const dlx_ze_sort_args *a) {
  long total = a->rows * a->padded;
  for (long g = get_global_id(0); g < total; g += get_global_size(0)) {
    long r = g / a->padded, i = g - r * a->padded, partner = i ^ a->j;
    if (partner > i) {
      long h = g + (partner - i);
      bool ascending = (i & a->k) == 0;
      if (sort_after(keys[g], pos[g], keys[h], pos[h]) == ascending) {
        ulong key = keys[g];
        long p = pos[g];
        keys[g] = keys[h];
        pos[g] = pos[h];
        keys[h] = key;
        pos[h] = p;
      }
    }
  }
}

static void sort_gather(__global const uchar *src, __global uchar *values, __global long *indices,
                        __global const long *pos, __global const dlx_ze_sort_args *a) {
  long total = a->rows * a->n;
  for (long g = get_global_id(0); g < total; g += get_global_size(0)) {
    long r = g / a->n, i = g - r * a->n, p = pos[r * a->padded + i];
    char element[8];
    read_bytes(element, src + (r * a->n + p) * a->itemsize, (int)a->itemsize);
    write_bytes(values + g * a->itemsize, element, (int)a->itemsize);
    indices[g] = p + 1;
  }
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
dlx_sort_rows(__global const uchar *src, __global uchar *values, __global long *indices,
              __global ulong *keys, __global long *pos, __global const dlx_ze_sort_args *a) {
  if (a->phase == DLX_ZE_SORT_KEYS)
    sort_keys(src, keys, pos, a);
  else if (a->phase == DLX_ZE_SORT_STEP)
    sort_step(keys, pos, a);
  else
    sort_gather(src, values, indices, pos, a);
}
