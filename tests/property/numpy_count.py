"""NumPy's answers for spec/property_count_spec.lua (NumPy 2's rules).

Reads cases, one a line, tab-separated: id, op, dtype, bins, lo, hi (or "none"), density (0 or
1), right (0 or 1), minlength, the values, and two more lists (weights, edges or the sorted
sequence; "-" for none), numbers written as Python floats read them (nan as nan). Writes id, then
the first result's values and the second's (edges; "-" for none), tab-separated, as repr of
float64. NumPy 2 computes the equal edges of float32 data whose range it finds in float32 (NEP 50);
NumPy 1 in float64: under NumPy 1 this script makes NumPy 2's edges (linspace's i * step + first
in float32) and lets np.histogram count with them. histc is PyTorch's formula computed in the data's dtype with NumPy's arithmetic:
(x - lo) * bins / (hi - lo), truncated, the last bin closed; searchsorted is 1-based.
"""
import sys
import warnings

import numpy as np

NUMPY1 = int(np.__version__.split(".")[0]) < 2


def floats(text, dtype):
    if text == "-":
        return None
    return np.array([float(v) for v in text.split()], dtype=dtype)


def histc(a, bins, lo, hi):
    if lo == hi and a.size > 0:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    t = a.dtype.type
    flo, fhi = t(lo), t(hi)
    keep = (a >= flo) & (a <= fhi)
    x = a[keep]
    f = (x - flo) * t(bins) / (fhi - flo)
    idx = np.minimum(f.astype(np.int64), bins - 1)
    return np.bincount(idx, minlength=bins).astype(a.dtype), None


def numpy2_edges(a, bins):
    """NumPy 2's equal edges over the range of float32 data (np.linspace in float32)."""
    first, last = (a.min(), a.max()) if a.size > 0 else (np.float32(0), np.float32(1))
    if first == last:
        first, last = first - np.float32(0.5), last + np.float32(0.5)
    step = np.float32(last - first) / np.float32(bins)
    edges = np.arange(bins + 1, dtype=np.float32) * step + first
    edges[-1] = last
    return edges


def run(op, dtype, bins, lo, hi, density, right, minlength, a, b, c):
    if op == "histc":
        return histc(a, bins, lo, hi)
    if op == "histogram":
        rng = None if lo is None else (lo, hi)
        if (NUMPY1 and c is None and rng is None and a.dtype == np.float32 and a.size > 0
                and np.isfinite(a).all()):
            c = numpy2_edges(a, bins)
        return np.histogram(a, bins=bins if c is None else c, range=rng, weights=b,
                            density=density or None)
    if op == "bincount":
        return np.bincount(a, weights=b, minlength=minlength), None
    if op == "searchsorted":
        side = "right" if right else "left"
        if b.ndim == 1:
            return np.searchsorted(b, a, side=side) + 1, None
        raise ValueError("rows")
    raise ValueError(op)


def text(r):
    if r is None:
        return "-"
    return " ".join(repr(float(x)) for x in np.asarray(r).ravel())


def main():
    warnings.simplefilter("ignore")  # density of empty and zero-width bins
    with open(sys.argv[1]) as cases, open(sys.argv[2], "w") as out:
        for line in cases:
            (cid, op, dtype, bins, lo, hi, density, right, minlength, a, b,
             c) = line.rstrip("\n").split("\t")
            dt = np.dtype(dtype)
            a = floats(a, dt)
            b = floats(b, np.float64 if op != "searchsorted" else dt)
            c = floats(c, np.float64 if op != "histogram" or dt.kind != "f" else dt)
            lo = None if lo == "none" else float(lo)
            hi = None if hi == "none" else float(hi)
            r1, r2 = run(op, dt, int(bins), lo, hi, density == "1", right == "1",
                         int(minlength), a, b, c)
            out.write("%s\t%s\t%s\n" % (cid, text(r1), text(r2)))


if __name__ == "__main__":
    main()
