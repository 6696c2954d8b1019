#!/usr/bin/env python3
"""NumPy as the reference for spec/property_joining_spec.lua.

Usage: numpy_joining.py CASES RESULTS

CASES has one case a line, fields separated by tabs: id, op ("cat" or "stack"), dim (1-based,
negative from the end, as in dlx), split size, then one field per input:
"dtype|shape|values" (shape "2,3", values space separated, bools as 0 and 1).
RESULTS gets one line a case: "id<TAB>dtype<TAB>shape<TAB>values<TAB>sizes", where sizes lists the
lengths along dim of the pieces of splitting the result by the split size (PyTorch's split:
equal pieces, the last smaller), or "id<TAB>error" when NumPy refuses the join.
"""
import sys

import numpy as np

from numpy_ref import format_value, parse_tensor


def main():
    cases, results = sys.argv[1], sys.argv[2]
    with open(cases) as f, open(results, "w") as out:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            case_id, op, dim, size = fields[0], fields[1], int(fields[2]), int(fields[3])
            arrays = [parse_tensor(x) for x in fields[4:]]
            ndim = arrays[0].ndim + (1 if op == "stack" else 0)
            axis = dim - 1 if dim > 0 else ndim + dim
            try:
                r = (np.stack if op == "stack" else np.concatenate)(arrays, axis=axis)
            except ValueError:
                out.write("%s\terror\n" % case_id)
                continue
            n = r.shape[axis]
            sizes = [min(size, n - s) for s in range(0, n, size)] if n > 0 else [0]
            pieces = np.split(r, list(range(size, n, size)), axis=axis) if n > 0 else [r]
            assert [p.shape[axis] for p in pieces] == sizes
            out.write("%s\t%s\t%s\t%s\t%s\n" % (
                case_id, r.dtype.name, ",".join(str(s) for s in r.shape),
                " ".join(format_value(v) for v in r.reshape(-1)), ",".join(map(str, sizes))))


if __name__ == "__main__":
    main()
