"""The API reference (``scripts/tools/build_api_docs.py``, pdoc): it builds with no warning, no
reference that names nothing and no markup that Markdown would mangle, and its pages
cover the environments' keywords, the agents and their settings, the tournament, the
records and every key of the training config, each with its docstring."""

from __future__ import annotations

import ast
import html
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "tools" / "build_api_docs.py"


def build(out: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out), *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env=env,
    )


def text(page: Path) -> str:
    """The words of a page's main part as a reader sees them: inline tags dropped, block
    tags a space, entities read, white space collapsed."""
    main = page.read_text(encoding="utf-8")
    main = main[main.index("<main") : main.index("</main>")]
    main = re.sub(r"<(style|script)\b.*?</\1>", " ", main, flags=re.S)
    main = re.sub(r"</?(code|a|em|strong|span)\b[^>]*>", "", main)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", main)).split())


def plain(docstring: str) -> str:
    """A docstring's words as the reference shows them: references by their target,
    literals without their quotes."""
    docstring = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", docstring).replace("``", "")
    return " ".join(docstring.split())


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reference") / "api"
    result = build(out)
    assert result.returncode == 0, result.stderr  # any warning or problem fails the build
    assert "pages in" in result.stdout
    return out


def page(reference: Path, module: str) -> Path:
    path = reference / (module.replace(".", "/") + ".html")
    assert path.is_file(), f"no page for {module}"
    return path


def test_pages_of_the_public_modules(reference):
    assert (reference / "index.html").is_file() and (reference / "search.js").is_file()
    for module in [
        "burako_env",
        "burako_env.burako_v1",
        "burako_env.envs.aec",
        "burako_env.gym.single",
        "burako_env.gym.vector",
        "burako_env.envs.vector",
        "burako_env.envs.observation",
        "burako_env.variants",
        "burako_env.records",
        "burako_env.cards",
        "burako_env.core.game",
        "burako_env.agents",
        "burako_env.agents.base",
        "burako_env.agents.heuristic",
        "burako_env.agents.policies",
        "burako_env.agents.policy_context",
        "burako_env.agents.policy_scores",
        "burako_env.agents.pimc",
        "burako_env.agents.ppo_agent",
        "burako_env.agents.tournament",
        "burako_env.agents.tournament_results",
        "burako_env.training.config",
        "burako_env.training.run",
    ]:
        page(reference, module)
    # the kernels are left out; the root page lists the packages under it
    assert not (reference / "burako_env/core/rules.html").exists()
    root = page(reference, "burako_env").read_text(encoding="utf-8")
    for child in ("agents", "envs", "records", "training", "variants"):
        assert f'href="burako_env/{child}.html"' in root


def test_environment_keywords(reference):
    gym = text(page(reference, "burako_env.gym.single"))
    for keyword in (
        "reward: str = 'score'",
        "episode: str = 'hand'",
        "opponents=None",
        "normalize_obs: bool = False",
    ):
        assert keyword in gym
    assert 'opponents="greedy"' in gym  # the class docstring explains them
    vector = text(page(reference, "burako_env.gym.vector"))
    assert "num_envs" in vector and "SAME_STEP" in vector
    aec = text(page(reference, "burako_env.envs.aec"))
    assert "render_mode" in aec and "Action Space" in aec
    assert "num_envs" in text(page(reference, "burako_env.envs.vector"))


def test_agents_and_their_settings(reference):
    agents = text(page(reference, "burako_env.agents"))
    assert "make_agent" in agents and "register_agent" in agents
    pimc = text(page(reference, "burako_env.agents.pimc"))
    for setting in (
        "k: determinizations per decision",
        "rollout: the policy playing every seat",
        "candidates: all",
        "z: how sure the search must be",
        "budget_ms: wall-clock bound",
        "threads: numba threads",
    ):
        assert setting in pimc  # the settings list renders as a list, item by item
    heuristic = text(page(reference, "burako_env.agents.heuristic"))
    assert "WEIGHT_PRESETS" in heuristic and "cautious" in heuristic
    # #: doc comments become the names' docstrings
    assert "discard_table with other weights" in heuristic
    scores = text(page(reference, "burako_env.agents.policy_scores"))
    assert "W_DANGER_FIT = 4 cost of discarding a card that fits an opponent's meld" in scores
    assert "keep_value_nb" not in scores  # the scoring functions are internal (__all__)
    context = text(page(reference, "burako_env.agents.policy_context"))
    assert "new_workspace" in context
    assert "X_HAND" not in context  # the workspace layout is internal (__all__)
    assert "act_batch" in text(page(reference, "burako_env.agents.policies"))
    assert "PPOAgent" in text(page(reference, "burako_env.agents.ppo_agent"))
    tournament = text(page(reference, "burako_env.agents.tournament"))
    assert "run_tournament" in tournament and "hands_per_pairing" in tournament
    results = text(page(reference, "burako_env.agents.tournament_results"))
    assert "bradley_terry" in results and "TournamentResult" in results


