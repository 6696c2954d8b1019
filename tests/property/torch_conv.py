"""PyTorch's answers for spec/property_conv_spec.lua.

Reads cases, one a line, tab-separated: id, the spatial dim count (1 to 3), the input's shape
(batched or not), the weight's shape, stride, padding ("same", "valid" or sizes), dilation (each
a comma-separated list), groups, then the float64 values of input, weight and bias (the bias
empty for none), each space-separated. Writes id, the shape and the values (repr of float64) of
torch.nn.functional.conv1d, conv2d or conv3d, tab-separated.
"""
import sys
import warnings

import torch
import torch.nn.functional as F

FUNCTIONS = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def ints(text):
    return [int(s) for s in text.split(",") if s]


def values(text, shape):
    return torch.tensor([float(v) for v in text.split()], dtype=torch.float64).reshape(shape)


def main():
    warnings.simplefilter("ignore")  # PyTorch's note that "same" with even kernels pads a copy
    with open(sys.argv[1]) as cases, open(sys.argv[2], "w") as out:
        for line in cases:
            (cid, n, xs, ws, stride, padding, dilation, groups, x, w,
             b) = line.rstrip("\n").split("\t")
            xs, ws = ints(xs), ints(ws)
            bias = values(b, (ws[0],)) if b else None
            pad = padding if padding in ("same", "valid") else ints(padding)
            r = FUNCTIONS[int(n)](values(x, xs), values(w, ws), bias, stride=ints(stride),
                                  padding=pad, dilation=ints(dilation), groups=int(groups))
            out.write("%s\t%s\t%s\n" % (cid, ",".join(str(s) for s in r.shape),
                                        " ".join(repr(float(v)) for v in r.flatten().tolist())))


if __name__ == "__main__":
    main()
