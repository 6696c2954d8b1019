/* A circle of includes inside the binding: circle_a uses circle_b, which uses circle_c, which
 * uses circle_a (a file and its header are one node). Each include on the circle is wrong; the
 * includes of files below the circle are not. */
#include "lua/circle_a.h"

#include "lua/binding.h"
#include "lua/circle_b.h" /* wrong */
