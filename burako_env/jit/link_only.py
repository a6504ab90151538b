"""Link-only functions (:func:`njit`) against kernels (:data:`njit_kernel`, :data:`njit_parallel`).

numba compiles each function into a library of its own, links into it the libraries of
everything it calls, optimises the whole module, emits machine code for it and adds a
Python entry point; so each rule function paid again for all the rules beneath it, and
that machine code served nobody (a caller links IR, not code). The functions that only
compiled code calls (``@njit``: the rules, the melds, the policies) are link-only: lowered
and optimised function by function, with no entry point and no machine code; a kernel
(``@njit_kernel``, ``@njit_parallel``: what Python calls) links every link-only library
beneath it and optimises and emits the whole once. A link-only function's cache entry
holds its call tree as IR, so a kernel compiled later over a warm cache links the same
code. Calling one from Python raises :class:`InternalDispatcher`'s TypeError.

This patches six numba methods (four of its code-library class, the CPU context's
``get_executable`` and the JIT codegen's ``set_env``), checked present at import
(:data:`LINK_ONLY`); with a numba that lacks them the functions are plain. Every function
of either kind is cached (``cache=True``), ``nogil``, and compiled once per signature.

Applied on import (by :mod:`burako_env.jit`).
"""

from __future__ import annotations

import llvmlite.binding
import numba
from numba import _dynfunc as _numba_dynfunc
from numba.core import codegen as _numba_codegen
from numba.core import cpu as _numba_cpu
from numba.core.registry import CPUDispatcher

#: a kernel: a compiled function that Python calls (no C-callable ``cfunc`` wrapper: none
#: of ours is passed as a function pointer)
njit_kernel = numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True)
njit_parallel = numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True, parallel=True)
prange = numba.prange


class InternalDispatcher(CPUDispatcher):
    """A function compiled only to be called by other compiled functions: it has no
    Python entry point, so calling it from Python raises this TypeError (without one,
    numba would jump to a null address)."""

    def __call__(self, *args, **kwargs):
        """Refuse: a link-only function has no Python entry point."""
        func = self.py_func
        raise TypeError(
            f"{func.__module__}.{func.__qualname__} is compiled for calls from numba "
            "kernels only (burako_env/jit/link_only.py: it has no Python entry point, which "
            "keeps the cold compile short); call it from a kernel, or run with "
            "NUMBA_DISABLE_JIT=1 to call it as Python"
        )


#: (module, qualified name) of every internal function: their libraries are link-only
_INTERNAL_FUNCTIONS: set[tuple[str, str]] = set()


def _link_only_supported() -> bool:
    """Whether this numba has the internals that the link-only libraries patch (numba
    0.68.1 has them, and a test says so); without them internal functions are plain."""
    library = getattr(_numba_codegen, "CPUCodeLibrary", None)
    names = ("finalize", "add_linking_library", "_get_module_for_linking")
    names += ("serialize_using_object_code", "_unserialize", "_raise_if_finalized")
    return (
        library is not None
        and all(hasattr(library, name) for name in names)
        and hasattr(getattr(_numba_codegen, "JITCPUCodegen", None), "set_env")
        and hasattr(_numba_cpu.CPUContext, "get_executable")
        and hasattr(_numba_dynfunc, "make_function")
    )


def _is_link_only(library) -> bool:
    return getattr(library, "_burako_link_only", False)


def _get_executable(self, library, fndesc, env):
    # called once a function is lowered, before its library is finalized: the moment to
    # mark an internal function's library link-only; no machine code, so no address
    if (fndesc.modname, fndesc.qualname) in _INTERNAL_FUNCTIONS and not library._finalized:
        library._burako_link_only = True
    if _is_link_only(library):
        name = fndesc.qualname.split(".")[-1]
        return _numba_dynfunc.make_function(
            fndesc.lookup_module(), name, "internal", 0, env, (library,)
        )
    return _original["get_executable"](self, library, fndesc, env)


