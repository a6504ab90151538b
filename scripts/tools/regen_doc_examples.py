"""Run the checked examples of README.md, docs/*.md and docs/experiments/*.md, and rewrite
(or check) their output.

An example is checked when an HTML comment ``<!-- checked -->`` stands on the line before
its fenced block (blank lines between are allowed). Two kinds:

* a transcript: a ``text`` block of ``$ burako ...`` commands, each followed by the
  output it prints, up to the next ``$ `` line (the command runs as
  ``python -m burako_env.frontends.cli ...``, no shell: no pipes or redirections);
* a Python block followed by a ``text`` block: the code runs on its own (a fresh
  process, nothing from earlier blocks) and prints the text block.

A line ``...`` in an output stands for any number of lines (the output is trimmed
there); the lines around it must appear in that order. The comment can carry options:
``<!-- checked: exit=2 stdin="keep\\nlegal" timeout=120 slow -->`` (the exit status the
command must end with, default 0; its standard input, ``\\n`` between lines; seconds
before it is stopped, default 300; ``slow`` marks the test slow: no later example
may need what it writes). A block that shows
output but is not run says why: ``<!-- unchecked: a server that runs until Ctrl+C -->``.

Every example of a file runs in order in one scratch folder (with ``configs`` linked to
the repository's), so a later example can read what an earlier one wrote, with
``PYTHONPATH`` set to this checkout. What a run prints (stdout and stderr together) is
cleaned before it is written into a document: the compile notice and the ``N s of
compiling left out`` notes (the cache may be cold or warm), progress bars, colours,
trailing spaces and the scratch folder's path go. It is compared with the document after
both sides are normalised (:data:`NORMALISERS`): rates (``1,035 hands/s``, ``sps 498``),
durations (``0.98 s``), timestamps and dates, the bench's machine line and the decimal
figures of a Markdown table's cells become placeholders, so a timing never fails a test
while every other figure does.

    python scripts/tools/regen_doc_examples.py            # run them all, rewrite what changed
    python scripts/tools/regen_doc_examples.py --check    # exit 1 naming each example that differs
    python scripts/tools/regen_doc_examples.py README.md --list

A rewrite keeps a trimmed output trimmed: each run of lines between ``...`` is replaced
by the run of actual lines that resembles it most, and a line whose normalised form did
not change keeps its old text (so old timings stay, and a diff shows only what changed).
tests/docs/test_doc_examples.py runs the check, one test per example (docs/TESTING.md).
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # scripts/<folder>/ sits two below the root
#: the documents whose examples are checked, relative to the repository root
DOC_GLOBS = ("README.md", "docs/*.md", "docs/experiments/*.md")
DEFAULT_TIMEOUT = 300.0

MARKER = re.compile(r"^<!--\s*(checked|unchecked)\b\s*:?\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)\s*$")
ELLIPSIS = "..."
PROMPT = "$ "

#: cleaning of what a run prints, before it goes into a document (and before comparing)
COMPILE_NOTICE = "compiling the game's kernels for this machine"
CLEANERS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\x1b\[[0-9;]*[A-Za-z]"), ""),  # colours
    (re.compile(r"; [\d.]+ s of compiling left out"), ""),
    (re.compile(r" \([\d.]+ s of compiling left out\)"), ""),
]

#: normalisation of both sides before comparing: what differs from run to run or
#: machine to machine becomes a placeholder
NORMALISERS: list[tuple[str, re.Pattern[str], str]] = [
    (
        "the bench's machine line",
        re.compile(r"^\S+, \d+ cores?, \w*Python [\w.+]+, numba [\w.+]+$"),
        "<machine>",
    ),
    ("rates", re.compile(r"\d[\d,]*(?:\.\d+)?(?= (?:env )?[\w-]+/s\b)"), "<rate>"),
    ("sps (training's steps per second)", re.compile(r"\bsps [\d,]+(?:\.\d+)?"), "sps <rate>"),
    ("durations", re.compile(r"\b\d+(?:\.\d+)? (?:s|ms|min)\b"), "<duration>"),
    ("timestamps in names", re.compile(r"\b\d{8}-\d{6}\b"), "<timestamp>"),
    (
        "dates and times",
        re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?\b"),
        "<date>",
    ),
]
#: in a Markdown table row, a cell holding a measured figure (a decimal point or a
#: thousands separator: 176,159 or 896.6) is a placeholder; small counts (4, 256) stay
TABLE_FIGURE = re.compile(r"^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$|^-?\d+\.\d+$")


# ------------------------------------------------------------------ the documents
@dataclass
class Example:
    """One checked command (of a transcript) or Python block, and the output it shows."""

    path: str  # relative to the repository root
    line: int  # 1-based: the ``$`` line, or the Python block's opening fence
    kind: str  # "command" or "python"
    source: str  # the command after ``$ ``, or the code
    expected: list[str]
    out_start: int  # 0-based line index of the first output line in the file
    out_end: int  # exclusive
    options: dict = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def slow(self) -> bool:
        return bool(self.options.get("slow"))


@dataclass
class Fence:
    start: int  # index of the opening fence line
    end: int  # index of the closing fence line
    lang: str
    body: list[str]


@dataclass
class Marked:
    """A fenced block that shows output, and whether (and how) it is checked."""

    path: str
    line: int
    checked: bool | None  # None: no marker
    reason: str


def _fences(lines: list[str]) -> list[Fence]:
    fences = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i].strip()) if lines[i].startswith("`") else None
        if m:
            ticks = m.group(1)
            j = i + 1
            while j < len(lines) and lines[j].rstrip() != ticks:
                j += 1
            fences.append(Fence(i, j, m.group(2), lines[i + 1 : j]))
            i = j + 1
        else:
            i += 1
    return fences


def _marker_before(lines: list[str], index: int) -> re.Match[str] | None:
    j = index - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    return MARKER.match(lines[j].strip()) if j >= 0 else None


def parse_options(text: str) -> dict:
    """``exit=2 stdin="a\\nb" timeout=60 slow`` -> {"exit": 2, "stdin": "a\\nb\\n", ...}."""
    options: dict = {}
    for token in shlex.split(text):
        key, sep, value = token.partition("=")
        if key == "slow" and not sep:
            options[key] = True
        elif key == "exit":
            options[key] = int(value)
        elif key == "timeout":
            options[key] = float(value)
        elif key == "stdin":
            options[key] = value.replace("\\n", "\n").rstrip("\n") + "\n"
        else:
            raise ValueError(f"unknown option {key!r} in <!-- checked: {text} -->")
    return options


def _is_transcript(fence: Fence) -> bool:
    return fence.lang in ("text", "console", "") and any(
        line.startswith(PROMPT) for line in fence.body
    )


def _shows_output(lines: list[str], fences: list[Fence], k: int) -> bool:
    """A transcript with at least one output line, or a Python block followed by a text
    block."""
    fence = fences[k]
    if _is_transcript(fence):
        return any(line.strip() and not line.startswith(PROMPT) for line in fence.body)
    if fence.lang == "python":
        return _output_fence(lines, fences, k) is not None
    return False


def _output_fence(lines: list[str], fences: list[Fence], k: int) -> Fence | None:
    """The ``text`` block right after block k (only blank lines between), if any."""
    if k + 1 >= len(fences) or fences[k + 1].lang != "text":
        return None
    nxt = fences[k + 1]
    if any(s.strip() for s in lines[fences[k].end + 1 : nxt.start]):
        return None
    return nxt


def _examples_of(path: str, lines: list[str], fences: list[Fence], k: int, options: dict):
    fence = fences[k]
    if fence.lang == "python":
        out = _output_fence(lines, fences, k)
        if out is None:
            raise ValueError(
                f"{path}:{fence.start + 1}: a checked Python block needs a ```text block "
                "right after it, with what it prints"
            )
        yield Example(
            path,
            fence.start + 1,
            "python",
            "\n".join(fence.body) + "\n",
            list(out.body),
            out.start + 1,
            out.end,
            options,
        )
        return
    if not _is_transcript(fence):
        raise ValueError(
            f"{path}:{fence.start + 1}: a checked block is a ```text transcript of "
            "`$ ` commands, or a ```python block followed by its ```text output"
        )
    body_start = fence.start + 1
    prompts = [i for i, line in enumerate(fence.body) if line.startswith(PROMPT)]
    if prompts[0] != 0:
        raise ValueError(f"{path}:{fence.start + 1}: a transcript starts with its `$ ` command")
    for n, i in enumerate(prompts):
        stop = prompts[n + 1] if n + 1 < len(prompts) else len(fence.body)
        while stop > i + 1 and not fence.body[stop - 1].strip():
            stop -= 1  # the blank lines between two commands belong to neither
        yield Example(
            path,
            body_start + i + 1,
            "command",
            fence.body[i][len(PROMPT) :].strip(),
            list(fence.body[i + 1 : stop]),
            body_start + i + 1,
            body_start + stop,
            options,
        )


def doc_paths(root: Path = ROOT) -> list[str]:
    paths: list[str] = []
    for pattern in DOC_GLOBS:
        paths += sorted(str(p.relative_to(root)) for p in root.glob(pattern))
    return paths


def collect(paths: list[str] | None = None, root: Path = ROOT) -> list[Example]:
    """Every checked example of the documents, in file order."""
    examples: list[Example] = []
    for path in paths or doc_paths(root):
        lines = (root / path).read_text(encoding="utf-8").split("\n")
        fences = _fences(lines)
        for k, fence in enumerate(fences):
            m = _marker_before(lines, fence.start)
            if not m or m.group(1) != "checked":
                continue
            if k > 0 and fences[k - 1].lang == "python" and fence.lang == "text":
                if _output_fence(lines, fences, k - 1) is fence:
                    raise ValueError(
                        f"{path}:{fence.start + 1}: the marker goes before the Python block"
                    )
            examples += _examples_of(path, lines, fences, k, parse_options(m.group(2)))
    return examples


def marked_blocks(paths: list[str] | None = None, root: Path = ROOT) -> list[Marked]:
    """Every block that shows output (a transcript with output lines, a Python block with
    its text output), with its marker: checked, unchecked (and why) or none."""
    found = []
    for path in paths or doc_paths(root):
        lines = (root / path).read_text(encoding="utf-8").split("\n")
        fences = _fences(lines)
        for k, fence in enumerate(fences):
            if not _shows_output(lines, fences, k):
                continue
            m = _marker_before(lines, fence.start)
            checked = None if m is None else m.group(1) == "checked"
            found.append(Marked(path, fence.start + 1, checked, m.group(2) if m else ""))
    return found


# ------------------------------------------------------------------ running them
def clean(text: str, scratch: Path | None = None) -> list[str]:
    """What a run printed, as it goes into a document."""
    lines = []
    if scratch is not None:
        text = text.replace(str(scratch) + os.sep, "").replace(str(scratch), ".")
    text = text.replace(str(ROOT) + os.sep, "")
    for line in text.split("\n"):
        if "\r" in line:  # a progress bar: tqdm redraws its line after a \r
            continue
        if line.startswith(COMPILE_NOTICE):
            continue
        for pattern, repl in CLEANERS:
            line = pattern.sub(repl, line)
        lines.append(line.rstrip())
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


def normalise(line: str) -> str:
    """One line as it is compared: measured figures become placeholders."""
    line = line.rstrip()
    for _, pattern, repl in NORMALISERS:
        line = pattern.sub(repl, line)
    stripped = line.strip()
    if len(stripped) > 1 and stripped[0] == stripped[-1] == "|":
        cells = [
            " <figure> " if TABLE_FIGURE.match(c.strip()) else c for c in stripped[1:-1].split("|")
        ]
        line = line[: len(line) - len(line.lstrip())] + "|" + "|".join(cells) + "|"
    return line


def _command_argv(command: str) -> list[str]:
    args = shlex.split(command)
    if args and args[0] == "burako":
        return [sys.executable, "-m", "burako_env.frontends.cli", *args[1:]]
    raise ValueError(f"a checked command runs `burako ...`, not {command!r}")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    env.update(PYTHONUNBUFFERED="1", TQDM_DISABLE="1", NO_COLOR="1", COLUMNS="100")
    env.update(PYTHONHASHSEED="0", TERM="dumb")
    env.pop("FORCE_COLOR", None)
    return env


@dataclass
class Result:
    example: Example
    actual: list[str]  # cleaned
    returncode: int | None  # None: stopped at its timeout

    @property
    def exit_ok(self) -> bool:
        return self.returncode == self.example.options.get("exit", 0)

    @property
    def ok(self) -> bool:
        return self.exit_ok and matches(self.example.expected, self.actual)

    def report(self) -> str:
        ex = self.example
        head = f"{ex.id}: {'$ ' + ex.source if ex.kind == 'command' else 'Python block'}"
        parts = [head]
        if not self.exit_ok:
            want = ex.options.get("exit", 0)
            got = "a timeout" if self.returncode is None else f"exit status {self.returncode}"
            parts.append(f"  expected exit status {want}, got {got}")
        if not matches(ex.expected, self.actual):
            # the document against what a rewrite would make of it (trimmed alike)
            diff = difflib.unified_diff(
                [normalise(s) for s in ex.expected],
                [normalise(s) for s in regenerate(ex.expected, self.actual)],
                "documented (normalised)",
                "as run (normalised, trimmed as documented)",
                lineterm="",
                n=2,
            )
            parts += ["  " + d for d in diff]
        return "\n".join(parts)


def run_example(example: Example, scratch: Path) -> Result:
    if example.kind == "python":
        script = scratch / f"example_{Path(example.path).stem}_{example.line}.py"
        script.write_text(example.source, encoding="utf-8")
        argv = [sys.executable, str(script)]
    else:
        argv = _command_argv(example.source)
    try:
        proc = subprocess.run(
            argv,
            cwd=scratch,
            env=_env(),
            input=example.options.get("stdin", "").encode(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=example.options.get("timeout", DEFAULT_TIMEOUT),
        )
        output, code = proc.stdout, proc.returncode
    except subprocess.TimeoutExpired as exc:
        output, code = exc.stdout or b"", None
    # bytes, not text mode: universal newlines would turn a progress bar's \r into lines
    return Result(example, clean(output.decode("utf-8", "replace"), scratch), code)


class DocumentRun:
    """One document's examples, run in order in one scratch folder, each at most once and
    only when asked for: asking for an example runs the ones before it first, except the
    slow ones (so a slow example must not be needed by the examples after it, and
    ``-m "not slow"`` skips its run)."""

    def __init__(self, examples: list[Example]):
        self.examples = examples
        self.results: dict[str, Result] = {}
        self._next = 0
        self._tmp: tempfile.TemporaryDirectory | None = None

    @property
    def scratch(self) -> Path:
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="burako-docex-")
            path = Path(self._tmp.name)
            (path / "configs").symlink_to(ROOT / "configs", target_is_directory=True)
        return Path(self._tmp.name)

    def result(self, example: Example) -> Result:
        while example.id not in self.results:
            ex = self.examples[self._next]
            self._next += 1
            if ex.slow and ex is not example:
                continue
            self.results[ex.id] = run_example(ex, self.scratch)
        return self.results[example.id]

    def close(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def run_examples(examples: list[Example], echo=None) -> dict[str, Result]:
    """Run the examples, each document's in order in a scratch folder of its own."""
    results: dict[str, Result] = {}
    by_path: dict[str, list[Example]] = {}
    for ex in examples:
        by_path.setdefault(ex.path, []).append(ex)
    for exs in by_path.values():
        run = DocumentRun(exs)
        try:
            for ex in exs:
                results[ex.id] = res = run.result(ex)
                if echo:
                    echo(f"{'ok  ' if res.ok else 'DIFF'} {ex.id}")
        finally:
            run.close()
    return results


