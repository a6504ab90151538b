"""A table of baselines per variant to cite: ``burako leaderboard`` and :func:`run`.

    import burako_env

    board = burako_env.leaderboard.run(hands=200, add={"mine": MyAgent()})
    print(board.markdown())
    board.to_json("leaderboard.json")

**What is played.** Per variant (argentine by default), every built-in agent
(:data:`BUILTINS`: ``random``, ``greedy``, ``discard_table`` and its relatives
``discard_table:cautious`` / ``discard_table:thrifty``, ``pimc``, ``ppo_search``, the
shipped ``ppo`` where a policy ships for the table, ``openspiel_ismcts`` where its extra
is installed) and every added one meets each agent of a fixed pool (:data:`POOL`:
``random``, ``greedy``, ``discard_table``) on the deals of one seed. Each pairing is one
:func:`burako_env.evaluate` of the agent against that opponent (``pairings="first"``:
every deal played twice, seats swapped), so a cell of the table is what ``burako
tournament AGENT OPPONENT --hands H --seed S --variant V`` prints, game for game. The
pool's agents meet each other once. An agent the table cannot seat (no shipped policy
for ``ppo`` / ``ppo_search`` at this table, the ``openspiel`` extra missing) is skipped
with a note saying why; an added agent that cannot play is an error, before any game.

**Budgets.** ``hands`` per pairing (default :data:`HANDS`), and ``search_hands``
(default :data:`SEARCH_HANDS`) for the agents that search the game at every decision
(they decide :class:`~burako_env.agents.base.PerGame`: ``pimc``, ``ppo_search``,
``openspiel_ismcts``, or an added agent that does): a search costs tens to hundreds of
milliseconds a decision, a heuristic microseconds. The table says which budget each row
had. The defaults take about twelve minutes of CPU for argentine, as estimated from the
run of docs/LEADERBOARD.md on the project's 2-core machine: ``openspiel_ismcts``'s 30
hands are most of it (about 20 CPU-seconds a hand), the nine heuristic pairings take
seconds, ``ppo``'s three about ten. The built-in searches play with ``budget_ms=0`` (no
wall-clock bound), so that a seed plays the same games on any machine.

**Results.** Per pairing, the win rate (ties half) with its 95% Wilson interval
(:func:`~burako_env.agents.tournament_results.wilson`) and the mean score margin; per
agent, a rating on the Elo scale, the Bradley-Terry fit of every pairing's counts
(:func:`~burako_env.agents.tournament_results.bradley_terry`, mean 1500, with its
standard error). The pool anchors the scale: every agent is rated from its games
against the same pool, so adding an agent moves the others' ratings only through the
pool's (a little).

**Compute per decision.** A pairing's ``decisions`` are the actions its games took, every
seat's (both sides': the table's ``n_actions``, summed by
:func:`~burako_env.agents.tournament.run_tournament` into the pairing's ``decisions``),
and its ``cpu_seconds`` the CPU time of this process while it played
(:func:`time.process_time`: every thread, numba's and torch's), less the CPU time spent
compiling kernels (numba's compile events: :func:`cpu_without_compile`). Before its first
pairing each agent that does not search plays two hands against itself, neither kept
nor timed (:func:`warm_up`): its kernels and policy are loaded, so that a second of
loading is not spread over microsecond decisions. An agent's ``CPU ms / decision`` is
the sum of the CPU time of its pairings against the pool over the sum of their
decisions (a pool agent's games against the other agents are left out: they would bill
it a search's cost). Both sides' decisions are in it: it is the cost of a decision in
the agent's games. Against the
pool's heuristics (microseconds a decision) a costly agent's own decisions, about half
of the count, take nearly all the time, so its cost per decision of its own is about
twice the figure. With ``ray=True`` the games play in other processes: the CPU time is
then the pairing's ``seconds`` (the Ray tasks' wall time, one thread each). CPU time is
what other jobs on a shared machine inflate least; the wall time of the games
(``seconds``, compiling left out) is kept beside it.

**Resumable.** With ``cache`` (``burako leaderboard`` keeps it beside ``--out``:
``leaderboard.pairings.jsonl`` for ``leaderboard.json``), every pairing's result is
appended to the cache as it finishes. A rerun with the same settings (the variant's
rules, players, seed, episode, the pairing's hands, the agent's settings and, for
``ppo:PATH``, the policy file's contents, the package's version) takes each finished
pairing from the cache and plays only the others: an interrupted run goes on where it
stopped. An agent given as a Python object is known by its name and class: give it
another name when its code or weights change.

**Best responses.** ``exploits`` (``burako leaderboard --exploit RUN/exploit.json``)
puts on each agent's row what a best response trained against it by ``burako exploit``
won (:mod:`burako_env.training.exploit`, docs/EXPLOIT.md): its final win rate against the
agent with its interval, and the env steps it trained. It is an approximate
exploitability, a lower bound at that budget, measured apart from the table's pairings
(another run, its own deals): the report is read, checked (:func:`read_exploit`) and
shown, never played again. A report names its agent, variant and players; it sits on
the row of that name at that table.

**Determinism.** The same seed and budgets give the same results; only
:data:`TIMING_FIELDS` (the timings and the date) differ from run to run on one machine.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import platform
import textwrap
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from burako_env.evaluation import EVAL_SEED

#: the pool every agent meets: the three heuristics, from the weakest
POOL = ("random", "greedy", "discard_table")
#: the built-in agents, a row each: the name the table shows, and the agent's settings.
#: The searches have no wall-clock bound (``budget_ms=0``): the same games on any machine
BUILTINS: dict[str, str] = {
    "random": "random",
    "greedy": "greedy",
    "discard_table": "discard_table",
    "discard_table:cautious": "discard_table:cautious",
    "discard_table:thrifty": "discard_table:thrifty",
    "ppo": "ppo",
    "pimc": "pimc:budget_ms=0",
    "ppo_search": "ppo_search:budget_ms=0",
    "openspiel_ismcts": "openspiel_ismcts",
}
#: hands per pairing by default (each deal played twice, seats swapped)
HANDS = 1000
#: hands per pairing by default of the agents that search at every decision
SEARCH_HANDS = 10
#: the fields that differ from run to run with the same settings: the timings and the date
TIMING_FIELDS = ("seconds", "cpu_seconds", "cpu_ms_per_decision", "compile_seconds", "created")
#: hands of an agent's warm-up, against itself, before its first pairing (:func:`warm_up`)
WARM_UP_HANDS = 2
#: the version of the JSON written (:meth:`Leaderboard.to_dict`) and of the cache's lines
FORMAT = 1


@dataclass(frozen=True)
class Entry:
    """One row: ``name`` (what the table shows), ``player`` (what
    :func:`burako_env.evaluate` takes: an agent's name and settings, an Agent, a model,
    a function), ``search`` (it gets the search budget) and ``identity`` (what the cache
    knows it by)."""

    #: the name on the board
    name: str
    #: the agent, or its name for the registry
    player: Any
    #: it searches at every move (played ``search_hands`` hands)
    search: bool
    #: what the cache keys it by (its settings; a policy file's sha256)
    identity: str
    #: given with ``--add`` (played through ``evaluate``)
    added: bool = False


@dataclass
class Skipped:
    """A built-in agent this table cannot seat, and why."""

    #: the built-in agent left out
    name: str
    #: why it cannot sit at this table
    why: str


@dataclass
class VariantBoard:
    """One variant's table: its rows (``agents``, by rating), the pairings as played,
    and the agents skipped."""

    #: the variant's name
    variant: str
    #: players at the table
    num_players: int
    #: one row per agent: Elo, intervals, CPU per decision
    agents: list[dict]
    #: one row per pairing played
    pairings: list[dict]
    #: the built-ins left out, with why
    skipped: list[Skipped] = field(default_factory=list)


@dataclass
class Leaderboard:
    """The tables of :func:`run`, and what made them (``command``, ``machine``, the
    budgets and the seed)."""

    #: one board per variant
    boards: list[VariantBoard]
    #: the agents every agent meets
    pool: list[str]
    #: hands per pairing
    hands: int
    #: hands per pairing of a search agent
    search_hands: int
    #: the deals' seed
    seed: int
    #: ``hand`` or ``match``
    episode: str
    #: the command that made it
    command: str
    #: where it was measured (CPU, cores, Python, versions)
    machine: dict
    #: when it was made (UTC)
    created: str
    #: pairings played by this run (the others came from the cache)
    played: int = 0
    #: pairings taken from the cache
    cached: int = 0

    def to_dict(self) -> dict:
        """Everything, as JSON types (:data:`TIMING_FIELDS`, ``created`` and ``machine``
        are the parts that change from run to run)."""
        return {
            "format": FORMAT,
            "command": self.command,
            "created": self.created,
            "machine": self.machine,
            "seed": self.seed,
            "episode": self.episode,
            "pool": list(self.pool),
            "hands": self.hands,
            "search_hands": self.search_hands,
            "variants": [
                {
                    "variant": b.variant,
                    "num_players": b.num_players,
                    "agents": b.agents,
                    "pairings": b.pairings,
                    "skipped": [{"name": s.name, "why": s.why} for s in b.skipped],
                }
                for b in self.boards
            ],
        }

    def to_json(self, path: str | Path) -> None:
        """Write :meth:`to_dict` to ``path`` as JSON."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    def markdown(self) -> str:
        """The tables as a Markdown page (docs/LEADERBOARD.md), with the command, the
        budgets, the seed and the machine that made them."""
        m = self.machine
        reduced = ""
        if self.hands < HANDS or self.search_hands < SEARCH_HANDS:
            reduced = (
                f" A reduced budget: the command's defaults are {HANDS} and {SEARCH_HANDS}, "
                "and the intervals say how far the figures can be trusted."
            )
        about = (
            "Baselines to cite: every agent against a fixed pool "
            f"({', '.join(f'`{p}`' for p in self.pool)}) on the deals of seed {self.seed}, "
            "each deal played twice with the seats swapped. Win rates count ties half, with "
            "95% Wilson intervals; Elo is the Bradley-Terry fit of every pairing's counts "
            "(mean 1500, ± its 95% interval). A cell is what `burako tournament AGENT "
            f"OPPONENT --hands H --seed {self.seed} --variant V` prints, AGENT's settings "
            "as listed under its table. CPU ms / decision: the process's CPU time over the "
            "decisions of every seat in the agent's games, compiling left out "
            "(`burako_env/leaderboard.py` says how it is measured)."
        )
        budget = (
            f"Budget: {self.hands} hands per pairing; {self.search_hands} for the search "
            f"agents (marked \\*).{reduced} Episode: {self.episode}. Machine: "
            f"{m.get('system', '?')} {m.get('machine', '')}, {m.get('cpus', '?')} CPUs, "
            f"Python {m.get('python', '?')}, numba {m.get('numba', '?')}, burako "
            f"{m.get('burako', '?')}, on {self.created}."
        )
        yours = (
            "Your agent on the board: `burako leaderboard --add mine=ppo:PATH` (or "
            "`--add mine=SPEC`, any agent's name and settings), or "
            '`burako_env.leaderboard.run(add={"mine": agent})` in Python; with the same '
            "settings the pairings above come from the cache beside `--out` and only "
            "yours are played."
        )
        lines = [
            "# Leaderboard",
            "",
            _fill(about),
            "",
            "Generated by:",
            "",
            "```bash",
            self.command,
            "```",
            "",
            _fill(budget),
            "",
            _fill(yours),
        ]
        for b in self.boards:
            lines += ["", f"## {b.variant}, {b.num_players} players", ""]
            responses = any("exploit" in row for row in b.agents)
            head = ["agent", "Elo", *(f"vs {p}" for p in self.pool), "hands", "CPU ms / decision"]
            head += ["best response"] if responses else []
            lines.append("| " + " | ".join(head) + " |")
            lines.append("|" + "|".join([":---"] + ["---:"] * (len(head) - 1)) + "|")
            for row in b.agents:
                name = f"`{row['name']}`" + (" \\*" if row["search"] else "")
                cells = [name, f"{row['elo']:.0f} ± {row['elo_ci95']:.0f}"]
                for p in self.pool:
                    cell = row["vs"].get(p)
                    cells.append(
                        "–"
                        if cell is None
                        else f"{cell['win_rate']:.3f} [{cell['ci_low']:.3f}, {cell['ci_high']:.3f}]"
                    )
                cells.append(str(row["hands"]))
                cost = row["cpu_ms_per_decision"]
                cells.append("–" if cost is None else f"{cost:.3g}")
                if responses:
                    cells.append(exploit_text(row.get("exploit")))
                lines.append("| " + " | ".join(cells) + " |")
            if any(row["search"] for row in b.agents):
                note = (
                    f"\\* search agent: {self.search_hands} hands per pairing. Its own "
                    "decisions, about half of its games', take nearly all their CPU time: "
                    "its cost per decision of its own is about twice the figure."
                )
                lines += ["", _fill(note)]
            if responses:
                note = (
                    "Best response: the win rate against the agent (ties half, 95% Wilson "
                    "interval) of a policy that `burako exploit AGENT` trained against it "
                    "for the env steps shown (docs/EXPLOIT.md), on its own final evaluation "
                    "(hands: "
                    + ", ".join(
                        f"`{row['name']}` {row['exploit']['hands']}"
                        for row in b.agents
                        if "exploit" in row
                    )
                    + "). An approximate exploitability: a lower bound at that budget, not "
                    "replayed by this command (reports: "
                    + ", ".join(
                        f"`{row['exploit']['source']}`" for row in b.agents if "exploit" in row
                    )
                    + ")."
                )
                lines += ["", _fill(note)]
            for s in b.skipped:
                lines += ["", f"Skipped: `{s.name}` ({s.why})."]
            specs = [f"`{row['name']}` = `{row['player']}`" for row in b.agents]
            lines += ["", _fill("Agents' settings: " + ", ".join(specs) + ".")]
        return "\n".join(lines) + "\n"

    def table(self) -> str:
        """The tables as plain text, for a terminal."""
        out = []
        for b in self.boards:
            out.append(
                f"{b.variant}, {b.num_players} players, seed {self.seed}: {self.hands} hands "
                f"per pairing ({self.search_hands} for search agents, *)"
            )
            width = max(24, *(len(r["name"]) + 2 for r in b.agents))
            head = f"{'agent':<{width}} {'elo':>6} {'±95%':>5}"
            head += "".join(f" {'vs ' + p:>16}" for p in self.pool)
            responses = any("exploit" in row for row in b.agents)
            head += f" {'hands':>6} {'CPU ms/dec':>10}"
            out.append(head + (f" {'best response':>24}" if responses else ""))
            for row in b.agents:
                label = row["name"] + (" *" if row["search"] else "")
                line = f"{label:<{width}} {row['elo']:>6.0f} {row['elo_ci95']:>5.0f}"
                for p in self.pool:
                    cell = row["vs"].get(p)
                    line += f" {'–' if cell is None else format(cell['win_rate'], '.3f'):>16}"
                cost = row["cpu_ms_per_decision"]
                line += f" {row['hands']:>6} {'–' if cost is None else format(cost, '.3g'):>10}"
                if responses:
                    line += f" {exploit_text(row.get('exploit'), brief=True):>24}"
                out.append(line)
            out += [f"skipped {s.name}: {s.why}" for s in b.skipped]
            out.append("")
        return "\n".join(out).rstrip("\n")


