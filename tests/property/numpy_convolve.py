"""NumPy's answers for spec/property_convolve_spec.lua.

Reads cases, one a line, tab-separated: id, the function ("convolve" or "correlate"), the mode,
the dtype ("float64", "int64" or "complex128"), then the values of a and of v, space-separated
(a complex value as re,im). Writes id, the result's length and its values (repr of float64; a
complex value as re,im), tab-separated.
"""
import sys

import numpy as np


def values(text, dtype):
    if dtype == "complex128":
        return np.array([complex(*(float(p) for p in v.split(","))) for v in text.split()])
    return np.array([float(v) for v in text.split()]).astype(dtype)


def show(x):
    if isinstance(x, complex):
        return "%r,%r" % (x.real, x.imag)
    return repr(float(x))


def main():
    with open(sys.argv[1]) as cases, open(sys.argv[2], "w") as out:
        for line in cases:
            cid, name, mode, dtype, a, v = line.rstrip("\n").split("\t")
            r = getattr(np, name)(values(a, dtype), values(v, dtype), mode)
            out.write("%s\t%d\t%s\n" % (cid, r.size, " ".join(show(x) for x in r.tolist())))


if __name__ == "__main__":
    main()
