#!/usr/bin/env python3
"""NumPy as the reference for spec/property_small_ops_spec.lua.

Usage: numpy_small_ops.py CASES RESULTS

CASES has one case a line, fields separated by tabs: id, op, its integer parameters (comma
separated, dims 1-based as in dlx, "" for none), then the inputs, each "dtype|shape|values"
(shape "2,3", values space separated; floats as decimal text).
RESULTS gets one line a case: "id<TAB>dtype<TAB>shape<TAB>values", where an op with several
results (meshgrid, broadcast_tensors) gives the first one's dtype and shape and every result's
values one after the other; shares_memory gives dtype "bool", no shape, and two values:
np.shares_memory and np.may_share_memory of the two layouts.
"""
import sys

import numpy as np
from numpy.lib.stride_tricks import as_strided, sliding_window_view

from numpy_ref import format_value, parse_tensor


def axis(dim, ndim):
    return dim - 1 if dim > 0 else ndim + dim


def layout(buffer, params, itemsize):
    """A view of buffer: ndim, then shape, strides (elements), offset."""
    ndim = params[0]
    shape, strides, offset = params[1:1 + ndim], params[1 + ndim:1 + 2 * ndim], params[-1]
    base = buffer[offset:]
    return as_strided(base, shape=shape, strides=[s * itemsize for s in strides])


def run(op, p, arrays):
    a = arrays[0]
    if op == "fmod":
        return [np.fmod(a, arrays[1])]
    if op == "roll":
        return [np.roll(a, p[0]) if len(p) == 1 else np.roll(a, p[0], axis=axis(p[1], a.ndim))]
    if op == "diff":
        return [np.diff(a, n=p[0], axis=axis(p[1], a.ndim))]
    if op == "rot90":
        return [np.rot90(a, p[0], axes=(axis(p[1], a.ndim), axis(p[2], a.ndim)))]
    if op == "movedim":
        return [np.moveaxis(a, axis(p[0], a.ndim), axis(p[1], a.ndim))]
    if op == "unfold":
        ax = axis(p[0], a.ndim)
        w = sliding_window_view(a, p[1], axis=ax)
        return [w[(slice(None),) * ax + (slice(None, None, p[2]),)]]
    if op == "meshgrid":
        return np.meshgrid(*arrays, indexing="ij" if p[0] == 1 else "xy")
    if op == "broadcast_tensors":
        return np.broadcast_arrays(*arrays)
    raise ValueError(op)


def shares(p, arrays):
    buffer = arrays[0]
    n = 2 * p[0] + 2
    x = layout(buffer, p[:n], buffer.itemsize)
    y = layout(buffer, p[n:], buffer.itemsize)
    return "%d %d" % (np.shares_memory(x, y), np.may_share_memory(x, y))


def main():
    cases, results = sys.argv[1], sys.argv[2]
    with open(cases) as f, open(results, "w") as out:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            case_id, op = fields[0], fields[1]
            p = [int(x) for x in fields[2].split(",")] if fields[2] else []
            arrays = [parse_tensor(x, "float64") for x in fields[3:]]
            if op == "shares_memory":
                out.write("%s\tbool\t\t%s\n" % (case_id, shares(p, arrays)))
                continue
            rs = run(op, p, arrays)
            out.write("%s\t%s\t%s\t%s\n" % (
                case_id, rs[0].dtype.name, ",".join(str(s) for s in rs[0].shape),
                " ".join(format_value(v) for r in rs for v in np.asarray(r).reshape(-1))))


if __name__ == "__main__":
    main()
