/* pycapsule.h -- a PyCapsule destructor for DLPack capsules, for Python hosts that cannot compile
 * one (ctypes, cffi in ABI mode). Exported from libdlx (cmake/dlx.map); libdlx does not link
 * Python: the destructor finds the Python C API in the process when it runs. */
#ifndef DLX_CORE_PYCAPSULE_H
#define DLX_CORE_PYCAPSULE_H

/* The destructor of the Python DLPack protocol, to pass to PyCapsule_New for a capsule named
 * "dltensor" or "dltensor_versioned": when the capsule still has that name (no consumer took the
 * tensor, which renames it "used_..."), calls the DLPack deleter of the struct it holds, once.
 * Runs no Python code and leaves the interpreter's error indicator as it was, so that a consumer
 * that drops the capsule with its own exception pending (NumPy refusing a dtype) still raises
 * that exception. Python calls it with the GIL held. If the Python C API is not visible in the
 * process (Python loaded with RTLD_LOCAL), it does nothing: the tensor leaks, nothing crashes. */
void dlx_pycapsule_destructor(void *capsule);

#endif
