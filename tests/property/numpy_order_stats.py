"""NumPy's answers for spec/property_order_stats_spec.lua.

Reads cases, one a line: id, op, dim (1-based, 0: every element), q, method, shape and the
float64 values (nan written as nan), tab-separated; writes id, then the results' shape and
values (repr of float64, nan as nan), tab-separated. Each op is what dlx's is in NumPy's words:
dlx's median is the lower median (np.quantile with method "lower" at 0.5), nanmedian the same
of np.nanquantile; quantile and nanquantile take the method; cummax and cummin the values of
np.maximum.accumulate / np.minimum.accumulate (NaN propagates), nansum, nanmean, count_nonzero
the functions of those names.
"""
import sys
import warnings

import numpy as np


def run(op, dim, q, method, a):
    axis = None if dim == 0 else dim - 1
    if op == "median":
        return np.quantile(a, 0.5, axis=axis, method="lower")
    if op == "nanmedian":
        return np.nanquantile(a, 0.5, axis=axis, method="lower")
    if op == "quantile":
        return np.quantile(a, q, axis=axis, method=method)
    if op == "nanquantile":
        return np.nanquantile(a, q, axis=axis, method=method)
    if op == "cummax":
        return np.maximum.accumulate(a, axis=axis)
    if op == "cummin":
        return np.minimum.accumulate(a, axis=axis)
    if op == "nansum":
        return np.nansum(a, axis=axis)
    if op == "nanmean":
        return np.nanmean(a, axis=axis)
    if op == "count_nonzero":
        return np.count_nonzero(a, axis=axis)
    raise ValueError(op)


def main():
    warnings.simplefilter("ignore")  # all-NaN slices
    with open(sys.argv[1]) as cases, open(sys.argv[2], "w") as out:
        for line in cases:
            cid, op, dim, q, method, shape, values = line.rstrip("\n").split("\t")
            shape = tuple(int(s) for s in shape.split(",") if s)
            a = np.array([float(v) for v in values.split()], dtype=np.float64).reshape(shape)
            r = np.asarray(run(op, int(dim), float(q), method, a), dtype=np.float64)
            out.write("%s\t%s\t%s\n" % (cid, ",".join(str(s) for s in r.shape),
                                        " ".join(repr(float(x)) for x in r.ravel())))


if __name__ == "__main__":
    main()
