"""harness -- what the peer benchmarks (cat.py, index.py, rand.py, sort.py) share.

Each script runs dlx in a Lua state inside this process (examples/python/dlx_host.py,
DLX_LIBRARY naming libdlx.so), so one wall clock (time.perf_counter) times every case. `measure`
runs the cases in rounds that interleave them (a change in the machine's load hits them all) and
`print_table` shows each case's median over the rounds and its ratio to the first case, the
reference (reference time / case time: higher is faster). `print_machine` prints the machine,
its load average and the thread counts, so that every table says what it ran on.
`size_options` reads the command line of the benches over one size (order_stats.py, runs.py,
sort.py).
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "python"))

import numpy as np  # noqa: E402

import dlx_host  # noqa: E402

try:
    import torch  # noqa: E402
except ImportError:  # cat.py runs without PyTorch
    torch = None


def size_options(doc, rounds):
    """The options of a bench over one size, --mi (elements, in Mi; 16) and --rounds (default
    `rounds`), parsed; returns (args, the element count). doc: the bench's docstring."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--mi", type=int, default=16, help="elements, in Mi")
    parser.add_argument("--rounds", type=int, default=rounds)
    args = parser.parse_args()
    return args, args.mi << 20


def lua_state(seed=None):
    """A Lua state with `dlx` loaded as a global (and dlx.manual_seed(seed) when given)."""
    lua = dlx_host.LuaState()
    lua.load_string('dlx = require "dlx"')
    if seed is not None:
        lua.eval("dlx.manual_seed(...)", seed)
    return lua


def print_machine(lua, what):
    """One line: machine, cores, load average, thread counts, versions, then `what` (the size)."""
    print("machine: %s, %d cores; load average %.2f; threads: dlx %s, torch %s; NumPy %s, "
          "PyTorch %s; %s"
          % (os.uname().machine, os.cpu_count(), os.getloadavg()[0],
             lua.eval("return dlx.get_num_threads()"),
             torch.get_num_threads() if torch else "-", np.__version__,
             torch.__version__ if torch else "-", what))


def measure(cases, rounds, after=None, rotate=False):
    """Times each (name, fn) of cases once per round, interleaved; returns the medians.

    after(), when given, runs untimed after each call (a garbage collection, say), and the
    call's result is dropped before it. rotate: round r starts at case r (mod the count), so
    that no case always runs right after the same one (threads that a library leaves spinning
    after its call, PyTorch's OpenMP workers, then slow each case in turn, not always the
    next one)."""
    times = [[] for _ in cases]
    for r in range(rounds):
        order = list(range(len(cases)))
        if rotate:
            order = order[r % len(cases):] + order[:r % len(cases)]
        for i in order:
            fn = cases[i][1]
            t0 = time.perf_counter()
            result = fn()
            times[i].append(time.perf_counter() - t0)
            del result
            if after is not None:
                after()
    return [statistics.median(t) for t in times]


def print_table(cases, medians, ratio_title, columns=(), digits=1, references=None):
    """A Markdown table: case, median, each extra column (title, fn(median) -> text), and
    ratio_title = the reference's median / this case's. The reference is the first case, or
    case references[i] for case i when references is given."""
    titles = ["case", "median"] + [title for title, _ in columns] + [ratio_title]
    print("| " + " | ".join(titles) + " |")
    print("|" + "---|" * len(titles))
    for i, ((name, _), m) in enumerate(zip(cases, medians)):
        reference = medians[references[i] if references else 0]
        cells = [name, "%.*f ms" % (digits, m * 1e3)] + [fn(m) for _, fn in columns]
        cells.append("%.2f" % (reference / m))
        print("| " + " | ".join(cells) + " |")
