"""Build the API reference: HTML pages from the docstrings, with pdoc, into docs/api/.

    .venv/bin/python scripts/tools/build_api_docs.py            # writes docs/api/ (git-ignored)
    .venv/bin/python scripts/tools/build_api_docs.py --out DIR  # anywhere else

Open ``docs/api/index.html`` in a browser: plain files, nothing fetched from elsewhere, a
search box included. The build fails (exit code 1, every problem listed) on any warning
pdoc gives, on a cross-reference in a docstring (``:class:`X```, ``:func:`f```,
``:mod:`m```, ...) that names nothing, on text that Markdown would take for an HTML tag
(``runs/<name>`` unquoted: the browser hides it) and on an RST definition list (Markdown
runs it into one paragraph), and on a public name of the reference without a docstring (a
function, a class, a method, a dataclass field: a string below it or a ``#:`` comment;
``FIELDS_UNDOCUMENTED`` lists the dataclasses whose fields are still to do), so CI
(``tests/docs/test_docs_api.py``) keeps the reference whole.

What it documents: every module of ``burako_env`` (``agents/`` and ``training/`` as
``burako_env.agents`` and ``burako_env.training``) except those in ``EXCLUDED`` below,
the compiled kernels whose source is their documentation. A new module is documented
without a change here. Beyond plain pdoc, the build reads the project's Sphinx habits: a
``#:`` comment above an assignment (or after it, on its line) is that name's docstring,
as Sphinx's autodoc reads it; ``:role:`~a.b.C``` and ``:role:`title <a.b.C>``` link
like ``:role:`a.b.C```; and ``text::`` before a code block shows as ``text:``.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import io
import re
import shutil
import sys
import tempfile
import time
import tokenize
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # scripts/<folder>/ sits two below the root

#: source folders and the package names they install as (pyproject's package-dir)
SOURCES = {
    "burako_env": "burako_env",
    "agents": "burako_env.agents",
    "training": "burako_env.training",
}

#: modules left out, with the reason: numba kernels and their helpers (the functions are
#: compiled dispatchers, read best in the source), their public face documented elsewhere
EXCLUDED = {
    "burako_env.core.deal": "compiled kernels (the deal); burako_env.core.game deals",
    "burako_env.core.kernels": "compiled kernels; burako_env.core.game calls them",
    "burako_env.core.melds": "compiled kernels (meld rows)",
    "burako_env.core.observe": "compiled kernels; burako_env.envs.observation names the blocks",
    "burako_env.core.rng": "compiled generator",
    "burako_env.core.rules": "compiled kernels (the rules of a turn); docs/RULES.md",
    "burako_env.core.scoring": "compiled kernels (scoring); docs/RULES.md",
    "burako_env.core.state": "the state's fields, read through burako_env.core.game",
    "burako_env.core.sweep": "compiled kernel of burako_env.frontends.sweep",
    "burako_env.agents.network_kernels": "compiled kernels of burako_env.agents.network",
}

#: dataclasses whose fields have no docstring yet, with the reason: the build accepts
#: them (every other dataclass field of the reference needs one: a string below it or a
#: ``#:`` comment), and fails on an entry that no longer needs its place. Documenting a
#: class's fields removes it from here.
FIELDS_UNDOCUMENTED = {
    "burako_env.variants.Variant": "each field's doc is its metadata (burako rules --table)",
    "burako_env.agents.pimc.CandidateReport": "to do: pimc's report, described by think()",
    "burako_env.agents.pimc.SearchReport": "to do: pimc's report, described by think()",
    "burako_env.agents.ppo_agent.PolicyReport": "to do: described by PPOAgent.think()",
    "burako_env.agents.tournament_chunks.ChunkGames": "to do: a chunk's games (internal)",
    "burako_env.agents.tournament_chunks.ChunkTask": "to do: a chunk of a pairing (internal)",
    "burako_env.checks.ApiTestReport": "to do: api_test's report",
    "burako_env.core.actions.ActionInfo": "to do: described by describe_action()",
    "burako_env.frontends.levels.Level": "to do: a bot level",
    "burako_env.frontends.narrate.Before": "to do: the narration's view before a move",
    "burako_env.frontends.narrate.Narration": "to do: a move narrated",
    "burako_env.frontends.play.PlayResult": "to do: a terminal game's result",
    "burako_env.frontends.playback.Line": "to do: a line of a replay",
    "burako_env.frontends.simulate.SimulationSummary": "to do: burako simulate's summary",
    "burako_env.frontends.sweep.SweepReport": "to do: burako sweep's report",
    "burako_env.frontends.sweep.SweepResult": "to do: burako sweep's result",
    "burako_env.frontends.warmup.WarmupStep": "to do: a warmup job's line",
    "burako_env.frontends.web.sessions.PlaySession": "to do: a web table's game",
    "burako_env.records.GameRecord": "to do: the record format is docs/RECORDS.md's",
    "burako_env.referee.HandScore": "to do: described by the referee's module doc",
    "burako_env.referee.MeldInfo": "to do: described by the referee's module doc",
    "burako_env.referee.TeamResult": "to do: described by the referee's module doc",
    "burako_env.referee.TeamScore": "to do: described by the referee's module doc",
    "burako_env.training.imitation.Demonstrations": "to do: the imitation's store",
    "burako_env.training.search_labels.SearchLabels": "to do: distill's labels",
    "burako_env.training.search_labels.TrainingLabels": "to do: distill's labels",
}

#: a Sphinx cross-reference role in a docstring: ``:class:`burako_env.records.GameRecord```
ROLE = re.compile(r"(?::py)?:(mod|func|data|const|class|meth|attr|exc|obj):`([^`]+)`")


def _all_module_names() -> list[str]:
    """Every module of the three source folders, by the name it installs as."""
    names = []
    for folder, package in SOURCES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            if any(p.startswith("_") for p in parts) or "static" in parts:
                continue
            names.append(".".join([package, *parts]))
    return names


def module_names() -> list[str]:
    """The modules documented: every one but ``EXCLUDED``, ``burako_env`` first."""
    names = set(_all_module_names()) - set(EXCLUDED)
    return sorted(names, key=lambda n: (n != "burako_env", n))


def _doc_comments(source: str, tree: ast.AST) -> None:
    """Give every assignment with a ``#:`` comment (on the lines above it, or after it on
    its last line) that text as its docstring: a string statement after it, where pdoc
    looks; in modules, classes and ``__init__``. A docstring of its own wins."""
    comments: dict[int, tuple[bool, str]] = {}  # line -> (alone on its line, text)
    lines = source.splitlines()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT and tok.string.startswith("#:"):
                row = tok.start[0]
                alone = not lines[row - 1][: tok.start[1]].strip()
                comments[row] = (alone, tok.string[2:].strip())
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return

    def doc_comment(node: ast.stmt) -> str | None:
        text = []
        row = node.lineno - 1
        while comments.get(row, (False, ""))[0]:
            text.append(comments[row][1])
            row -= 1
        if text:
            return "\n".join(reversed(text))
        alone, trailing = comments.get(node.end_lineno or node.lineno, (True, ""))
        return None if alone else trailing

    def is_docstring(node: ast.stmt | None) -> bool:
        return (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        )

    def visit(body: list[ast.stmt]) -> None:
        out = []
        for k, node in enumerate(body):
            out.append(node)
            if isinstance(node, ast.ClassDef) or (
                isinstance(node, ast.FunctionDef) and node.name == "__init__"
            ):
                visit(node.body)
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and not is_docstring(
                body[k + 1] if k + 1 < len(body) else None
            ):
                text = doc_comment(node)
                if text:
                    out.append(ast.Expr(ast.Constant(text)))
        body[:] = out

    if hasattr(tree, "body"):
        visit(tree.body)


def _rst_literal_markers(text: str) -> str:
    """Sphinx's ``text::`` before an indented block shows as ``text:`` (a ``::`` alone on
    its line, as nothing); the block itself is already code to Markdown."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if not line.rstrip().endswith("::"):
            continue
        rest = [x for x in lines[i + 1 :] if x.strip()]
        indent = len(line) - len(line.lstrip())
        if rest and len(rest[0]) - len(rest[0].lstrip()) > indent:
            head = line.rstrip()[:-2].rstrip()
            lines[i] = head + ":" if head.strip() else ""
    return "\n".join(lines)