# ------------------------------------------------------------------ comparing
def _chunks(expected: list[str]) -> list[list[int]]:
    """Indices of the expected lines between ``...`` lines (the first and the last may be
    empty: an output that starts or ends with ``...``)."""
    chunks: list[list[int]] = [[]]
    for i, line in enumerate(expected):
        if line.strip() == ELLIPSIS:
            chunks.append([])
        else:
            chunks[-1].append(i)
    return chunks


def matches(expected: list[str], actual: list[str]) -> bool:
    """The actual lines fit the documented ones, ``...`` standing for any lines."""
    exp = [normalise(s) for s in expected]
    act = [normalise(s) for s in actual]
    chunks = [[exp[i] for i in c] for c in _chunks(expected)]
    if len(chunks) == 1:
        return exp == act
    first, *middle, last = chunks
    if len(first) + len(last) > len(act):
        return False
    if act[: len(first)] != first or (last and act[-len(last) :] != last):
        return False
    pos, stop = len(first), len(act) - len(last)
    for chunk in middle:
        if not chunk:
            continue
        for start in range(pos, stop - len(chunk) + 1):
            if act[start : start + len(chunk)] == chunk:
                pos = start + len(chunk)
                break
        else:
            return False
    return True


def _similarity(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def regenerate(expected: list[str], actual: list[str]) -> list[str]:
    """The documented output brought up to date: trimmed where it was trimmed (each run of
    lines between ``...`` replaced by the actual run most like it), and a line whose
    normalised form is unchanged keeps its old text."""
    chunks = _chunks(expected)
    exp_n = [normalise(s) for s in expected]
    act_n = [normalise(s) for s in actual]

    def keep_or_new(i: int, j: int) -> str:
        return expected[i] if exp_n[i] == act_n[j] else actual[j]

    if len(chunks) == 1:
        new = list(actual)
        matcher = difflib.SequenceMatcher(None, exp_n, act_n, autojunk=False)
        for block in matcher.get_matching_blocks():
            for d in range(block.size):
                new[block.b + d] = expected[block.a + d]
        return new
    sizes = [len(c) for c in chunks]
    if sum(sizes) > len(actual):
        return list(actual)  # too short to keep the trim: the whole output
    first, *middle, last = chunks
    placed: dict[int, int] = {}  # expected index -> actual index
    for k, i in enumerate(first):
        placed[i] = k
    for k, i in enumerate(last):
        placed[i] = len(actual) - len(last) + k
    pos, stop = len(first), len(actual) - len(last)
    for n, chunk in enumerate(middle):
        if not chunk:
            continue
        rest = sum(len(c) for c in middle[n + 1 :])
        best, best_score = pos, -1.0
        for start in range(pos, stop - rest - len(chunk) + 1):
            score = sum(_similarity(exp_n[i], act_n[start + d]) for d, i in enumerate(chunk))
            if score > best_score:
                best, best_score = start, score
        for d, i in enumerate(chunk):
            placed[i] = best + d
        pos = best + len(chunk)
    return [
        line if line.strip() == ELLIPSIS else keep_or_new(i, placed[i])
        for i, line in enumerate(expected)
    ]


def rewrite(results: list[Result], root: Path = ROOT) -> list[str]:
    """Write the new outputs of the examples that differ into their documents; returns
    the ids rewritten."""
    done = []
    by_path: dict[str, list[Result]] = {}
    for res in results:
        if not matches(res.example.expected, res.actual):
            by_path.setdefault(res.example.path, []).append(res)
    for path, rs in by_path.items():
        file = root / path
        lines = file.read_text(encoding="utf-8").split("\n")
        for res in sorted(rs, key=lambda r: r.example.out_start, reverse=True):
            ex = res.example
            lines[ex.out_start : ex.out_end] = regenerate(ex.expected, res.actual)
            done.append(ex.id)
        file.write_text("\n".join(lines), encoding="utf-8")
    return sorted(done)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="documents (default: README.md docs/*.md)")
    parser.add_argument(
        "--check", action="store_true", help="rewrite nothing; exit 1 naming each difference"
    )
    parser.add_argument("--list", action="store_true", help="list the checked examples")
    args = parser.parse_args(argv)
    paths = [str(Path(p).resolve().relative_to(ROOT)) for p in args.paths] or None
    examples = collect(paths)
    if args.list:
        for ex in examples:
            source = ex.source if ex.kind == "command" else "(Python block)"
            print(f"{ex.id:<24} {source}{'  [slow]' if ex.slow else ''}")
        unmarked = [m for m in marked_blocks(paths) if m.checked is None]
        for m in unmarked:
            print(f"{m.path}:{m.line}: shows output but has no <!-- checked --> marker")
        return 0
    results = run_examples(examples, echo=lambda s: print(s, flush=True))
    bad = [r for r in results.values() if not r.ok]
    failed_runs = [r for r in bad if not r.exit_ok]
    if args.check or failed_runs:
        for res in bad:
            print("\n" + res.report())
        if bad:
            print(f"\n{len(bad)} of {len(results)} examples differ", end="")
            print("" if args.check else " (nothing rewritten: a command failed)")
            if args.check:
                print("regenerate with: python scripts/tools/regen_doc_examples.py")
            return 1
        print(f"{len(results)} examples as documented")
        return 0
    done = rewrite(bad)
    for ident in done:
        print(f"rewrote {ident}")
    print(f"{len(results)} examples, {len(done)} rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
