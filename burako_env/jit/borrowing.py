"""Borrowed arrays: a serial kernel's arrays without numba's reference counting.

numba counts every use of an array inside compiled code with an atomic increment and
decrement of its owner's count, which took two thirds of a serial kernel's time over the
rules (the arrays numba hands a ``prange`` body carry no owner, so there it costs
nothing). A kernel that plays whole games first takes the arrays it was given as
:func:`borrowed`; its caller keeps them alive (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import llvmlite.ir
import numba
import numba.extending


def _without_meminfo(context, builder, typ, value):
    if isinstance(typ, numba.types.Array):
        ary = context.make_array(typ)(context, builder, value=value)
        ary.meminfo = llvmlite.ir.Constant(ary.meminfo.type, None)
        return ary._getvalue()
    if isinstance(typ, numba.types.BaseTuple):
        for i, item in enumerate(typ):
            field = _without_meminfo(context, builder, item, builder.extract_value(value, i))
            value = builder.insert_value(value, field, i)
    return value


if numba.config.DISABLE_JIT:

    def borrowed(value):
        """``value`` itself: without the JIT nothing is counted."""
        return value

else:

    @numba.extending.intrinsic
    def borrowed(typingctx, value):
        """``value`` (an array, or a tuple of arrays such as the game state) with no
        reference count: numba counts every use of an array inside compiled code with an
        atomic increment and decrement of its owner's count, which took two thirds of a
        serial kernel's time over the rules (the arrays numba hands a ``prange`` body
        carry no count, so its games ran twice as fast). A kernel borrows the arrays its
        caller passed, which outlive the call, and never one it allocates itself (numba
        frees that after its last counted use)."""

        def codegen(context, builder, signature, args):
            return _without_meminfo(context, builder, signature.args[0], args[0])

        return value(value), codegen


__all__ = ["borrowed"]
