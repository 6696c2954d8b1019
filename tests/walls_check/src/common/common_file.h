/* src/common: nothing but src/common. */
#include "common/half.h"
#include "core/dtype.h" /* wrong */
