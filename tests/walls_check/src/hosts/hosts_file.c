/* Glue for hosts: the core and the public header, never a backend. */
#include "core/device.h"
#include "dlx.h"
#include "ze/ze.h" /* wrong */