def exploit_text(exploit: dict | None, brief: bool = False) -> str:
    """A best response's cell: ``0.293 [0.273, 0.313], 4.0 M steps`` (``brief``: the
    interval left out), ``–`` where none was measured."""
    if exploit is None:
        return "–"
    steps = exploit["env_steps"]
    budget = f"{steps / 1e6:.1f} M" if steps >= 100_000 else f"{steps:,}"
    interval = "" if brief else f" [{exploit['ci_low']:.3f}, {exploit['ci_high']:.3f}]"
    return f"{exploit['win_rate']:.3f}{interval}, {budget} steps"


def _fill(text: str) -> str:
    """A paragraph of the Markdown page, wrapped (never inside a word or a flag)."""
    return textwrap.fill(text, 88, break_long_words=False, break_on_hyphens=False)


# ---------------------------------------------------------------------------- entries
def _file_digest(path: str) -> str:
    from burako_env.records import file_sha256  # the core loads when a file is hashed

    return file_sha256(path)[:16]


def _identity(player: Any) -> str:
    """What the cache knows a player by: its settings (and, for ``ppo:PATH``, the
    file's contents), or an object's class."""
    if isinstance(player, str):
        if player.startswith("ppo:") and os.path.isfile(player[4:]):
            return f"{player}@sha256:{_file_digest(player[4:])}"
        return player
    kind = type(player)
    return f"{kind.__module__}.{kind.__qualname__}:{getattr(player, 'name', '')}"


