"""Moved to :mod:`burako_env.frontends.bench`: the benchmarks (``burako bench``,
``scripts/bench_*.py``). Front ends sit in a layer of their own, :mod:`burako_env.frontends`, on
top of the library (docs/ARCHITECTURE.md). This module re-exports the public names so that
``from burako_env.bench import ...`` keeps working; new code imports
:mod:`burako_env.frontends.bench`.
"""

from burako_env.frontends.bench import *  # noqa: F403
from burako_env.frontends.bench import (
    COMPILE_JOBS,
    bench_aec,
    bench_core,
    bench_vector,
    cold_compile,
    compile_seconds,
    core_table,
    format_compile_rows,
    format_env_rows,
    format_rows,
    machine,
    pick_from_mask,
)

__all__ = [
    "COMPILE_JOBS",
    "bench_aec",
    "bench_core",
    "bench_vector",
    "cold_compile",
    "compile_seconds",
    "core_table",
    "format_compile_rows",
    "format_env_rows",
    "format_rows",
    "machine",
    "pick_from_mask",
]