def test_records(reference):
    records = text(page(reference, "burako_env.records"))
    assert "GameRecord" in records and "read_records" in records
    assert "RECORD_VERSION = 2 version 2: rules v1" in records


def test_every_config_key_with_its_docstring(reference):
    config = text(page(reference, "burako_env.training.config"))
    tree = ast.parse((ROOT / "training" / "config.py").read_text(encoding="utf-8"))
    keys = 0
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        if not any("dataclass" in ast.unparse(d) for d in cls.decorator_list):
            continue
        assert f"class {cls.name}" in config
        for field, after in zip(cls.body, cls.body[1:], strict=False):
            if not isinstance(field, ast.AnnAssign):
                continue
            key = f"{cls.name}.{field.target.id}"
            assert isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant), (
                f"{key} has no docstring"
            )
            words = " ".join(plain(after.value.value).split()[:8])
            assert f"{field.target.id}: " in config, key
            assert words in config, f"{key}'s docstring is not in the reference"
            keys += 1
    assert keys > 50
    for key in ("update_threads", "num_envs", "total_env_steps", "heuristics", "workers"):
        assert f"{key}: " in config


def test_problems_fail_the_build(tmp_path):
    """A reference naming nothing, a tag that Markdown would swallow and an RST definition
    list each fail the build, named; ``#:`` comments and ``text::`` are read as Sphinx does."""
    package = tmp_path / "src" / "docpkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        textwrap.dedent(
            '''\
            """A package for the test. Its runs go to runs/<name>, see :func:`missing`;
            :class:`Thing` and :func:`os.path.join` name something.

            Example::

                thing = Thing()

            ``term``
                its text, indented below it
            """

            #: the answer, documented by a comment
            ANSWER = 42


            class Thing:
                """A thing (:meth:`go`, :meth:`~docpkg.Thing.go`, :meth:`stop`)."""

                def go(self):
                    """Go."""
            '''
        ),
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "src"), str(ROOT)])}
    out = tmp_path / "api"
    result = build(out, "--module", "docpkg", env=env)
    assert result.returncode == 1, result.stdout + result.stderr
    problems = [line.strip() for line in result.stderr.splitlines()[1:]]
    assert len(problems) == 4, result.stderr
    assert "docpkg (" in problems[0] and "'missing' names nothing" in result.stderr
    assert "docpkg.Thing" in result.stderr and "'stop' names nothing" in result.stderr
    assert "<name> reads as an HTML tag" in result.stderr
    assert "'``term``' has its text indented below it" in result.stderr
    words = text(out / "docpkg.html")  # written all the same, for a look
    assert "ANSWER = 42 the answer, documented by a comment" in words
    assert "Example: thing = Thing()" in words and "::" not in words


def test_refuses_a_folder_that_holds_something_else(tmp_path):
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    result = build(tmp_path)
    assert result.returncode == 2 and "refused" in result.stderr
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_a_public_name_without_a_docstring_fails_the_build(tmp_path):
    """Every public function, class, method and dataclass field of the reference has a
    docstring (a field: a string below it or a ``#:`` comment); a private name, a method
    that overrides a documented one and a re-exported name are not asked for one."""
    package = tmp_path / "src" / "undocpkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        textwrap.dedent(
            '''\
            """A package for the test."""

            from dataclasses import dataclass
            from os.path import join

            __all__ = ["Base", "Child", "Result", "bare", "documented", "join"]


            def bare(x):
                return x


            def documented(x):
                """Documented."""
                return x


            def _private(x):
                return x


            class Base:
                def run(self):
                    return 1

                def ready(self):
                    """Ready."""


            class Child(Base):
                """A child."""

                def ready(self):
                    return True


            @dataclass
            class Result:
                """A result."""

                kept: int
                """Documented below."""
                #: documented above
                noted: int = 0
                loose: int = 0
            '''
        ),
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "src"), str(ROOT)])}
    result = build(tmp_path / "api", "--module", "undocpkg", env=env)
    assert result.returncode == 1, result.stdout + result.stderr
    problems = [line.strip() for line in result.stderr.splitlines()[1:]]
    assert sorted(p.split(":")[0].split(" (")[0] for p in problems) == [
        "undocpkg.Base",
        "undocpkg.Base.run",
        "undocpkg.Result.loose",
        "undocpkg.bare",
    ], result.stderr
    # (a checkout's own names give their file and line besides)
    assert "undocpkg.bare: the public function has no docstring" in result.stderr
    assert "undocpkg.Base: the public class has no docstring" in result.stderr
    assert "undocpkg.Base.run: the public method has no docstring" in result.stderr
    assert "undocpkg.Result.loose: the dataclass field has no docstring" in result.stderr