def _searches(agent) -> bool:
    """A search: it decides from the game itself (the table's own test)."""
    from burako_env.table import needs_game

    return needs_game(agent)


def parse_add(text: str) -> tuple[str, str]:
    """``NAME=SPEC`` (``burako leaderboard --add``) -> ``(NAME, SPEC)``; a ValueError
    saying what the form is otherwise."""
    name, sep, spec = text.partition("=")
    name, spec = name.strip(), spec.strip()
    if not sep or not name or not spec:
        raise ValueError(
            f"--add takes NAME=SPEC, e.g. mine=ppo:runs/x/policy.pt or "
            f"careful=discard_table:cautious; got {text!r}"
        )
    return name, spec


def entries(
    table,
    #: the deals' seed
    seed: int,
    #: the agents every agent meets
    pool: Iterable[str] = POOL,
    builtins: Iterable[str] | None = None,
    add: Mapping[str, Any] | None = None,
) -> tuple[list[Entry], list[Skipped]]:
    """The rows of ``table`` (a :class:`~burako_env.variants.Variant`): the pool, the
    ``builtins`` (names of :data:`BUILTINS`, default all) and the ``add`` ones, each
    checked against the table. A built-in that cannot be seated here (no shipped policy,
    an extra missing) is skipped with the reason; an added one is a ValueError naming it
    (what the CLI prints as ``error: ...``)."""
    from burako_env.evaluation import as_agent
    from burako_env.extras import MissingExtra

    pool = list(pool)
    chosen = list(BUILTINS) if builtins is None else list(builtins)
    for name in chosen:
        if name not in BUILTINS:
            raise ValueError(f"unknown built-in agent {name!r}; known: {', '.join(BUILTINS)}")
    rows: list[tuple[str, Any, bool]] = [(p, BUILTINS.get(p, p), False) for p in pool]
    rows += [(n, BUILTINS[n], False) for n in chosen if n not in pool]
    for name, player in (add or {}).items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"an added agent needs a name, got {name!r}")
        if any(name == r[0] for r in rows):
            raise ValueError(f"agent name {name!r} is taken: give the added agent another")
        rows.append((name, player, True))
    out: list[Entry] = []
    skipped: list[Skipped] = []
    for name, player, added in rows:
        try:
            agent = as_agent(player, table, seed)
            agent.check_table(table)
        except (ValueError, OSError, MissingExtra, TypeError) as exc:
            if added or name in pool:
                raise ValueError(f"agent {name!r}: {exc}") from exc
            skipped.append(Skipped(name, str(exc)))
            continue
        out.append(Entry(name, player, _searches(agent), _identity(player), added))
    return out, skipped


