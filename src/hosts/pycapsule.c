/* pycapsule.c -- dlx_pycapsule_destructor (dlx.h), for Python hosts. A destructor written in Python
 * (a ctypes callback) cannot keep a pending exception: running Python code with one set is an
 * error, and restoring it afterwards makes the consumer raise SystemError instead of its own error.
 * This one only calls C functions of the Python API, which it looks up at call time so that libdlx
 * needs no Python at build or load time. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "dlx.h"

#include <dlfcn.h>
#include <stddef.h>

#include "dlpack/dlpack.h"

typedef int (*capsule_is_valid_fn)(void *capsule, const char *name);
typedef void *(*capsule_get_pointer_fn)(void *capsule, const char *name);
typedef void (*err_fetch_fn)(void **type, void **value, void **traceback);
typedef void (*err_restore_fn)(void *type, void *value, void *traceback);

typedef struct python_api {
  capsule_is_valid_fn is_valid;
  capsule_get_pointer_fn get_pointer;
  err_fetch_fn fetch;
  err_restore_fn restore;
} python_api;

/* Looked up on each call (a few hash lookups, at a capsule's death): a cache would need care
 * for interpreters that are finalised and started again. Data pointers and function pointers
 * have the same size on every platform dlsym exists on (POSIX requires it). */
static int find_python(python_api *py) {
  *(void **)&py->is_valid = dlsym(RTLD_DEFAULT, "PyCapsule_IsValid");
  *(void **)&py->get_pointer = dlsym(RTLD_DEFAULT, "PyCapsule_GetPointer");
  *(void **)&py->fetch = dlsym(RTLD_DEFAULT, "PyErr_Fetch");
  *(void **)&py->restore = dlsym(RTLD_DEFAULT, "PyErr_Restore");
  return py->is_valid != NULL && py->get_pointer != NULL && py->fetch != NULL &&
         py->restore != NULL;
}

void dlx_pycapsule_destructor(void *capsule) {
  python_api py;
  void *type, *value, *traceback;
  if (capsule == NULL || !find_python(&py)) return;
  /* The deleter may be a peer's that runs Python code (dropping an array): it must not see the
   * consumer's exception, which is put back afterwards. */
  py.fetch(&type, &value, &traceback);
  if (py.is_valid(capsule, "dltensor_versioned")) {
    DLManagedTensorVersioned *mt = py.get_pointer(capsule, "dltensor_versioned");
    if (mt != NULL && mt->deleter != NULL) mt->deleter(mt);
  } else if (py.is_valid(capsule, "dltensor")) {
    DLManagedTensor *mt = py.get_pointer(capsule, "dltensor");
    if (mt != NULL && mt->deleter != NULL) mt->deleter(mt);
  }
  py.restore(type, value, traceback);
}