def _patch_pdoc() -> None:
    """Teach pdoc the ``#:`` comments, the ``~`` of Sphinx references and ``::``."""
    import pdoc.doc_ast
    import pdoc.docstrings

    parse = pdoc.doc_ast._parse

    def parse_with_comments(source):
        tree = parse(source)
        _doc_comments(pdoc.doc_ast._dedent(source), tree)
        return tree

    pdoc.doc_ast._parse = parse_with_comments

    rst = pdoc.docstrings.rst

    def rst_sphinx(contents, source_file):
        contents = re.sub(r"(:[a-z]+:`)~", r"\1", contents)
        # :meth:`title <target>`: pdoc links the target, shown whole
        contents = re.sub(r"(:[a-z]+:`)[^`<]*<([^`>]+)>`", r"\1\2`", contents)
        return rst(_rst_literal_markers(contents), source_file)

    pdoc.docstrings.rst = rst_sphinx


def _prepare(module) -> None:
    """Make a module's objects visible to pdoc as they are to a user: the names in
    ``__all__`` that load lazily (``burako_env.VectorEnv``), and the named tuples whose
    generated ``__new__`` claims no module (its annotations would not resolve)."""
    for name in getattr(module, "__all__", []):
        getattr(module, name, None)
    for obj in list(vars(module).values()):
        new = getattr(obj, "__new__", None)
        if isinstance(obj, type) and hasattr(obj, "_fields") and obj.__module__ == module.__name__:
            if getattr(new, "__module__", "").startswith("namedtuple_"):
                new.__module__ = module.__name__


