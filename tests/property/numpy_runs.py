#!/usr/bin/env python3
"""NumPy as the reference for spec/property_runs_spec.lua: unique_consecutive (PyTorch's
semantics, written with NumPy: an element or slice that differs (!=) from the one before it
starts a run, so every NaN starts one) and argwhere (np.argwhere, 1-based).

Usage: numpy_runs.py CASES RESULTS

CASES has one case a line, fields separated by tabs: id, op ("unique_consecutive" or
"argwhere"), the dim (1-based, negative from the end; "" for none), then the input
"dtype|shape|values" (shape "2,3", values space separated; floats as decimal text).
RESULTS gets one line a case: "id<TAB>dtype<TAB>shapes<TAB>values": the first result's dtype,
every result's shape ("2,3", separated by ";") and every result's values one after the other
(unique_consecutive: values, inverse and counts; inverse and counts 1-based positions).
"""
import sys

import numpy as np


def parse_input(field):
    dtype, shape, values = field.split("|")
    shape = tuple(int(x) for x in shape.split(",")) if shape else ()
    data = [float(v) for v in values.split()] if values else []
    return np.array(data, dtype=np.float64).astype(dtype).reshape(shape)


def value_text(v):
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return str(int(v))


def unique_consecutive(a, dim):
    if dim is None:
        m = a.reshape(-1)
        ax = 0
    else:
        ax = dim - 1 if dim > 0 else a.ndim + dim
        m = np.moveaxis(a, ax, 0)
    size = m.shape[0]
    differ = m[1:] != m[:-1]
    if differ.ndim > 1:
        differ = differ.any(axis=tuple(range(1, differ.ndim)))
    starts = np.concatenate([np.ones(min(size, 1), dtype=bool), differ])
    at = np.flatnonzero(starts)
    values = m[at]
    if dim is not None:
        values = np.moveaxis(values, 0, ax)
    inverse = np.cumsum(starts).astype(np.int64)
    if dim is None:
        inverse = inverse.reshape(a.shape)
    counts = np.diff(np.append(at, size)).astype(np.int64)
    return [values, inverse, counts]


def main():
    cases, results = sys.argv[1], sys.argv[2]
    with open(cases) as f, open(results, "w") as out:
        for line in f:
            case_id, op, dim, field = line.rstrip("\n").split("\t")
            a = parse_input(field)
            if op == "argwhere":
                rs = [np.argwhere(a).astype(np.int64) + 1]
            else:
                rs = unique_consecutive(a, int(dim) if dim else None)
            out.write("%s\t%s\t%s\t%s\n" % (
                case_id, rs[0].dtype.name,
                ";".join(",".join(str(s) for s in r.shape) for r in rs),
                " ".join(value_text(v) for r in rs for v in np.asarray(r).reshape(-1))))


if __name__ == "__main__":
    main()
