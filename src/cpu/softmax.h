/* softmax.h -- softmax (or log_softmax, when log_result) of the n >= 1 contiguous values at x into
 * y (which may be x). */
#ifndef DLX_CPU_SOFTMAX_H
#define DLX_CPU_SOFTMAX_H

#include <stdbool.h>
#include <stdint.h>

void dlx_cpu_softmax_float32(const float *x, float *y, int64_t n, bool log_result);
void dlx_cpu_softmax_float64(const double *x, double *y, int64_t n, bool log_result);

#endif