def pairings(rows: list[Entry], pool: list[str]) -> list[tuple[Entry, str]]:
    """Who meets whom: each row against each pool agent but itself, the pool's agents
    each other once (the earlier in the pool on the first side)."""
    out = []
    for row in rows:
        for k, opponent in enumerate(pool):
            if row.name == opponent or (row.name in pool and pool.index(row.name) > k):
                continue
            out.append((row, opponent))
    return out


# ---------------------------------------------------------------------------- the cache
def _rules_digest(table) -> str:
    text = json.dumps(table.to_dict(), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def pairing_key(table, row: Entry, opponent: Entry, hands: int, seed: int, episode: str) -> dict:
    """Everything that fixes a pairing's games: equal keys, equal games."""
    from burako_env import __version__

    return {
        "format": FORMAT,
        "burako": __version__,
        "variant": table.name,
        "num_players": table.num_players,
        "rules": _rules_digest(table),
        "seed": seed,
        "episode": episode,
        "hands": hands,
        "agent": row.name,
        "player": row.identity,
        "opponent": opponent.name,
        "opponent_player": opponent.identity,
    }


def read_cache(path: str | Path | None) -> list[dict]:
    """The cache's finished pairings (``{"key": ..., "result": ...}``); a line cut short
    by a killed run, or not one of ours, is passed over."""
    if path is None or not Path(path).is_file():
        return []
    from burako_env.limits import MAX_RECORD_LINE_BYTES

    found = []
    with open(path, "rb") as f:
        while line := f.readline(MAX_RECORD_LINE_BYTES):
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict) and isinstance(item.get("key"), dict) and "result" in item:
                found.append(item)
    return found


