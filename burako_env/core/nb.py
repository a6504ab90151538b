"""The one place that configures numba for the core.

``njit`` is numba's with ``cache=True`` (compiled kernels are kept on disk between runs)
and ``nogil``; ``NUMBA_DISABLE_JIT=1`` turns every kernel into plain Python for debugging.

numba's on-disk cache checks only the source file of the cached function, not the
functions it calls in other modules: a kernel in ``kernels.py`` would keep running an old
``rules.py``. So, unless ``NUMBA_CACHE_DIR`` is set, the cache lives in a folder named by
a hash of every core source file: any edit of the core starts a fresh cache. The kernels
of ``agents/`` call the core and each other across files: their entries are stamped with
a hash of the core's and the agents' sources (``burako_env.agents.kernel_cache``' locator). The
other kernels outside the core (``checks``, ``envs.aec``, ``training``) call only the
core and their own file, which the folder name and numba's own stamp cover.

Two processes compiling into one folder at once (pytest-xdist, a tournament beside a
training run, Ray workers, a job array on a shared home). numba names every compiled
function's symbol by its qualified name, a ``v<n>`` tag where n counts the functions this
process compiled, and its argument types, and a record type by a number this process gave
it when it first saw the type. Two processes that compile the same kernel for two player
counts (two record types) in the same order give both the same symbol name; each saves
its own cache entry, and a process that later loads both links every call to that name to
whichever it loaded first: the 6-player game runs the 4-player machine code (wrong games,
crashes), and the folder stays poisoned. :func:`_unique_symbols` numbers each process's
functions from a random 56-bit start, so two processes never name two functions alike;
``scripts/numba_symbol_clash.py`` reproduces the fault with numba alone, and
docs/RELIABILITY.md tells the story. A folder written before the fix is never reused: its
name carries :data:`CACHE_FORMAT`. numba writes each file under a temporary name and
renames it into place, so no file is half written, but a function's index (which entry
file holds which signature) is read, extended and written back without a lock:
``_lock_cache_index`` serialises that with an ``flock`` on a file in the cache folder
(shared while loading), where the platform has ``fcntl``, and an entry that cannot be
read (a damaged file) is compiled again, not run.

Two decorators. :func:`njit` is for functions that only compiled code calls (the rules,
the policies): their libraries are link-only, with no machine code and no Python entry
point of their own, and the kernel that calls them optimises and emits them once (see
its docstring; this patches numba's code-library class where numba has the internals
it relies on, ``LINK_ONLY``). :data:`njit_kernel` and :data:`njit_parallel` are for the
kernels that Python calls. A function of either kind is compiled once per signature.

Kernels that play whole games are serial functions of a slice of the batch, which
:func:`run_sliced` runs on Python threads, and they first take the arrays they were
given as :func:`borrowed` (no reference counting): a ``prange`` kernel compiles the rules
twice, and without borrowing a serial one ran at half speed (docs/BENCHMARKS.md).

Compile notices and compile time. numba fires a ``numba:compile`` event around every
compile (a cache hit fires none), inside its global compiler lock. A listener here says
the compile notice (``compiling the game's kernels for this machine ...``) the first
time a function of burako's starts to compile, once per process, as a WARNING of the
``burako_env`` logger (the front ends say it on stderr before a command starts, when
:func:`cold_kernels` finds a kernel it calls cold: burako_env/frontends/warmup.py), and
adds up the seconds spent compiling (:func:`seconds_compiling`,
:func:`timed_without_compile`), which the rates the commands print leave out.

Fork safety. numba's default threading layer on Linux is GNU OpenMP when TBB cannot be
loaded, and a process forked after OpenMP's threads started aborts on its first parallel
kernel ("fork() called from a process already using GNU OpenMP"): Gymnasium's
``AsyncVectorEnv`` (fork by default on Linux) and any ``multiprocessing`` fork after an
env ran. TBB is fork-safe and thread-safe (the ``workqueue`` layer is fork-safe but
aborts when two Python threads run kernels at once, and measured 2x slower on 2 threads),
so burako depends on the ``tbb`` wheel and loads its library here, before numba looks for
it: pip installs it in ``<prefix>/lib``, where the dynamic loader of a virtualenv does not
search. ``NUMBA_THREADING_LAYER`` set by the user is left alone. Without TBB the layer is
OpenMP and a fork after it started warns, naming the ways out.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import hashlib
import itertools
import logging
import os
import sys
import threading
import time
import warnings
from pathlib import Path

import llvmlite.binding
import llvmlite.ir
import numba
import numba.extending
from numba import _dynfunc as _numba_dynfunc
from numba.core import codegen as _numba_codegen
from numba.core import cpu as _numba_cpu
from numba.core.registry import CPUDispatcher

_CORE_DIR = Path(__file__).resolve().parent


def _source_hash() -> str:
    digest = hashlib.sha1()
    for path in sorted(_CORE_DIR.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


# numba's OpenMP threads spin while they wait; on a busy 2-core machine that starves the
# other thread (measured: 300k steps/s on 1 thread fell to 21-55k on 2). Passive waiting
# keeps 2 threads ahead. Must be set before the first parallel kernel starts OpenMP.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

TBB_LIBRARY = "libtbb.so.12"


def _load_tbb() -> bool:
    """Load pip's libtbb (Linux) so that numba's TBB threading layer can start."""
    if not sys.platform.startswith("linux"):
        return False  # elsewhere numba finds TBB itself, and OpenMP is fork-safe
    for prefix in dict.fromkeys((sys.prefix, sys.base_prefix, sys.exec_prefix)):
        path = Path(prefix) / "lib" / TBB_LIBRARY
        if path.is_file():
            try:
                ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
            except OSError:
                continue
            return True
    try:  # a system TBB, on the loader's own path
        ctypes.CDLL(TBB_LIBRARY, mode=ctypes.RTLD_GLOBAL)
    except OSError:
        return False
    return True


def _warn_fork_after_openmp() -> None:
    try:
        layer = numba.threading_layer()
    except ValueError:  # no parallel kernel ran yet: the child starts its own layer
        return
    if layer == "omp" and sys.platform.startswith("linux"):
        warnings.warn(
            "fork() after numba's GNU OpenMP threads started: the child process aborts on "
            "its first parallel kernel. Install tbb (pip install tbb), set "
            "NUMBA_THREADING_LAYER=workqueue, or start processes with 'spawn' or "
            "'forkserver'",
            RuntimeWarning,
            stacklevel=2,
        )


TBB_LOADED = False
if not os.environ.get("NUMBA_THREADING_LAYER"):
    TBB_LOADED = _load_tbb()
    if TBB_LOADED:
        numba.config.THREADING_LAYER = "tbb"
os.register_at_fork(before=_warn_fork_after_openmp)


#: the layout of burako's cache folders; a new number when entries written before would be
#: wrong to load (2: symbols unique across processes, :func:`_unique_symbols`)
CACHE_FORMAT = 2


def _cache_dir() -> str:
    """The package's own __pycache__ where it can be written (a checkout, a virtualenv),
    else the user's cache folder (a read-only system install)."""
    name = f"numba-v{CACHE_FORMAT}-{_source_hash()}"
    own = _CORE_DIR / "__pycache__"
    if os.access(own if own.is_dir() else _CORE_DIR, os.W_OK):
        return str(own / name)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "burako", name)


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = _cache_dir()


