#!/usr/bin/env python3
"""NumPy as the reference for spec/property_linalg_decomp_spec.lua (dlx.linalg's decompositions).

Usage: numpy_linalg_decomp.py CASES RESULTS

CASES has one case a line, fields separated by tabs: id, op, dtype, arg (an ord, or "-"), then
the operands, each "shape|real parts|imaginary parts" (shape "2,3,3", values space separated in
row-major order, %.17g; the imaginary parts empty for real dtypes). RESULTS gets one line a case:
"id<TAB>ok<TAB>out1<TAB>out2..." with each output "shape|real parts|imaginary parts", or
"id<TAB>LinAlgError" when NumPy raises numpy.linalg.LinAlgError. Batched ops NumPy does not
batch (lstsq) are looped over the batch here.
"""
import sys

import numpy as np


def parse(field, dtype):
    shape, re, im = field.split("|")
    shape = tuple(int(x) for x in shape.split(",")) if shape else ()
    values = np.array([float(v) for v in re.split()], dtype=np.float64)
    if im:
        values = values + 1j * np.array([float(v) for v in im.split()], dtype=np.float64)
    return values.astype(dtype).reshape(shape)


def text(a):
    a = np.asarray(a)
    flat = a.reshape(-1)
    re = " ".join(repr(float(v)) for v in flat.real)
    im = " ".join(repr(float(v)) for v in flat.imag) if np.iscomplexobj(a) else ""
    return "%s|%s|%s" % (",".join(str(s) for s in a.shape), re, im)


def lstsq(a, b):
    """torch.linalg.lstsq's results for a batch, each matrix through np.linalg.lstsq."""
    vector = b.ndim == 1
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-1 if vector else -2])
    m, n = a.shape[-2:]
    a = np.broadcast_to(a, batch + (m, n))
    b = np.broadcast_to(b, batch + b.shape[-1 if vector else -2:])
    xs, ranks, ss = [], [], []
    for idx in np.ndindex(*batch):
        x, _, rank, s = np.linalg.lstsq(a[idx], b[idx], rcond=None)
        xs.append(x)
        ranks.append(rank)
        ss.append(s)
    k = () if vector else (b.shape[-1],)
    x = np.array(xs).reshape(batch + (n,) + k)
    return x, np.array(ranks, dtype=np.int64).reshape(batch), np.array(ss).reshape(
        batch + (min(m, n),))


def run(op, arg, ops):
    a = ops[0]
    la = np.linalg
    if op == "solve":
        return [la.solve(a, ops[1])]
    if op == "inv":
        return [la.inv(a)]
    if op == "det":
        return [la.det(a)]
    if op == "slogdet":
        sign, logabs = la.slogdet(a)
        return [sign, logabs]
    if op == "cholesky":
        return [la.cholesky(a)]
    if op == "qr_r":
        return [np.abs(la.qr(a, mode="r"))]
    if op == "svdvals":
        return [la.svd(a, compute_uv=False)]
    if op == "eigvalsh":
        return [la.eigvalsh(a)]
    if op == "lstsq":
        return list(lstsq(a, ops[1]))
    if op == "pinv":
        # the array API's default tolerance, eps * max(m, n), as dlx (NumPy's own is 1e-15)
        return [la.pinv(a, rcond=max(a.shape[-2:]) * np.finfo(a.dtype).eps)]
    if op == "matrix_rank":
        return [la.matrix_rank(a)]
    if op == "matrix_norm":
        return [la.norm(a, ord=float(arg) if arg not in ("fro", "nuc") else arg, axis=(-2, -1))]
    if op == "cond":
        return [la.cond(a, p=None if arg == "-" else float(arg) if arg != "fro" else arg)]
    raise ValueError("unknown op " + op)


def main():
    cases, results = sys.argv[1], sys.argv[2]
    with open(cases) as f, open(results, "w") as out:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            case_id, op, dtype, arg = fields[:4]
            ops = [parse(x, dtype) for x in fields[4:]]
            try:
                outs = run(op, arg, ops)
            except np.linalg.LinAlgError:
                out.write("%s\tLinAlgError\n" % case_id)
                continue
            out.write("%s\tok\t%s\n" % (case_id, "\t".join(text(o) for o in outs)))


if __name__ == "__main__":
    main()