def _append_cache(path: Path, item: dict) -> None:
    """One finished pairing, as one line, on disk before the next pairing starts."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab+") as f:
        f.seek(0, os.SEEK_END)
        if f.tell() > 0:  # a line cut short by a killed run: end it, it is passed over
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                f.write(b"\n")
        f.write((json.dumps(item, sort_keys=True) + "\n").encode())
        f.flush()
        os.fsync(f.fileno())


def cache_path(out: str | Path) -> Path:
    """Where ``burako leaderboard --out OUT`` keeps its pairings: beside OUT,
    ``leaderboard.pairings.jsonl`` for ``leaderboard.json``."""
    out = Path(out)
    return out.with_name(f"{out.stem}.pairings.jsonl")


# ---------------------------------------------------------------------------- playing
@contextlib.contextmanager
def cpu_without_compile() -> Iterator[dict]:
    """Time a block in CPU: yields a dict whose ``cpu_seconds`` (this process's CPU time,
    every thread, less the CPU time spent compiling kernels inside the block) is set when
    the block ends. numba fires ``numba:compile`` around each compile (none on a cache
    hit, none without the JIT); a compile holds numba's lock, and the threads that wait
    for it spend no CPU. (The tournament's ``compile_seconds`` are wall seconds: on a
    busy machine a compile's wall time is several times its CPU time.)"""
    timing: dict = {}
    compiling = {"depth": 0, "started": 0.0, "cpu": 0.0}
    listen = contextlib.nullcontext()
    try:
        from numba.core import event
    except ImportError:  # a numba without compile events: nothing to leave out
        event = None
    if event is not None and hasattr(event, "install_listener"):

        class CompileCpu(event.Listener):
            def on_start(self, ev) -> None:
                if compiling["depth"] == 0:
                    compiling["started"] = time.process_time()
                compiling["depth"] += 1

            def on_end(self, ev) -> None:
                compiling["depth"] = max(0, compiling["depth"] - 1)
                if compiling["depth"] == 0:
                    compiling["cpu"] += time.process_time() - compiling["started"]

        listen = event.install_listener("numba:compile", CompileCpu())
    start = time.process_time()
    try:
        with listen:
            yield timing
    finally:
        spent = time.process_time() - start
        timing["cpu_seconds"] = max(0.0, spent - compiling["cpu"])
        timing["compile_cpu_seconds"] = min(spent, compiling["cpu"])


def warm_up(table, row: Entry, seed: int, episode: str, workers: int) -> None:
    """:data:`WARM_UP_HANDS` hands of ``row`` against itself, neither kept nor timed:
    the kernels it calls are loaded from the cache (or compiled) and its policy's first
    call is made, so that the CPU time of its first pairing is its games' (a second of
    loading spread over microsecond decisions would count several times their cost). A
    search is not warmed up: its decisions cost a thousand times more than the loading."""
    from burako_env.evaluation import evaluate

    evaluate(
        row.player,
        [row.player],
        hands=WARM_UP_HANDS,
        seed=seed,
        variant=table,
        episode=episode,
        workers=workers,
    )


def play_pairing(
    table,
    row: Entry,
    opponent: Entry,
    #: hands per pairing
    hands: int,
    #: the deals' seed
    seed: int,
    #: ``hand`` or ``match``
    episode: str,
    workers: int,
    ray: bool = False,
    ray_address: str | None = None,
    progress: bool = False,
) -> dict:
    """One pairing, ``row`` against ``opponent`` through :func:`burako_env.evaluate`: its
    results from ``row``'s side, with its decisions and CPU time."""
    from burako_env.evaluation import evaluate

    on_ray = ray or ray_address is not None
    with cpu_without_compile() as cpu:
        res = evaluate(
            row.player,
            [opponent.player],
            hands=hands,
            seed=seed,
            variant=table,
            episode=episode,
            workers=workers,
            progress=progress,
            ray=on_ray,
            ray_address=ray_address,
        )
    p = res.pairings[0]
    # on Ray the games run in other processes: their tasks' seconds, one thread each
    cpu_seconds = p.seconds if on_ray else cpu["cpu_seconds"]
    return {
        "agent": row.name,
        "opponent": opponent.name,
        "hands": p.hands,
        "wins": p.wins,
        "losses": p.losses,
        "ties": p.ties,
        "win_rate": p.win_rate,
        "ci_low": p.ci_low,
        "ci_high": p.ci_high,
        "mean_margin": p.mean_margin,
        "margin_se": p.margin_se,
        "decisions": p.decisions,
        "seconds": p.seconds,
        "cpu_seconds": cpu_seconds,
        "cpu_measure": "ray task seconds" if on_ray else "process time",
        "compile_seconds": res.compile_seconds,
    }


def _flip(result: dict) -> dict:
    """A pairing's result from the other side."""
    return {
        **result,
        "agent": result["opponent"],
        "opponent": result["agent"],
        "wins": result["losses"],
        "losses": result["wins"],
        "win_rate": 1 - result["win_rate"],
        "ci_low": 1 - result["ci_high"],
        "ci_high": 1 - result["ci_low"],
        "mean_margin": -result["mean_margin"],
    }


#: what a row shows of a best response's report (``burako exploit``'s ``final``)
EXPLOIT_FIELDS = ("win_rate", "ci_low", "ci_high", "margin", "hands")


def read_exploit(source: str | Path | Mapping[str, Any]) -> dict:
    """A best response's report (``burako exploit``'s ``RUN/exploit.json``, a path, or
    the dict :func:`burako_env.training.exploit.exploit` returns), checked: what the
    board shows of it (``agent``, ``variant``, ``num_players``, ``env_steps`` trained,
    the final evaluation's :data:`EXPLOIT_FIELDS`) and ``source`` (the file, or
    ``"python"``). Anything else is a ValueError naming the file and the field."""
    origin = "python"
    where = "the exploit report"
    if not isinstance(source, Mapping):
        origin = str(source)
        where = f"the exploit report {origin!r}"
        try:
            text = Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"cannot read {where}: {exc}") from None
        try:
            source = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"{where} is not JSON ({exc.msg}, line {exc.lineno}): give the exploit.json "
                "that burako exploit wrote"
            ) from None
    if not isinstance(source, Mapping):
        raise ValueError(f"{where} is not a JSON object: give the exploit.json of burako exploit")

    def read(data: Mapping, key: str, kind: type, words: str, name: str | None = None) -> Any:
        value = data.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ValueError(f"{where}: {name or key!r} must be {words}, got {value!r}")
        return value

    final = read(source, "final", dict, "an object (the final evaluation)")
    report = {
        "agent": read(source, "agent", str, "the agent's name"),
        "variant": read(source, "variant", str, "the variant's name"),
        "num_players": read(source, "num_players", int, "a whole number"),
        "env_steps": read(source, "env_steps_trained", int, "a whole number"),
    }
    for key in EXPLOIT_FIELDS:
        value = read(final, key, (int, float), "a number", f"final.{key}")
        if not math.isfinite(value):
            raise ValueError(f"{where}: 'final.{key}' must be a finite number, got {value!r}")
        report[key] = value
    if not 0 <= report["ci_low"] <= report["win_rate"] <= report["ci_high"] <= 1:
        raise ValueError(
            f"{where}: the final win rate and its interval must keep 0 <= ci_low <= "
            f"win_rate <= ci_high <= 1, got {report['ci_low']}, {report['win_rate']}, "
            f"{report['ci_high']}"
        )
    if report["env_steps"] < 0 or report["hands"] < 1 or report["num_players"] < 2:
        raise ValueError(
            f"{where}: env_steps_trained >= 0, final.hands >= 1 and num_players >= 2 are "
            f"expected, got {report['env_steps']}, {report['hands']}, {report['num_players']}"
        )
    report["source"] = origin
    return report


