/* A file above the circle of circle_a.c: it uses two files of the circle, and is on none. */
#include "lua/circle_a.h"
#include "lua/circle_c.h"
