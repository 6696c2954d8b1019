/* exchange.h -- the exchange table of dlx.h (exchange.c). */
#ifndef DLX_LUA_EXCHANGE_H
#define DLX_LUA_EXCHANGE_H

#include "lua/binding.h"

extern const dlx_exchange_api dlxl_exchange_api;

#endif