def _check_exploits(reports: list[dict], plans: list) -> None:
    """Each report names one row of one table to be played (by its name or, for an
    ``--add``, its spec), and no row gets two: a ValueError otherwise, before any game."""
    taken: dict[tuple, str] = {}
    for report in reports:
        places = [
            (table.name, table.num_players, row.name)
            for table, rows, _ in plans
            if (table.name, table.num_players) == (report["variant"], report["num_players"])
            for row in rows
            if report["agent"] in (row.name, row.identity)
        ]
        at = f"{report['variant']} {report['num_players']}p"
        if not places:
            raise ValueError(
                f"the exploit report {report['source']} is about {report['agent']} at {at}: "
                "no row of this leaderboard is that agent at that table"
            )
        for place in places:
            if place in taken:
                raise ValueError(
                    f"two exploit reports for {place[2]} at {at} ({taken[place]} and "
                    f"{report['source']}): give one"
                )
            taken[place] = report["source"]


def _attach_exploits(board: VariantBoard, reports: list[dict]) -> None:
    """Each report on the row of its agent at this board's table (its name, or the spec
    an ``--add`` gave it; :func:`_check_exploits` has checked that each has one)."""
    for report in reports:
        if (report["variant"], report["num_players"]) != (board.variant, board.num_players):
            continue
        for row in board.agents:
            if report["agent"] not in (row["name"], row["player"]):
                continue
            row["exploit"] = {
                k: v for k, v in report.items() if k not in ("agent", "variant", "num_players")
            }