def _finalize(self):
    if _is_link_only(self):
        # neither linked, optimised as a module nor emitted: the kernels that call it
        # link its code and everything it links (below) and optimise it all once
        self._raise_if_finalized()
        self._finalized = True
        return
    _original["finalize"](self)


def _add_linking_library(self, library):
    if library in self._linking_libraries:
        return
    _original["add_linking_library"](self, library)
    if _is_link_only(library):
        for inner in library._linking_libraries:
            _add_linking_library(self, inner)


def _serialize_using_object_code(self):
    if not _is_link_only(self):
        return _original["serialize_using_object_code"](self)
    # a cache entry holds the function's whole call tree as IR, so that a kernel compiled
    # later links it without the callees' libraries
    module = self._get_module_for_linking().clone()
    for inner in self._linking_libraries:
        module.link_in(inner._get_module_for_linking(), preserve=True)
    return (self.name, LINK_ONLY_KIND, module.as_bitcode())


def _unserialize(cls, codegen, state):
    name, kind, data = state
    if kind != LINK_ONLY_KIND:
        return _original["_unserialize"](cls, codegen, state)
    library = codegen.create_library(name)
    library._burako_link_only = True
    library._final_module = library._shared_module = llvmlite.binding.parse_bitcode(data)
    library._finalized = True
    return library


def _set_env(self, env_name, env):
    # numba fills a cached function's environment pointer (its global variable) when it
    # loads the entry; a link-only library is in no engine, so the global has no address
    # there (writing through 0 crashed): the kernels that link it hold their own copy
    if self._engine.get_global_value_address(env_name):
        _original["set_env"](self, env_name, env)


LINK_ONLY_KIND = "burako-link-only"
_original: dict = {}
LINK_ONLY = not numba.config.DISABLE_JIT and _link_only_supported()
if LINK_ONLY:
    _library_class = _numba_codegen.CPUCodeLibrary
    _original.update(
        get_executable=_numba_cpu.CPUContext.get_executable,
        finalize=_library_class.finalize,
        add_linking_library=_library_class.add_linking_library,
        serialize_using_object_code=_library_class.serialize_using_object_code,
        _unserialize=_library_class._unserialize.__func__,
        set_env=_numba_codegen.JITCPUCodegen.set_env,
    )
    _numba_codegen.JITCPUCodegen.set_env = _set_env
    _numba_cpu.CPUContext.get_executable = _get_executable
    _library_class.finalize = _finalize
    _library_class.add_linking_library = _add_linking_library
    _library_class.serialize_using_object_code = _serialize_using_object_code
    _library_class._unserialize = classmethod(_unserialize)

_njit_internal = numba.njit(
    cache=True, nogil=True, no_cfunc_wrapper=True, no_cpython_wrapper=LINK_ONLY
)


def njit(func):
    """numba's ``njit`` (cached, ``nogil``) for a function that only compiled code calls.

    numba compiles every function into a library of its own, links into it the
    libraries of everything it calls, optimises the whole and emits machine code for
    it, and adds a Python entry point: each function of the rules paid again for all
    the rules beneath it, and its machine code served nobody (a caller links the IR,
    not the code). So an internal function's library is link-only (``LINK_ONLY``):
    lowered and optimised per function, never linked, optimised as a module or
    emitted; the kernel (:data:`njit_kernel`) that reaches it links every link-only
    library beneath it and optimises and emits all of it once. Its cache entry holds its
    call tree as IR. Calling it from Python raises :class:`InternalDispatcher`'s
    TypeError. Where numba lacks the internals this patches, it is a plain function."""
    dispatcher = _njit_internal(func)
    if LINK_ONLY and isinstance(dispatcher, CPUDispatcher):
        dispatcher.__class__ = InternalDispatcher
        _INTERNAL_FUNCTIONS.add((func.__module__, func.__qualname__))
    return dispatcher


__all__ = [
    "LINK_ONLY",
    "InternalDispatcher",
    "njit",
    "njit_kernel",
    "njit_parallel",
    "prange",
]
