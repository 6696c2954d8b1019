/* capsule.h -- the dlx.Capsule userdata: a DLPack managed tensor in transit (capsule.c). */
#ifndef DLX_LUA_CAPSULE_H
#define DLX_LUA_CAPSULE_H

#include "lua/tensor.h"

#define DLXL_CAPSULE "dlx.Capsule"

typedef struct dlxl_capsule {
  void *ptr; /* DLManagedTensorVersioned * or DLManagedTensor * */
  bool versioned;
  bool used; /* consumed: the deleter is someone else's business now */
} dlxl_capsule;

void dlxl_open_capsule(lua_State *L, int state);
/* Pushes an empty (ptr NULL) capsule; loads dlx.core first when its metatable is missing. */
dlxl_capsule *dlxl_newcapsule(lua_State *L);
dlxl_capsule *dlxl_tocapsule(lua_State *L, int idx);
/* Calls the (possibly NULL) deleter of a managed tensor; ptr may be NULL. */
void dlxl_delete_managed(void *ptr, bool versioned);
/* Consumes the capsule and pushes the imported tensor. */
dlxl_tensor *dlxl_importcapsule(lua_State *L, dlxl_capsule *capsule);

#endif