def _rows(rows: list[Entry], played: list[dict], pool: list[str]) -> list[dict]:
    """Per agent: its rating, its results against each pool agent, its budget and cost."""
    import numpy as np

    from burako_env.agents.tournament_results import Z95, bradley_terry

    names = [r.name for r in rows]
    index = {n: k for k, n in enumerate(names)}
    ratings = bradley_terry(
        names,
        [(index[p["agent"]], index[p["opponent"]]) for p in played],
        *(np.array([p[f] for p in played], np.int64) for f in ("wins", "losses", "ties")),
    )
    out = []
    for r in rows:
        mine = [p for p in played if p["agent"] == r.name] + [
            _flip(p) for p in played if p["opponent"] == r.name
        ]
        # against the pool only: a pool agent's games against a search would bill it the
        # search's cost
        against_pool = [p for p in mine if p["opponent"] in pool]
        vs = {p["opponent"]: p for p in against_pool}
        decisions = sum(p["decisions"] for p in against_pool)
        cpu = sum(p["cpu_seconds"] for p in against_pool)
        out.append(
            {
                "name": r.name,
                "player": r.identity,
                "search": r.search,
                "added": r.added,
                "elo": ratings[r.name]["elo"],
                "elo_se": ratings[r.name]["se"],
                "elo_ci95": Z95 * ratings[r.name]["se"],  # half the 95% interval's width
                "hands": max((p["hands"] for p in against_pool), default=0),
                "decisions": decisions,
                "cpu_seconds": cpu,
                "cpu_ms_per_decision": 1000 * cpu / decisions if decisions else None,
                "vs": {
                    p: {
                        k: vs[p][k]
                        for k in (
                            "hands",
                            "wins",
                            "losses",
                            "ties",
                            "win_rate",
                            "ci_low",
                            "ci_high",
                            "mean_margin",
                            "margin_se",
                        )
                    }
                    for p in pool
                    if p in vs
                },
            }
        )
    out.sort(key=lambda row: (-row["elo"], row["name"]))
    return out


def _machine() -> dict:
    import numba

    from burako_env import __version__

    return {
        "system": platform.system(),
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "numba": numba.__version__,
        "burako": __version__,
    }


def _budget(name: str, value: int) -> int:
    from burako_env.limits import MAX_TOURNAMENT_HANDS

    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value:
        raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")
    if value > MAX_TOURNAMENT_HANDS:
        raise ValueError(f"{name} must be at most {MAX_TOURNAMENT_HANDS}, got {value}")
    # a deal is played twice, seats swapped: an odd budget is rounded up (run_tournament)
    return 2 * math.ceil(value / 2)