def numba_cache_folder() -> str:
    """Where this process reads and writes compiled kernels: burako's folder, or the
    user's ``NUMBA_CACHE_DIR`` (numba then adds a folder per source folder)."""
    return os.path.abspath(numba.config.CACHE_DIR)


def _unique_symbols() -> bool:
    """Number the functions this process compiles from a random 56-bit start.

    numba's counter (``FunctionIdentity._unique_ids``) starts at 1 in every process, and
    the number is part of each symbol's name: entries that two processes compiled for
    different types (record types are named by a per-process number too) could share a
    name, and the JIT links a call to a name to the first definition it loaded. With a
    random start two processes' ranges (a few thousand functions each) overlap with odds
    of about 1e-13. The numbers only name symbols: machine code and games are the same."""
    from numba.core import bytecode

    identity = getattr(bytecode, "FunctionIdentity", None)
    if identity is None or not hasattr(identity, "_unique_ids"):
        return False  # another numba: its naming is its own
    if not getattr(bytecode, "_burako_random_ids", False):  # once, even if reloaded
        _restart_function_ids()
        # a forked child would go on from its parent's number, as a clone of it
        os.register_at_fork(after_in_child=_restart_function_ids)
        bytecode._burako_random_ids = True
    return True


def _restart_function_ids() -> None:
    from numba.core.bytecode import FunctionIdentity

    FunctionIdentity._unique_ids = itertools.count(int.from_bytes(os.urandom(7), "little"))


#: whether symbol names are unique across processes (numba has the counter this patches)
UNIQUE_SYMBOLS = _unique_symbols()

CACHE_LOCK_NAME = "burako-cache.lock"


