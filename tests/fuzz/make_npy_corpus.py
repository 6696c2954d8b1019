"""Writes the seed corpus of the .npy fuzzer (tests/fuzz/npy_corpus): small files NumPy writes
(every dtype dlx reads, both byte orders, Fortran order, 0-d and empty arrays, versions 1.0, 2.0
and 3.0) and broken ones (each kind of damage the parser must refuse). Run from the repository
root with a python3 that has NumPy:  python3 tests/fuzz/make_npy_corpus.py"""

import io
import os

import numpy as np
from numpy.lib import format as npy_format

OUT = os.path.join(os.path.dirname(__file__), "npy_corpus")
DTYPES = ["?", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16"]


def npy_bytes(a, version=None, fortran=False):
    buf = io.BytesIO()
    if fortran:
        a = np.asfortranarray(a)
    npy_format.write_array(buf, a, version=version)
    return buf.getvalue()


def header(dict_text, version=1):
    fixed = 10 if version == 1 else 12
    hlen = len(dict_text) + 1
    pad = 64 - (fixed + hlen) % 64
    size = (hlen + pad).to_bytes(2 if version == 1 else 4, "little")
    return b"\x93NUMPY" + bytes([version, 0]) + size + dict_text.encode() + b" " * pad + b"\n"


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {}
    for code in DTYPES:
        for order in "<>":
            dt = np.dtype(code).newbyteorder(order) if np.dtype(code).itemsize > 1 else code
            a = np.arange(6).astype(dt).reshape(2, 3)
            seeds["valid-%s%s" % ("le" if order == "<" else "be", code)] = npy_bytes(a)
    seeds["valid-fortran"] = npy_bytes(np.arange(6, dtype="<f4").reshape(2, 3), fortran=True)
    seeds["valid-0d"] = npy_bytes(np.array(3.5))
    seeds["valid-empty"] = npy_bytes(np.zeros((0, 3), "<i4"))
    seeds["valid-v2"] = npy_bytes(np.arange(4, dtype="<i2"), version=(2, 0))
    seeds["valid-v3"] = npy_bytes(np.arange(4, dtype="<u4"), version=(3, 0))
    good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
    seeds["broken-magic"] = b"\x93NUMPZ" + header(good)[6:] + b"\0" * 8
    seeds["broken-version"] = header(good)[:6] + b"\x04\x00" + header(good)[8:] + b"\0" * 8
    seeds["broken-header-length"] = header(good)[:8] + b"\xff\xff" + header(good)[10:]
    seeds["broken-truncated-data"] = header(good) + b"\0" * 7
    seeds["broken-negative-dim"] = header(good.replace("(2,)", "(-2,)")) + b"\0" * 8
    seeds["broken-overflow"] = header(good.replace("(2,)", "(4294967296, 4294967296)"))
    seeds["broken-object"] = header(good.replace("<f4", "|O")) + b"\0" * 8
    seeds["broken-descr"] = header(good.replace("<f4", "<f16")) + b"\0" * 32
    seeds["broken-structured"] = header(good.replace("'<f4'", "[('a', '<f4')]")) + b"\0" * 8
    seeds["broken-not-a-dict"] = header("print('hello')") + b"\0" * 8
    seeds["broken-no-comma-tuple"] = header(good.replace("(2,)", "(2)")) + b"\0" * 8
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
