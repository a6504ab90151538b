"""A minimal reproduction, with numba alone, of the fault that poisoned burako's kernel
cache (docs/RELIABILITY.md, "Two processes, one cache").

numba names a compiled function's symbol by its qualified name, a ``v<n>`` tag (n counts
the functions compiled so far *in this process*) and its argument types, and it names a
record type by a number *this process* gave it. Two processes that each compile the same
function for a different record type therefore give it the same symbol name. Each saves
its own cache entry (the index keys them apart), and a third process that loads both
links the second one's call to the callee under that name to the first one's code: it
reads the record at the other type's offsets.

    python scripts/tools/numba_symbol_clash.py            # plain numba: WRONG, exit 1
    python scripts/tools/numba_symbol_clash.py --burako   # with burako_env.jit: ok, exit 0

Each run uses a fresh temporary cache folder. Nothing here runs concurrently: two cold
processes racing on one cache only make the clash likely, since they compile the same
functions in the same order (same n) and meet the record types in the same order.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

KERNELS = """
import numba

@numba.njit(cache=True)
def weighted(a, i):
    # large enough that LLVM keeps it a function of its own, called by its symbol name
    total = 0
    for k in range(a.shape[0]):
        for j in range(a[k].x.shape[0]):
            total += a[k].x[j] * (j + i) % 7
    return a[0].y + total

@numba.njit(cache=True)
def kernel(a):
    return weighted(a, 0) - weighted(a, 1) + weighted(a, 2) - weighted(a, 3) + weighted(a, 4)
"""

RUN = """
import sys
if {burako}:
    import burako_env.jit  # noqa: F401  (the fix: process-unique symbol names)
import numpy as np
import clash_kernels

for width in map(int, sys.argv[1:]):
    # "x" is `width` bytes, so "y" sits at offset `width`: each width is a record type
    dtype = np.dtype([("x", np.int8, (width,)), ("y", np.int64)])
    a = np.zeros(1, dtype=dtype)
    a[0]["x"] = 1
    a[0]["y"] = width
    got, want = clash_kernels.kernel(a), clash_kernels.kernel.py_func(a)
    print(width, got, want, "ok" if got == want else "WRONG")
"""


def run(folder: Path, burako: bool, *widths: int) -> list[str]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(folder / "cache"))
    env["PYTHONPATH"] = os.pathsep.join([str(folder), *sys.path[1:]])
    out = subprocess.run(
        [sys.executable, "-c", RUN.format(burako=burako), *map(str, widths)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode:
        raise SystemExit(f"the child process failed:\n{out.stderr[-2000:]}")
    return out.stdout.split("\n")[:-1]


def reproduce(burako: bool) -> list[str]:
    """Cold process A compiles for width 8, cold process B for width 16 (each saves an
    entry), process C loads both and calls both: C's lines."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "clash_kernels.py").write_text(textwrap.dedent(KERNELS))
        run(folder, burako, 8)
        run(folder, burako, 16)
        return run(folder, burako, 8, 16)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--burako", action="store_true", help="import burako's numba setup")
    args = parser.parse_args()
    lines = reproduce(args.burako)
    print("\n".join(["width result python verdict", *lines]))
    return 1 if any(line.endswith("WRONG") for line in lines) else 0


if __name__ == "__main__":
    sys.exit(main())