def _lock_cache_index() -> bool:
    """Wrap numba's cache-entry save (exclusive) and load (shared) in a folder lock."""
    try:
        import fcntl
    except ImportError:  # Windows: numba's renames alone
        return False
    from numba.core.caching import IndexDataCacheFile

    if getattr(IndexDataCacheFile.save, "burako_locked", False):
        return True

    @contextlib.contextmanager
    def locked(cache_path: str, mode: int):
        os.makedirs(cache_path, exist_ok=True)
        with open(os.path.join(cache_path, CACHE_LOCK_NAME), "a+b") as handle:
            fcntl.flock(handle, mode)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    save, load = IndexDataCacheFile.save, IndexDataCacheFile.load

    def locked_save(self, key, data):
        with locked(self._cache_path, fcntl.LOCK_EX):
            return save(self, key, data)

    def locked_load(self, key):
        try:
            with locked(self._cache_path, fcntl.LOCK_SH):
                return _readable(self, key)
        except OSError:  # a read-only cache folder: load as numba would, unlocked
            return _readable(self, key)

    def _readable(self, key):
        # numba catches only OSError here: a damaged entry (truncated by a full disk or
        # a crash of the machine) would raise on every start; compiled again, it is
        # saved over the damaged file
        try:
            return load(self, key)
        except OSError:
            raise
        except Exception as exc:
            warnings.warn(
                f"numba cache entry in {self._cache_path} could not be read ({exc!r}): "
                "compiling it again",
                RuntimeWarning,
                stacklevel=2,
            )
            return None

    locked_save.burako_locked = True
    IndexDataCacheFile.save, IndexDataCacheFile.load = locked_save, locked_load
    return True