def _walk(doc):
    """The documentation objects of a module that the reference shows with a docstring of
    this project's: the module, its public members, theirs (not a docstring inherited from
    another library's class, such as torch's ``Function.forward``)."""
    if doc.kind in ("function", "class") and not getattr(doc.obj, "__doc__", None):
        return
    yield doc
    for member in getattr(doc, "own_members", []):
        if member.kind == "module" or (member.name.startswith("_") and member.name != "__init__"):
            continue
        yield from _walk(member)


def _target(reference: str) -> str:
    """The object a Sphinx reference names: ``~a.b`` and ``title <a.b>`` name ``a.b``."""
    if reference.endswith(">") and "<" in reference:
        reference = reference[reference.rindex("<") + 1 : -1]
    return reference.lstrip("~")


def _resolves(target: str, doc, all_modules) -> bool:
    """Whether ``target``, referenced in ``doc``'s docstring, names something: an object of
    the reference (pdoc links it) or any importable object (numpy's, a left-out module's)."""
    from pdoc.render_helpers import linkify

    def is_public(d):
        return "" if d.name.startswith("_") and d.name != "__init__" else "yes"

    name = target.removesuffix("()")
    namespace = doc.qualname if doc.kind != "module" else ""
    context = {
        "module": all_modules[doc.modulename],
        "all_modules": all_modules,
        "is_public": is_public,
    }
    linked = linkify(context, f"<code>{name}</code>", namespace=namespace, shorten=False)
    if re.fullmatch(r"<code><a [^>]*>[^<]*</a></code>", linked):
        return True
    # not in the reference: an importable object, absolute or from the docstring's module
    # (the module that defines it, for a name re-exported by another)
    module = sys.modules.get(doc.taken_from[0], all_modules[doc.modulename].obj)
    enclosing = doc.qualname.split(".")[:-1] if doc.kind != "module" else []
    scopes = [".".join([*enclosing[:k], name]) for k in range(len(enclosing), -1, -1)]
    for dotted in scopes:
        obj = module
        try:
            for part in dotted.split("."):
                obj = getattr(obj, part)
            return True
        except AttributeError:
            pass
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for part in parts[cut:]:
                obj = getattr(obj, part)
            return True
        except AttributeError:
            return False
    return False


