/* circle_b's header names circle_c: one step of the circle of circle_a.c. */
#include "lua/binding.h"
#include "lua/circle_c.h" /* wrong */