CACHE_INDEX_LOCKED = _lock_cache_index()

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
        func = self.py_func
        raise TypeError(
            f"{func.__module__}.{func.__qualname__} is compiled for calls from numba "
            "kernels only (burako_env/core/nb.py: it has no Python entry point, which "
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


#: chunks per thread of :func:`run_sliced`: games differ in length, so a thread that is
#: done takes the next chunk (numba's own scheduler balances a prange the same way)
CHUNKS_PER_THREAD = 8
_pools: dict[int, concurrent.futures.ThreadPoolExecutor] = {}


def _forget_pools() -> None:
    _pools.clear()  # a forked child has none of the parent's threads


os.register_at_fork(after_in_child=_forget_pools)


def run_sliced(kernel, size: int, *args) -> None:
    """Run the serial ``kernel(*args, first, last)`` over ``range(size)`` in slices, on
    ``numba.get_num_threads()`` Python threads (``njit`` releases the GIL).

    Why not ``prange``: numba compiles a ``parallel=True`` kernel's loop body as one more
    function, and every compiled function links in and optimises again the machine code
    of everything it calls, so a parallel kernel over the rules compiles the rule set
    twice (docs/BENCHMARKS.md, "Compile time"). ``numba.set_num_threads`` sets the
    threads here as it does for a ``prange``."""
    threads = min(numba.get_num_threads(), max(1, size))
    if threads <= 1:
        kernel(*args, 0, size)
        return
    pool = _pools.get(threads)
    if pool is None:
        pool = _pools[threads] = concurrent.futures.ThreadPoolExecutor(
            threads, thread_name_prefix="burako-kernel"
        )
    step = -(-size // (threads * CHUNKS_PER_THREAD))
    futures = [pool.submit(kernel, *args, lo, min(lo + step, size)) for lo in range(0, size, step)]
    try:
        for future in futures:
            future.result()
    except BaseException:
        # an error or Ctrl-C: the slices not started yet are dropped (a running one
        # cannot be stopped inside numba, as with a prange)
        for future in futures:
            future.cancel()
        raise


def cold_kernels(*kernels) -> list[str]:
    """The names of ``kernels`` that the next call compiles: neither compiled in this
    process nor found in the on-disk cache for the current sources (none under
    ``NUMBA_DISABLE_JIT``, where nothing compiles). Front ends use it to say that a
    compile is coming instead of sitting silent."""
    cold = []
    for kernel in kernels:
        if not isinstance(kernel, numba.core.registry.CPUDispatcher) or kernel.signatures:
            continue
        cache = getattr(kernel, "_cache", None)
        try:
            cached = bool(cache._cache_file._load_index()) if cache is not None else False
        except Exception:  # numba's cache internals moved: say nothing rather than fail
            cached = True
        if not cached:
            cold.append(kernel.py_func.__qualname__)
    return cold


# ---------------------------------------------------------------- compile notices
#: the logger of burako's notices: the compile notice is its WARNING, printed on stderr
#: by Python's last-resort handler where the program configured no logging
LOGGER = logging.getLogger("burako_env")

#: the measured cold compile of the main job on the 2-core development machine
#: (docs/BENCHMARKS.md, `burako bench --compile`), quoted by the notice
COLD_COMPILE_HINT = "about 30 seconds of CPU"


def compile_notice() -> str:
    """What the compile notice says."""
    return (
        "compiling the game's kernels for this machine (a first run, or the first after an "
        f"edit of the core; {COLD_COMPILE_HINT} on 2 cores, then cached). `burako warmup` "
        "compiles them all ahead."
    )


class _CompileWatch:
    """numba's ``numba:compile`` events: numba fires one around every compile of a
    function (a cache hit fires none), inside its global compiler lock, so compiles never
    overlap and the counts need no lock of their own.

    It keeps the seconds this process spent compiling (:func:`seconds_compiling`: the rates
    the front ends print leave them out) and, the first time a function of burako's
    starts to compile, says so once per process (:func:`say_compile_notice`)."""

    def __init__(self) -> None:
        self.depth = 0  # compiles in progress: a kernel compiles its callees inside its own
        self.started = 0.0
        self.seconds = 0.0
        self.said = False
        self.lock = threading.Lock()

    def on_start(self, event) -> None:
        if self.depth == 0:
            self.started = time.perf_counter()
        self.depth += 1
        func = getattr((event.data or {}).get("dispatcher"), "py_func", None)
        if not self.said and _is_ours(getattr(func, "__module__", None) or ""):
            say_compile_notice()

    def on_end(self, event) -> None:
        self.depth = max(0, self.depth - 1)
        if self.depth == 0:
            self.seconds += time.perf_counter() - self.started


#: the packages whose compiles the notice is about (not a user's own numba functions)
NOTICE_PACKAGES = ("burako_env",)


def _is_ours(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in NOTICE_PACKAGES)


_WATCH = _CompileWatch()


def _watch_compiles() -> bool:
    """Listen to numba's compile events (numba 0.53 on); False where there are none."""
    try:
        from numba.core import event
    except ImportError:
        return False
    if not hasattr(event, "register") or numba.config.DISABLE_JIT:
        return False
    if getattr(event, "_burako_watch", None) is None:  # once, even if this module reloads

        class Listener(event.Listener):
            def on_start(self, ev) -> None:
                _WATCH.on_start(ev)

            def on_end(self, ev) -> None:
                _WATCH.on_end(ev)

        event._burako_watch = Listener()
        event.register("numba:compile", event._burako_watch)
    return True


#: whether compiles are seen as they start (the notice of an unforeseen compile, the
#: compile seconds that rates leave out)
COMPILES_WATCHED = _watch_compiles()


def say_compile_notice(echo=None, once: bool = True) -> bool:
    """Say the compile notice: through ``echo`` (a front end's stderr) or as a WARNING of
    the ``burako_env`` logger. With ``once`` (compiles seen as they start), not when it
    was said before in this process; False then (nothing said).

    The front ends say it (``once=False``, through
    ``burako_env.frontends.warmup.announce_compile``) before a command starts, when a
    kernel it calls is cold. Any other first compile of a burako function (a first
    ``Game``, ``VectorEnv``, ``burako_v1.env()``, ``run_tournament``, or a kernel the
    command did not foresee) says it as it starts, once per process.
    ``logging.getLogger("burako_env").setLevel(logging.ERROR)`` silences that."""
    with _WATCH.lock:
        if once and _WATCH.said:
            return False
        _WATCH.said = True
    text = compile_notice()
    if echo is not None:
        echo(text)
    else:
        LOGGER.warning(text)
    return True


def seconds_compiling() -> float:
    """Wall seconds this process has spent compiling so far (0.0 where numba has no
    compile events): a rate that leaves the compile out divides by the elapsed time less
    the growth of this figure over it (:func:`timed_without_compile`)."""
    return _WATCH.seconds


@contextlib.contextmanager
def timed_without_compile():
    """Time a block: yields a dict whose ``seconds`` (wall, less the compiles inside the
    block) and ``compile_seconds`` are set when the block ends. Compiles hold numba's
    global lock, and a thread that calls a kernel being compiled waits for it, so the wall
    time less the compile is what the block takes warm."""
    timing = {"seconds": 0.0, "compile_seconds": 0.0}
    c0, t0 = seconds_compiling(), time.perf_counter()
    try:
        yield timing
    finally:
        wall = time.perf_counter() - t0
        compiled = min(wall, seconds_compiling() - c0)
        timing["seconds"], timing["compile_seconds"] = wall - compiled, compiled
