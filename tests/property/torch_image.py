"""PyTorch's answers for spec/property_image_spec.lua.

Reads cases, one a line: id, op (max_pool2d, avg_pool2d, interpolate), dtype (float32 or
float64), the op's arguments as Python literals (kernel_size and a dict of keyword arguments;
for interpolate the dict alone), the shape and the float64 values (nan, inf and -inf as such),
tab-separated. Writes id, then the result's shape and values (repr of float64), and for
max_pool2d with return_indices the indices made 1-based as dlx gives them, tab-separated; or
id, "skip" and the reason, for a case this PyTorch answers against its own rules: before 2.0,
"nearest" with a scale_factor took floor(i / scale) even where the output is as large as the
input or twice as large, when C > 1 (C = 1 took i and i / 2 there, as PyTorch 2 always does).
"""
import ast
import sys

import torch
import torch.nn.functional as F


def run(op, args, a):
    if op == "interpolate":
        return F.interpolate(a, **args), None
    kernel_size, kwargs = args
    if op == "max_pool2d":
        r = F.max_pool2d(a, kernel_size, **kwargs)
        if kwargs.get("return_indices"):
            return r[0], r[1] + 1
        return r, None
    return F.avg_pool2d(a, kernel_size, **kwargs), None


def old_nearest_bug(op, args, shape):
    if op != "interpolate" or args.get("mode", "nearest") != "nearest":
        return False
    if "scale_factor" not in args or int(torch.__version__.split(".")[0]) >= 2:
        return False
    sf = args["scale_factor"]
    sf = sf if isinstance(sf, list) else [sf, sf]
    return shape[1] > 1 and any(int(n * s) in (n, 2 * n) for n, s in zip(shape[2:], sf))


def text(t):
    return " ".join(repr(float(x)) for x in t.reshape(-1).tolist())


def main():
    torch.set_num_threads(1)
    with open(sys.argv[1]) as cases, open(sys.argv[2], "w") as out:
        for line in cases:
            cid, op, dtype, args, shape, values = line.rstrip("\n").split("\t")
            shape = tuple(int(s) for s in shape.split(",") if s)
            a = torch.tensor([float(v) for v in values.split()], dtype=torch.float64)
            a = a.reshape(shape).to(getattr(torch, dtype))
            args = ast.literal_eval(args)
            if old_nearest_bug(op, args, shape):
                out.write("%s\tskip\tPyTorch %s's nearest with C > 1\n" % (cid, torch.__version__))
                continue
            r, idx = run(op, args, a)
            fields = [cid, ",".join(str(s) for s in r.shape), text(r.to(torch.float64))]
            if idx is not None:
                fields.append(" ".join(str(int(i)) for i in idx.reshape(-1).tolist()))
            out.write("\t".join(fields) + "\n")


if __name__ == "__main__":
    main()
