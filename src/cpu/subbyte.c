/* subbyte.c -- copies of packed fp4 and fp6 tensors. Element k of such a tensor is the `width`
 * bits starting at bit k * width from buffer->data, least significant bit first (an fp6 may
 * straddle two bytes). Offsets and strides count elements. */
#include <stdbool.h>
#include <string.h>

#include "cpu/kernels.h"
#include "cpu/strided_iter.h"

/* Bit positions are signed: a view with negative strides may reach elements before data. */
static int64_t floor_div8(int64_t bit) { return bit >= 0 ? bit / 8 : -((-bit + 7) / 8); }

static unsigned get_bits(const uint8_t *base, int64_t bit, unsigned width) {
  int64_t byte = floor_div8(bit);
  const uint8_t *p = base + byte;
  unsigned shift = (unsigned)(bit - byte * 8), v = p[0] >> shift;
  if (shift + width > 8) v |= (unsigned)p[1] << (8 - shift);
  return v & ((1u << width) - 1);
}

static void put_bits(uint8_t *base, int64_t bit, unsigned width, unsigned v) {
  int64_t byte = floor_div8(bit);
  uint8_t *p = base + byte;
  unsigned shift = (unsigned)(bit - byte * 8), mask = (1u << width) - 1;
  p[0] = (uint8_t)((p[0] & ~(mask << shift)) | (v << shift));
  if (shift + width > 8) {
    unsigned rest = shift + width - 8; /* bits that go into the next byte */
    p[1] = (uint8_t)((p[1] & ~((1u << rest) - 1)) | (v >> (width - rest)));
  }
}

static bool on_byte(int64_t bit) { return bit - floor_div8(bit) * 8 == 0; }

/* A contiguous run: element by element until dst reaches a byte boundary, then whole bytes
 * with memcpy when src is on a byte boundary too, then the remaining elements. */
static void copy_contiguous(uint8_t *dst, int64_t dbit, const uint8_t *src, int64_t sbit, int64_t n,
                            unsigned width) {
  for (; n > 0 && !on_byte(dbit); n--, dbit += width, sbit += width)
    put_bits(dst, dbit, width, get_bits(src, sbit, width));
  if (on_byte(sbit)) {
    int64_t group = width == 4 ? 2 : 4; /* elements in a whole number of bytes */
    int64_t m = n - n % group;
    if (m > 0) memcpy(dst + floor_div8(dbit), src + floor_div8(sbit), (size_t)m * width / 8);
    dbit += m * width;
    sbit += m * width;
    n -= m;
  }
  for (; n > 0; n--, dbit += width, sbit += width)
    put_bits(dst, dbit, width, get_bits(src, sbit, width));
}

static void copy_run(uint8_t *dst, int64_t dpos, int64_t dstep, const uint8_t *src, int64_t spos,
                     int64_t sstep, int64_t n, unsigned width) {
  if (dstep == 1 && sstep == 1) {
    copy_contiguous(dst, dpos * width, src, spos * width, n, width);
    return;
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t dbit = (dpos + i * dstep) * width, sbit = (spos + i * sstep) * width;
    put_bits(dst, dbit, width, get_bits(src, sbit, width));
  }
}

void dlx_cpu_copy_subbyte(const dlx_tensor *dst, const dlx_tensor *src) {
  const int64_t *strides[2] = {dst->strides, src->strides};
  const int64_t offsets[2] = {dst->offset, src->offset};
  unsigned width = (unsigned)dlx_dtype_bits(dst->dtype);
  dlx_strided it;
  if (!dlx_strided_init(&it, dst->ndim, dst->shape, 2, strides, offsets,
                        DLX_STRIDED_REORDER | DLX_STRIDED_DROP_BROADCAST))
    return;
  int64_t n = dlx_strided_inner_size(&it);
  int64_t dstep = dlx_strided_inner_stride(&it, 0), sstep = dlx_strided_inner_stride(&it, 1);
  int64_t index[DLX_MAX_NDIM] = {0}, pos[2] = {it.offset[0], it.offset[1]};
  do {
    copy_run(dst->buffer->data, pos[0], dstep, src->buffer->data, pos[1], sstep, n, width);
  } while (dlx_strided_next(&it, index, pos));
}
