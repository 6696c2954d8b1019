/* views.h -- what the tensor methods that make views (views.c) share with t[{...}]. */
#ifndef DLX_LUA_VIEWS_H
#define DLX_LUA_VIEWS_H

#include "lua/binding.h"

/* A slice's 1-based inclusive first and last clamped into a dim of size `size` for the
 * direction of step (not 0), and a step longer than the dim shortened to it. */
void dlxl_clamp_range(int64_t size, int64_t *first, int64_t *last, int64_t *step);

#endif
