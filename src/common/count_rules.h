/* count_rules.h -- the per-element rules of the backend entry count_op (src/core/backend.h):
 * the bin of an element by histc's linear formula or between histogram's edges, and the binary
 * search of searchsorted over src/common/sort_keys.h's keys (-0.0 equal to 0.0, NaN above every
 * number). One definition for the CPU (src/cpu/count.c), the CUDA kernels (src/cuda/
 * count_element.h) and the OpenCL C kernels of Level Zero (src/ze/kernels/count.cl), so that
 * every device puts each element in the CPU's bin and each value at the CPU's position.
 *
 * The searches are macros, not functions, since OpenCL C 1.2 has no pointer type that reaches
 * both private and global memory: a macro takes the kernel's pointers as they are. */
#ifndef DLX_COMMON_COUNT_RULES_H
#define DLX_COMMON_COUNT_RULES_H

#include "common/portable.h"

/* The bin of an element that no bin counts (outside the range, or NaN). */
#define DLX_COUNT_LEFT_OUT (-1)

/* The bin of x by histc's linear rule in T: PyTorch's formula, the multiplication first, then
 * the division (no step that a compiler could fuse). A quotient that is not a number (an
 * infinite range) takes bin 0, never an undefined cast. */
#define DLX_COUNT_LINEAR_BIN(T, NAME)                                                              \
  DLX_SHARED int64_t NAME(T x, T lo, T hi, int64_t nb) {                                           \
    T f;                                                                                           \
    if (!(x >= lo && x <= hi)) return DLX_COUNT_LEFT_OUT;                                          \
    f = (x - lo) * (T)nb / (hi - lo);                                                              \
    return f >= (T)nb ? nb - 1 : f > 0 ? (int64_t)f : 0;                                           \
  }

DLX_COUNT_LINEAR_BIN(float, dlx_count_linear_bin_f32)
DLX_COUNT_LINEAR_BIN(double, dlx_count_linear_bin_f64)

/* out = the bin of x (of type T) between the edges e[0] .. e[nb] (T, increasing), the last
 * bin closed, or DLX_COUNT_LEFT_OUT. Uniform edges (a linspace) take a first guess from the
 * formula, others a binary search (the edges <= x, less one); then the edges decide. */
#define DLX_COUNT_EDGES_BIN(T, e, x, nb, uniform, out)                                             \
  do {                                                                                             \
    int64_t b_;                                                                                    \
    if (!((x) >= (e)[0] && (x) <= (e)[nb])) {                                                      \
      (out) = DLX_COUNT_LEFT_OUT;                                                                  \
      break;                                                                                       \
    }                                                                                              \
    if (uniform) {                                                                                 \
      T f_ = ((x) - (e)[0]) / ((e)[nb] - (e)[0]) * (T)(nb);                                        \
      b_ = f_ >= (T)(nb) ? (nb)-1 : f_ > 0 ? (int64_t)f_ : 0;                                      \
    } else {                                                                                       \
      int64_t lo_ = 0, len_ = (nb) + 1;                                                            \
      while (len_ > 0) {                                                                           \
        int64_t half_ = len_ / 2;                                                                  \
        if ((e)[lo_ + half_] <= (x)) {                                                             \
          lo_ += half_ + 1;                                                                        \
          len_ -= half_ + 1;                                                                       \
        } else {                                                                                   \
          len_ = half_;                                                                            \
        }                                                                                          \
      }                                                                                            \
      b_ = lo_ - 1;                                                                                \
    }                                                                                              \
    while (b_ > 0 && (x) < (e)[b_]) b_--;                                                          \
    while (b_ < (nb)-1 && (x) >= (e)[b_ + 1]) b_++;                                                \
    (out) = b_ > (nb)-1 ? (nb)-1 : b_;                                                             \
  } while (0)

/* Whether a sorted element of key k goes before a value of key key: below it (right: not
 * above it). */
#define DLX_COUNT_BEFORE(k, key, right) ((right) ? (k) <= (key) : (k) < (key))

/* out = the count of the n >= 1 sorted elements s[0] .. s[n - 1] (T: unsigned, the bits of an
 * element; P: s's pointer type, as OpenCL C names its memory) whose keys (KEY, a sort_keys.h key
 * function) go before key: a branchless binary search (the halved lengths do not depend on the
 * data). */
#define DLX_COUNT_BELOW(P, T, KEY, s, n, key, right, out)                                          \
  do {                                                                                             \
    P b_ = (s);                                                                                    \
    int64_t len_ = (n);                                                                            \
    T k_;                                                                                          \
    while (len_ > 1) {                                                                             \
      int64_t half_ = len_ / 2;                                                                    \
      k_ = KEY(b_[half_]);                                                                         \
      b_ = DLX_COUNT_BEFORE(k_, key, right) ? b_ + half_ : b_;                                     \
      len_ -= half_;                                                                               \
    }                                                                                              \
    k_ = KEY(*b_);                                                                                 \
    (out) = (b_ - (s)) + DLX_COUNT_BEFORE(k_, key, right);                                         \
  } while (0)

#endif
