#!/usr/bin/env python3
"""NumPy as the reference for the indexing cases of spec/property_indexing_spec.lua.

Usage: numpy_indexing.py CASES RESULTS

CASES has one case a line, fields separated by tabs: id, op, then the op's fields. A tensor is
"dtype|shape|values" (shape "2,3", values space separated, bools as 0 and 1), in row-major order
(dlx's tensor may be a strided view: NumPy sees its values). Indices are dlx's: 1-based, negative
from the end; dims are 1-based. The ops and their fields:

    item          t  i            t[i]
    key           t  key          t[{...}], key entries separated by ";": an integer, "{}" (keep
                                  the dim) or "r:first:last:step" (a range, empty fields absent)
    key_set       t  key  value   t[{...}] = value, then t
    mask          t  mask         t[mask]
    mask_set      t  mask  value  t[mask] = value, then t
    index_select  t  dim  index
    gather        t  dim  index
    scatter       t  dim  index  src   t:scatter_ (no repeated position along dim), then t
    index_add     t  dim  index  src   t:index_add_ (np.add.at: in index order), then t
    masked_select t  mask
    masked_fill   t  mask  value  t:masked_fill_, then t
    nonzero       t               1-based positions, {count, ndim}

RESULTS gets one line a case: "id<TAB>dtype<TAB>shape<TAB>values", or "id<TAB>error<TAB>why"
when NumPy refuses the case.
"""
import sys

import numpy as np

from numpy_ref import format_value, parse_tensor


def zero_based(index, size):
    """dlx's 1-based or negative indices as NumPy's 0-based ones."""
    index = np.asarray(index, dtype=np.int64)
    return np.where(index < 0, index + size, index - 1)


def range_slice(first, last, step, count, n):
    """dlx's inclusive, clamped range (t:slice's rules) as a Python slice of a dim of size n."""
    def position(text, default):
        if text == "":
            return default
        i = int(text)
        return n + i + 1 if i < 0 else i

    step = int(step) if step != "" else 1
    first = position(first, 1 if step > 0 else n)
    last = first if count == 1 else position(last, n if step > 0 else 1)
    if step > 0:
        first, last = max(first, 1), min(last, n)
        return slice(first - 1, max(last, 0), step)
    first, last = min(first, n), max(last, 1)
    if first < 1:
        return slice(0, 0)
    return slice(first - 1, last - 2 if last >= 2 else None, step)


def parse_key(text, shape):
    key = []
    for d, entry in enumerate(text.split(";") if text else []):
        n = shape[d]
        if entry == "{}":
            key.append(slice(None))
        elif entry.startswith("r"):
            parts = entry.split(":")[1:]
            key.append(range_slice(parts[0], parts[1] if len(parts) > 1 else "",
                                   parts[2] if len(parts) > 2 else "", len(parts), n))
        else:
            key.append(int(zero_based(int(entry), n)))
    return tuple(key)


def leading(a, shape, axis):
    """a cut to shape in every dim but axis (the part that gather and scatter_ touch)."""
    return a[tuple(slice(None) if d == axis else slice(0, s) for d, s in enumerate(shape))]


def run(op, f):
    t = parse_tensor(f[0])
    if op == "item":
        return t[int(zero_based(int(f[1]), t.shape[0]))]
    if op == "key":
        return t[parse_key(f[1], t.shape)]
    if op == "key_set":
        t[parse_key(f[1], t.shape)] = int(f[2])
        return t
    if op in ("mask", "masked_select"):
        s, m = np.broadcast_arrays(t, parse_tensor(f[1]))
        return s[m]
    if op in ("mask_set", "masked_fill"):
        t[np.broadcast_to(parse_tensor(f[1]), t.shape)] = int(f[2])
        return t
    if op == "nonzero":
        return np.argwhere(t) + 1
    axis = int(f[1]) - 1
    index = parse_tensor(f[2])
    index = zero_based(index, t.shape[axis])
    if op == "index_select":
        return np.take(t, index, axis=axis)
    if op == "gather":
        return np.take_along_axis(leading(t, index.shape, axis), index, axis=axis)
    src = parse_tensor(f[3])
    if op == "scatter":
        np.put_along_axis(leading(t, index.shape, axis), index, leading(src, index.shape, -1),
                          axis=axis)
        return t
    if op == "index_add":
        np.add.at(t, (slice(None),) * axis + (index,), src)
        return t
    raise ValueError("unknown op " + op)


def main():
    cases, results = sys.argv[1], sys.argv[2]
    with open(cases) as f, open(results, "w") as out:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            case_id, op = fields[0], fields[1]
            try:
                r = np.asarray(run(op, fields[2:]))
            except (ValueError, IndexError) as e:
                out.write("%s\terror\t%s\n" % (case_id, str(e).replace("\n", " ")))
                continue
            out.write("%s\t%s\t%s\t%s\n" % (
                case_id, r.dtype.name, ",".join(str(s) for s in r.shape),
                " ".join(format_value(v) for v in r.reshape(-1))))


if __name__ == "__main__":
    main()