def _undocumented(module, all_modules) -> tuple[list[str], set[str]]:
    """The public names of ``module``'s page without a docstring: its functions, classes
    and their methods, and the dataclass fields (those of :data:`FIELDS_UNDOCUMENTED`
    aside, whose classes are returned as seen). A name re-exported from another module
    is checked on that module's page; a method that overrides a documented one shares its
    docstring (inspect.getdoc)."""
    import dataclasses

    problems: list[str] = []
    excused: set[str] = set()

    def where(doc) -> str:
        source = doc.source_file
        if source and source.is_relative_to(ROOT):
            line = f":{doc.source_lines[0]}" if doc.source_lines else ""
            return f"{doc.fullname} ({source.relative_to(ROOT)}{line})"
        return doc.fullname

    def visit(doc) -> None:
        for member in getattr(doc, "own_members", []):
            if member.kind == "module" or member.name.startswith("_"):
                continue
            if member.taken_from[0] != module.modulename:
                continue  # re-exported: its own module's page checks it
            documented = bool(member.docstring.strip())
            if member.kind in ("function", "class") and not documented:
                kind = "method" if member.kind == "function" and doc.kind == "class" else ""
                problems.append(
                    f"{where(member)}: the public {kind or member.kind} has no docstring"
                )
            if member.kind == "variable" and doc.kind == "class" and not documented:
                fields = (
                    {f.name for f in dataclasses.fields(doc.obj)}
                    if (dataclasses.is_dataclass(doc.obj))
                    else set()
                )
                if member.name in fields:
                    if doc.fullname in FIELDS_UNDOCUMENTED:
                        excused.add(doc.fullname)
                    else:
                        problems.append(
                            f"{where(member)}: the dataclass field has no docstring (a string "
                            "below it, or a #: comment above)"
                        )
            if member.kind == "class":
                visit(member)

    visit(module)
    return problems, excused


#: the tags Markdown writes; any other tag in a docstring's HTML is text that Markdown took
#: for raw HTML (``runs/<name>``): the browser hides it
MARKDOWN_TAGS = set(
    "a p code pre em strong ul ol li h1 h2 h3 h4 h5 h6 blockquote hr br img table thead "
    "tbody tr th td div span sup sub dl dt dd del".split()
)


def _check(doc, all_modules) -> list[str]:
    """What is wrong with the docstring of ``doc``: references naming nothing, raw HTML."""
    from pdoc.render_helpers import to_html, to_markdown

    where = doc.fullname
    source = doc.source_file or all_modules[doc.modulename].source_file
    if source:
        source = source.relative_to(ROOT) if source.is_relative_to(ROOT) else source
        line = f":{max(doc.source_lines[0], 1)}" if doc.source_lines else ""
        where += f" ({source}{line})"
    problems = [
        f"{where}: the reference {target!r} names nothing"
        for _, target in ROLE.findall(doc.docstring)
        if not _resolves(_target(target), doc, all_modules)
    ]
    lines = doc.docstring.split("\n")
    for above, line, below in zip(["", *lines], lines, lines[1:], strict=False):
        # an RST definition list (a term, its text indented below) or a list of "(a)"
        # items with indented lines: Markdown runs them all into one paragraph
        if (
            not above.strip()
            and line.strip()
            and line == line.lstrip()
            and not line.rstrip().endswith("::")
            and not re.match(r"([*+-]|\d+[.)]|>>>)\s", line)
            and below.strip()
            and below != below.lstrip()
        ):
            problems.append(
                f"{where}: {line.strip()[:40]!r} has its text indented below it (an RST "
                "definition or enumerated list): Markdown runs the list into one paragraph; "
                "write a bullet list (* term: text)"
            )
    html = to_html(to_markdown(doc.docstring, all_modules[doc.modulename], "restructuredtext"))
    for tag in sorted(set(re.findall(r"</?([A-Za-z][\w-]*)", html)) - MARKDOWN_TAGS):
        problems.append(f"{where}: <{tag}> reads as an HTML tag and vanishes: quote it in ``")
    return problems


