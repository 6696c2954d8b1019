/* circle_c uses circle_a, which closes the circle; binding.h is below it. */
#include "lua/binding.h"
#include "lua/circle_a.h" /* wrong */
