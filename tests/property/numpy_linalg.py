#!/usr/bin/env python3
"""NumPy as the reference for spec/property_linalg_spec.lua.

Usage: numpy_linalg.py CASES RESULTS

CASES has one case a line, fields separated by tabs: id, op ("matmul" or an einsum subscript
string prefixed by "einsum:"), then one field per operand: "dtype|shape|values" (shape "2,3",
values space separated small integers, bools as 0 and 1). bfloat16 operands are computed as
float32 (the values are small integers: every product and sum is exact in both).
RESULTS gets one line a case: "id<TAB>shape<TAB>values" (values as float64 text, real parts
then imaginary parts for complex results), or "id<TAB>error" when NumPy refuses the case.
"""
import sys

import numpy as np

from numpy_ref import parse_tensor


def parse(field):
    """parse_tensor's field; bfloat16, which NumPy lacks, as float32."""
    dtype, rest = field.split("|", 1)
    return parse_tensor(("float32" if dtype == "bfloat16" else dtype) + "|" + rest)


def main():
    with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            case_id, op = fields[0], fields[1]
            arrays = [parse(x) for x in fields[2:]]
            try:
                if op == "matmul":
                    r = np.matmul(arrays[0], arrays[1])
                else:
                    r = np.einsum(op[len("einsum:"):], *arrays)
            except ValueError:
                out.write("%s\terror\n" % case_id)
                continue
            r = np.asarray(r)
            flat = r.reshape(-1)
            if np.iscomplexobj(flat):
                flat = np.concatenate([flat.real, flat.imag])
            out.write("%s\t%s\t%s\n" % (case_id, ",".join(str(s) for s in r.shape),
                                        " ".join(repr(float(v)) for v in flat)))


if __name__ == "__main__":
    main()