def build(out: Path, names: list[str] | None = None) -> list[str]:
    """Render the reference of ``names`` (default: :func:`module_names`) into ``out``
    (replaced whole); return the problems found, pdoc's warnings first."""
    sys.path.insert(0, str(ROOT))
    problems: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import pdoc
        import pdoc.doc
        import pdoc.render

        import burako_env

        _patch_pdoc()
        pdoc.render.configure(
            docformat="restructuredtext",
            footer_text=f"burako {burako_env.__version__}",
            search=True,
            show_source=False,  # the source is in the checkout; 2.5x the size and time
        )
        if names is None:
            names = module_names()
            for name in sorted(set(EXCLUDED) - set(_all_module_names())):
                problems.append(f"EXCLUDED names {name}, which is no module")
        for name in names:
            _prepare(importlib.import_module(name))
        all_modules = {name: pdoc.doc.Module.from_name(name) for name in names}
        # a package's nav lists the documented modules under it (pdoc would follow
        # ``__all__``, which names objects, not submodules)
        for name, module in all_modules.items():
            module.__dict__["submodules"] = [
                m for n, m in all_modules.items() if n.rpartition(".")[0] == name
            ]
        tmp = Path(tempfile.mkdtemp(prefix=".api-", dir=out.parent))
        try:
            for name, module in all_modules.items():
                page = tmp / f"{name.replace('.', '/')}.html"
                page.parent.mkdir(parents=True, exist_ok=True)
                page.write_text(pdoc.render.html_module(module, all_modules), "utf-8")
            (tmp / "index.html").write_text(pdoc.render.html_index(all_modules), "utf-8")
            (tmp / "search.js").write_text(pdoc.render.search_index(all_modules), "utf-8")
            excused: set[str] = set()
            for module in all_modules.values():
                for doc in _walk(module):
                    problems += _check(doc, all_modules)
                missing, seen = _undocumented(module, all_modules)
                problems += missing
                excused |= seen
            if set(names) >= set(module_names()):  # the whole reference: stale entries
                for name in sorted(set(FIELDS_UNDOCUMENTED) - excused):
                    problems.append(
                        f"FIELDS_UNDOCUMENTED names {name}, whose fields are all documented "
                        "(or which is no dataclass of the reference): remove it"
                    )
            if out.exists():
                shutil.rmtree(out)
            tmp.rename(out)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    warned = [f"pdoc: {w.category.__name__}: {w.message}" for w in caught]
    return warned + problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "api", help="output folder")
    parser.add_argument(
        "--module",
        action="append",
        help="document only this module (repeatable; default: every module but EXCLUDED)",
    )
    args = parser.parse_args(argv)
    out = args.out.absolute()
    if out.exists() and any(out.iterdir()) and not (out / "search.js").is_file():
        print(f"error: {out} holds files but no API reference: refused", file=sys.stderr)
        return 2
    out.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    problems = build(out, args.module)
    if problems:
        print(f"API reference: {len(problems)} problem(s)", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        return 1
    pages = len(list(out.rglob("*.html")))
    print(f"API reference: {pages} pages in {out} ({time.perf_counter() - start:.1f} s)")
    print(f"open {out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
