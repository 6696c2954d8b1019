/* The list of backends: their tables, declared in builtin.h, not their headers. */
#include "backends/builtin.h"
#include "core/device.h"
#include "cpu/cpu.h" /* wrong */
