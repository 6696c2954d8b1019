#!/usr/bin/env python3
"""NumPy as the reference for spec/property_spec.lua.

Usage: numpy_ref.py CASES RESULTS

CASES has one case a line, fields separated by tabs:
    id, dtype, shape ("2,3", "" for 0-d), values (space separated; complex as "re,im"),
    views (";"-separated steps such as "permute 2,1", "slice 1 3 1 -1", "flip 2",
    "select 1 2", "unsqueeze 1", "expand 2,3"; dims and indices 1-based, as in dlx),
    cast dtype, reduction op, reduction dims ("1,3" or "-" for all), keepdim (0 or 1).
RESULTS gets, for each case, three lines "id<TAB>what<TAB>shape<TAB>values" where what is
"view", "cast" or "reduce" (argmin and argmax 1-based, like dlx), or "id<TAB>reduce<TAB>error"
when NumPy refuses the reduction. Values are written like the input; NaN as "nan".

The other numpy_*.py scripts import their shared reader and writer from here: parse_tensor (an
input field "dtype|shape|values") and format_value (a result value).
"""
import sys
import warnings

import numpy as np


def parse_value(text, dtype):
    if dtype.startswith("complex"):
        re, im = text.split(",")
        return complex(float(re), float(im))
    if dtype == "bool":
        return text == "1"
    if dtype.startswith("float"):
        return float(text)
    return int(text)


def parse_tensor(field, via="int64"):
    """An array from "dtype|shape|values" (shape "2,3", "" for 0-d; values space separated,
    bools as 0 and 1): the values read as `via` (int64, or float64 for decimal text), then
    cast to dtype."""
    dtype, shape, values = field.split("|")
    shape = tuple(int(x) for x in shape.split(",")) if shape else ()
    read = int if via == "int64" else float
    data = [read(v) for v in values.split()] if values else []
    return np.array(data, dtype=via).astype(dtype).reshape(shape)


def ints(text):
    return [int(x) for x in text.split(",")] if text else []


def apply_view(a, step):
    name, *args = step.split(" ")
    if name == "permute":
        return a.transpose([d - 1 for d in ints(args[0])])
    if name == "slice":
        dim, first, last, step_ = (int(x) for x in args)
        index = [slice(None)] * a.ndim
        stop = last - 1 + (1 if step_ > 0 else -1)  # inclusive last, 0-based
        index[dim - 1] = slice(first - 1, stop if stop >= 0 else None, step_)
        return a[tuple(index)]
    if name == "flip":
        return np.flip(a, int(args[0]) - 1)
    if name == "select":
        index = [slice(None)] * a.ndim
        index[int(args[0]) - 1] = int(args[1]) - 1
        return a[tuple(index)]
    if name == "unsqueeze":
        return np.expand_dims(a, int(args[0]) - 1)
    if name == "expand":
        return np.broadcast_to(a, tuple(ints(args[0])))
    raise ValueError("unknown view " + step)


def format_value(v):
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (complex, np.complexfloating)):
        return "%r,%r" % (float(v.real), float(v.imag))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return str(int(v))


def line(case_id, what, array):
    array = np.asarray(array)
    shape = ",".join(str(n) for n in array.shape)
    values = " ".join(format_value(v) for v in array.reshape(-1).tolist())
    return "\t".join([case_id, what, shape, values])


def reduce(a, op, dims, keepdim):
    axis = None if dims == "-" else tuple(d - 1 for d in ints(dims))
    if op in ("argmin", "argmax"):
        axis = None if axis is None else axis[0]
        result = getattr(np, op)(a, axis=axis, keepdims=keepdim)
        return np.asarray(result) + 1
    return getattr(np, op)(a, axis=axis, keepdims=keepdim)


def run_case(fields):
    case_id, dtype, shape, values, views, cast, op, dims, keepdim = fields
    flat = [parse_value(v, dtype) for v in values.split(" ") if v != ""]
    a = np.array(flat, dtype=dtype).reshape(tuple(ints(shape)))
    for step in views.split(";"):
        if step:
            a = apply_view(a, step)
    out = [line(case_id, "view", a), line(case_id, "cast", a.astype(cast))]
    try:
        out.append(line(case_id, "reduce", reduce(a, op, dims, keepdim == "1")))
    except (ValueError, TypeError):
        out.append("\t".join([case_id, "reduce", "error"]))
    return out


def main():
    warnings.simplefilter("ignore")  # ComplexWarning, the mean of nothing, casts to inf
    with open(sys.argv[1]) as cases, open(sys.argv[2], "w") as results:
        for text in cases:
            fields = text.rstrip("\n").split("\t")
            results.write("\n".join(run_case(fields)) + "\n")


if __name__ == "__main__":
    main()