def run(
    variants: str | Iterable[str] = ("argentine",),
    num_players: int | None = None,
    *,
    add: Mapping[str, Any] | None = None,
    builtins: Iterable[str] | None = None,
    #: the agents every agent meets
    pool: Iterable[str] = POOL,
    #: hands per pairing
    hands: int = HANDS,
    #: hands per pairing of a search agent
    search_hands: int = SEARCH_HANDS,
    #: the deals' seed
    seed: int = EVAL_SEED,
    #: ``hand`` or ``match``
    episode: str = "hand",
    workers: int = 2,
    cache: str | Path | None = None,
    ray: bool = False,
    ray_address: str | None = None,
    progress: bool = False,
    #: the command that made it
    command: str | None = None,
    log: Callable[[str], None] | None = None,
    #: best responses' reports (``burako exploit``'s ``exploit.json``) shown on the rows
    exploits: Iterable[str | Path | Mapping[str, Any]] = (),
) -> Leaderboard:
    """The leaderboard of ``variants`` (names or YAML paths; ``VARIANT_NAMES`` for all
    four) at ``num_players`` (default each variant's own): the built-in agents
    (``builtins``: names of :data:`BUILTINS`, default all) and ``add`` (name -> anything
    :func:`burako_env.evaluate` takes: ``"ppo:PATH"``, ``"discard_table:cautious"``, an
    Agent, a model, a function) against ``pool``, ``hands`` hands per pairing
    (``search_hands`` for the agents that search), on the deals of ``seed`` (see the
    module doc).

    ``cache``: a JSON-lines file of finished pairings, read first and appended to as each
    pairing finishes (a rerun plays only what is missing). ``ray`` / ``ray_address``:
    play on Ray (:func:`~burako_env.agents.tournament.run_tournament`'s). ``command``:
    what the outputs say made them (default: this call). ``log``: called with a line as
    each pairing starts or comes from the cache. ``exploits``: best responses' reports
    (:func:`read_exploit`), each shown on its agent's row. Every agent, setting and
    report is checked before any game: a ValueError says what is wrong."""
    from burako_env.variants import load_variant

    hands = _budget("hands", hands)
    search_hands = _budget("search_hands", search_hands)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a whole number of 0 or more, got {seed!r}")
    if episode not in ("hand", "match"):
        raise ValueError(f"episode must be hand or match, got {episode!r}")
    pool = list(pool)
    if not pool or len(set(pool)) != len(pool):
        raise ValueError(f"the pool needs at least one agent, each once; got {pool}")
    if isinstance(variants, (str, Path)):
        variants = [variants]
    variants = list(variants)
    if not variants:
        raise ValueError("a leaderboard needs at least one variant")
    say = log or (lambda line: None)
    on_ray = ray or ray_address is not None
    reports = [read_exploit(report) for report in exploits]
    # every table and agent first: a bad one is an error before any game or cache line
    plans = []
    for variant in variants:
        table = load_variant(variant, num_players=num_players)
        rows, skipped = entries(table, seed, pool, builtins, add)
        plans.append((table, rows, skipped))
    _check_exploits(reports, plans)
    done = {json.dumps(item["key"], sort_keys=True): item["result"] for item in read_cache(cache)}
    boards = []
    played = cached = 0
    for table, rows, skipped in plans:
        by_name = {r.name: r for r in rows}
        results = []
        warm: set[str] = set()
        for row, opponent_name in pairings(rows, pool):
            opponent = by_name[opponent_name]
            budget = search_hands if row.search or opponent.search else hands
            key = pairing_key(table, row, opponent, budget, seed, episode)
            text = json.dumps(key, sort_keys=True)
            where = f"{table.name} {table.num_players}p: {row.name} vs {opponent.name}"
            if text in done:
                say(f"{where}: from the cache")
                results.append(done[text])
                cached += 1
                continue
            say(f"{where}: {budget} hands")
            for agent in (row, opponent):
                # on Ray the games play elsewhere: nothing to warm up here
                if agent.name not in warm and not agent.search and not on_ray:
                    warm_up(table, agent, seed, episode, workers)
                warm.add(agent.name)
            result = play_pairing(
                table, row, opponent, budget, seed, episode, workers, ray, ray_address, progress
            )
            if cache is not None:
                _append_cache(Path(cache), {"key": key, "result": result})
            done[text] = result
            results.append(result)
            played += 1
        board = VariantBoard(
            table.name, table.num_players, _rows(rows, results, pool), results, skipped
        )
        _attach_exploits(board, reports)
        boards.append(board)
    return Leaderboard(
        boards=boards,
        pool=pool,
        hands=hands,
        search_hands=search_hands,
        seed=seed,
        episode=episode,
        command=command or _call_text(variants, num_players, hands, search_hands, seed, add),
        machine=_machine(),
        created=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        played=played,
        cached=cached,
    )


def _call_text(variants, num_players, hands, search_hands, seed, add) -> str:
    args = [f"{list(variants)!r}", f"hands={hands}", f"search_hands={search_hands}", f"seed={seed}"]
    if num_players is not None:
        args.insert(1, f"num_players={num_players}")
    if add:
        args.append(f"add={{{', '.join(repr(n) + ': ...' for n in add)}}}")
    return f"burako_env.leaderboard.run({', '.join(args)})"


__all__ = [
    "BUILTINS",
    "FORMAT",
    "HANDS",
    "POOL",
    "SEARCH_HANDS",
    "TIMING_FIELDS",
    "WARM_UP_HANDS",
    "Entry",
    "Leaderboard",
    "Skipped",
    "VariantBoard",
    "EXPLOIT_FIELDS",
    "cache_path",
    "entries",
    "pairing_key",
    "pairings",
    "parse_add",
    "play_pairing",
    "read_cache",
    "read_exploit",
    "run",
    "warm_up",
    "cpu_without_compile",
]
