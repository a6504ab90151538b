"""Hand-written mutants of the compiled rules, run against the rule tests (docs/TESTING.md).

    python scripts/tools/rule_mutants.py                  # every mutant
    python scripts/tools/rule_mutants.py --only M07 M12   # some of them
    python scripts/tools/rule_mutants.py --list           # the mutants, nothing run

mutmut cannot mutate the numba-compiled core (it skips decorated functions, and its
trampolines would break numba), so each mutant here is a one-line edit of
``burako_env/core/{rules,melds,scoring}.py``: an operator flipped, an off-by-one, a wrong
constant, a dropped condition. A mutant is applied to a copy of the tree in a temporary
folder (the real files are never touched) and the tests run there, first on the
sys.path, under ``NUMBA_DISABLE_JIT=1``: the rule tests take ~10 s as plain Python,
where an edit of the core would recompile every kernel (a fresh cache folder, 30-60
CPU-s a mutant). A mutant is killed when a test fails (the first failing test is
reported) or when the run passes ``--timeout`` (reported as a timeout: a loop that no
longer ends); it survives when every test passes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # scripts/<folder>/ sits two below the root

#: the tests of the rules: fast as plain Python (NUMBA_DISABLE_JIT=1)
TESTS = (
    "tests/core/test_core_rules.py",
    "tests/core/test_core_rules_end.py",
    "tests/core/test_core_rules_melds.py",
    "tests/core/test_core_rules_muertos.py",
    "tests/core/test_core_rules_scoring.py",
    "tests/core/test_core_rules_turn.py",
    "tests/core/test_core_rules_v1.py",
    "tests/core/test_referee.py",
)


@dataclass(frozen=True)
class Mutant:
    id: str
    file: str  # under burako_env/core/
    old: str  # must occur exactly once in the file
    new: str
    what: str


#: one block a mutant: ``ID file: what it breaks``, the text replaced (``- `` lines, which
#: must occur exactly once in the file) and its replacement (``+ `` lines)
TABLE = """
M01 melds.py: 2s are not wild
- return c == JOKER or c % NUM_RANKS == RANK_TWO
+ return c == JOKER

M02 melds.py: card value: an 8 scores as a low card (off by one)
-     if r <= 6:
+     if r <= 7:

M03 melds.py: a canasta of 6 cards
- return row[MF_SIZE] >= 7
+ return row[MF_SIZE] >= 6

M04 melds.py: a wild group counts as clean
- return row[MF_KIND] != MELD_WILD_GROUP and row[MF_WILD] < 0
+ return row[MF_WILD] < 0

M05 melds.py: a meld closes one card late
- return max_meld > 0 and row[MF_SIZE] >= max_meld
+ return max_meld > 0 and row[MF_SIZE] > max_meld

M06 melds.py: normalize_run_nb: a suited 2 in the gap at position 2 stays wild
-     if row[MF_GAP] == 2:
+     if row[MF_GAP] == 3:

M07 melds.py: build_run_nb: a wild in the gap counted twice in the size
- row[MF_SIZE] = hi - lo + 1 + (1 if wild >= 0 and gap == 0 else 0)
+ row[MF_SIZE] = hi - lo + 1 + (1 if wild >= 0 else 0)

M08 melds.py: _place_natural_nb: the gap filled when the wild has no place left
-         if span > 13:  #
+         if span > 14:  #

M09 melds.py: a run with a floating wild grows to 15
- if span + 1 > (13 if floating else 14):
+ if span + 1 > (14 if floating else 14):

M10 melds.py: a second wild added to a group
- elif wild and row[MF_WILD] < 0:
-             out[MF_WILD] = c
+ elif wild:
+             out[MF_WILD] = c

M11 melds.py: a wild added to a run of 14 naturals
- if row[MF_HI] - row[MF_LO] + 1 > 13:
+ if row[MF_HI] - row[MF_LO] + 1 > 14:

M12 melds.py: row_value_nb: the gap (the wild's place) scored as a natural
-             if pos != row[MF_GAP]:
-                 total +=
+             if True:
+                 total +=

M13 melds.py: row_add_counts_nb: jokers never removed
- counts[JOKER] += sign * row[MF_NJOKER]
+ counts[JOKER] += row[MF_NJOKER]

S01 scoring.py: a clean canasta of aces scores the dirty aces bonus
- return params[P_CLEAN_ACES] if aces else params[P_CLEAN_CANASTA]
+ return params[P_DIRTY_ACES] if aces else params[P_CLEAN_CANASTA]

S02 scoring.py: a run of suit 0 scores as a canasta of aces
- aces = row[MF_KIND] == MELD_GROUP and row[MF_KEY] == RANK_ACE
+ aces = row[MF_KEY] == RANK_ACE

S03 scoring.py: hand value: the other team's hands counted
- for p in range(t, params[P_NUM_PLAYERS], 2):
+ for p in range(t, params[P_NUM_PLAYERS], 1):

S04 scoring.py: a pending muerto added to the hand value
- total -= card_value_nb(np.int64(st.muertos[b, t, m, i]), params)
+ total += card_value_nb(np.int64(st.muertos[b, t, m, i]), params)

S05 scoring.py: a muerto that became the stock is not 'not taken'
-  or status == MUERTO_STOCK:
+ :

S06 scoring.py: both teams score going out
- params[P_GOING_OUT] if went_out == t else 0
+ params[P_GOING_OUT] if went_out >= 0 else 0

S07 scoring.py: rule 6 only when team 1 goes out
- rule6 = went_out >= 0 and not has_canasta[went_out]
+ rule6 = went_out > 0 and not has_canasta[went_out]

S08 scoring.py: canasta card points inverted
- if params[P_CANASTA_CARD_POINTS]:
+ if not params[P_CANASTA_CARD_POINTS]:

R01 rules.py: next_muerto_nb: the last muerto never found
-     for m in range(params[P_MUERTOS]):
+     for m in range(params[P_MUERTOS] - 1):

R02 rules.py: closing needs a clean canasta: a dirty one is enough
-     if req == CLOSE_CLEAN_CANASTA:
-         return clean_c
+     if req == CLOSE_CLEAN_CANASTA:
+         return any_c

R03 rules.py: a closed wild group still bars wilds
- if row[MF_KIND] == MELD_WILD_GROUP and row[MF_SIZE] < limit:
+ if row[MF_KIND] == MELD_WILD_GROUP and row[MF_SIZE] <= limit:

R04 rules.py: the higher minimum one point late
- >= params[P_MIN_FIRST_MELD_THRESHOLD]:
+ > params[P_MIN_FIRST_MELD_THRESHOLD]:

R05 rules.py: a first meld of exactly the minimum reverts
- return provisional_points_nb(st, b, t, params) < team_minimum
+ return provisional_points_nb(st, b, t, params) <= team_minimum

R06 rules.py: the card taken may be discarded again
-         return ERR_REDISCARD
+         return ERR_OK

R07 rules.py: unique_table inverted
- if tt != t and not params[P_UNIQUE_TABLE]:
+ if tt != t and params[P_UNIQUE_TABLE]:

R08 rules.py: going out by melding allowed when closing requires a discard
-     if params[P_CLOSE_REQUIRES_DISCARD]:
-         return ERR_GO_OUT_BY_DISCARD
+     if params[P_CLOSE_REQUIRES_DISCARD] and False:
+         return ERR_GO_OUT_BY_DISCARD

R09 rules.py: a hand of only restricted cards passes as finishable
-         if h_after > restricted:
+         if h_after >= restricted:

R10 rules.py: pile_min_total off by one
- < params[P_PILE_MIN_TOTAL]:
+ <= params[P_PILE_MIN_TOTAL]:

R11 rules.py: closing discard: the wild rule inverted
- if params[P_CLOSE_DISCARD_NOT_WILD] and is_wild_card_nb(c):
+ if params[P_CLOSE_DISCARD_NOT_WILD] and not is_wild_card_nb(c):

R12 rules.py: keep-wilds muerto with three wilds in hand
-     if h < 1 or h > 2:
+     if h < 1 or h > 3:

R13 rules.py: shared pot: the wrong packet
- return 0 if st.muerto_status[b, 0, 0] == MUERTO_UNTAKEN else 1
+ return 1 if st.muerto_status[b, 0, 0] == MUERTO_UNTAKEN else 0

R14 rules.py: the last turn one card late
- if st.stock_len[b] <= params[P_STOCK_END]:
+ if st.stock_len[b] < params[P_STOCK_END]:

R15 rules.py: a match ends on a tie at the target
- or m1 >= params[P_TARGET]) and m0 != m1
+ or m1 >= params[P_TARGET])

R16 rules.py: single hand: the lower score wins
- s[S_WINNER] = -1 if t0 == t1 else (0 if t0 > t1 else 1)
+ s[S_WINNER] = -1 if t0 == t1 else (0 if t0 < t1 else 1)

R17 rules.py: a reverted first meld lowers the minimum
- s[S_MIN_EXTRA0 + t] += params[P_MIN_FIRST_MELD_STEP]
+ s[S_MIN_EXTRA0 + t] -= params[P_MIN_FIRST_MELD_STEP]

R18 rules.py: the turn skips a seat
- begin_turn_nb(st, b, (p + 1) % params[P_NUM_PLAYERS], params)
+ begin_turn_nb(st, b, (p + 2) % params[P_NUM_PLAYERS], params)

R19 rules.py: no-rediscard even when the card was already in hand
- if single and params[P_PILE_NO_REDISCARD] and had == 0:
+ if single and params[P_PILE_NO_REDISCARD]:

R20 rules.py: a partner's turn settles the pending muerto
- if st.muerto_status[b, t, m] == MUERTO_PENDING and st.muerto_taker[b, t, m] == p:
+ if st.muerto_status[b, t, m] == MUERTO_PENDING:

R21 rules.py: direct and indirect muerto swapped
- MUERTO_PENDING if how == HOW_INDIRECT else MUERTO_TAKEN
+ MUERTO_PENDING if how == HOW_DIRECT else MUERTO_TAKEN

R22 rules.py: enumeration: no pair + wild group openings
-             if n0 + n1 + n2 + n3 < 2:
+             if n0 + n1 + n2 + n3 < 3:

R23 rules.py: never-stuck: the restrictions are not lifted in the mask
- n = _enumerate_discards_nb(st, b, params, out, np.int64(0), np.bool_(True))
+ n = _enumerate_discards_nb(st, b, params, out, np.int64(0), np.bool_(False))

R24 rules.py: enumeration: gapped run openings read the wrong positions
-                 if (have >> start) & 5 == 5:
+                 if (have >> start) & 6 == 6:

R25 rules.py: a pile of one cannot be taken
-     if st.pile_len[b] == 0:
-         return ERR_PILE_EMPTY
+     if st.pile_len[b] == 1:
+         return ERR_PILE_EMPTY
"""


def parse(table: str) -> list[Mutant]:
    mutants = []
    for block in table.strip().split("\n\n"):
        head, *lines = block.split("\n")
        ident, rest = head.split(" ", 1)
        file, what = rest.split(": ", 1)
        old = "\n".join(line[2:] for line in lines if line.startswith("- "))
        new = "\n".join(line[2:] for line in lines if line.startswith("+ "))
        mutants.append(Mutant(ident, file, old, new, what))
    return mutants


MUTANTS = parse(TABLE)


def apply(text: str, m: Mutant) -> str:
    count = text.count(m.old)
    if count != 1:
        raise ValueError(f"{m.id}: {m.old!r} occurs {count} times in {m.file} (needs once)")
    return text.replace(m.old, m.new)


def line_of(text: str, m: Mutant) -> int:
    return (
        text[: text.index(m.old)].count("\n")
        + 1
        + m.old[: len(m.old) - len(m.old.lstrip("\n"))].count("\n")
    )


def copy_tree(dest: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pt", "*.nbi", "*.nbc")
    for name in ("burako_env", "agents", "training", "tests"):
        shutil.copytree(ROOT / name, dest / name, ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", dest / "pyproject.toml")


FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.M)


def run_tests(tree: Path, tests: list[str], timeout: float) -> tuple[str, str, float]:
    """(status, the first failing test or '', seconds) of the tests in ``tree``."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTEST_ADDOPTS", None)
    cmd = [
        "nice",
        "-n",
        "10",
        sys.executable,
        "-m",
        "pytest",
        "-x",
        "-q",
        "-rfE",
        "-p",
        "no:xdist",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        *tests,
    ]
    start = time.monotonic()
    try:
        done = subprocess.run(
            cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return "timeout", "", time.monotonic() - start
    seconds = time.monotonic() - start
    if done.returncode == 0:
        return "survived", "", seconds
    found = FAILED.search(done.stdout)
    return "killed", found.group(1) if found else f"exit {done.returncode}", seconds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--only", nargs="+", help="mutant ids")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--tests", nargs="+", default=list(TESTS))
    ap.add_argument("--timeout", type=float, default=300, help="seconds per mutant")
    ap.add_argument("--json", type=Path, help="write the results here")
    args = ap.parse_args(argv)

    chosen = [m for m in MUTANTS if not args.only or m.id in args.only]
    sources = {
        f: (ROOT / "burako_env/core" / f).read_text(encoding="utf-8")
        for f in {m.file for m in MUTANTS}
    }
    for m in MUTANTS:  # every edit must apply, listed or not
        apply(sources[m.file], m)
    if args.list:
        for m in chosen:
            print(f"{m.id} {m.file}:{line_of(sources[m.file], m)}  {m.what}")
        return 0

    results = []
    with tempfile.TemporaryDirectory(prefix="rule-mutants-") as tmp:
        tree = Path(tmp)
        copy_tree(tree)
        probe = subprocess.run(
            [sys.executable, "-c", "import burako_env; print(burako_env.__file__)"],
            cwd=tree,
            capture_output=True,
            text=True,
            check=True,
        )
        assert probe.stdout.strip().startswith(str(tree)), probe.stdout  # the copy shadows
        status, test, secs = run_tests(tree, args.tests, args.timeout)
        print(f"baseline: {status} in {secs:.0f} s")
        if status != "survived":
            print("the tests fail on the unmutated copy:", test)
            return 1
        for m in chosen:
            path = tree / "burako_env/core" / m.file
            path.write_text(apply(sources[m.file], m), encoding="utf-8")
            try:
                status, test, secs = run_tests(tree, args.tests, args.timeout)
            finally:
                path.write_text(sources[m.file], encoding="utf-8")
            line = line_of(sources[m.file], m)
            results.append(
                {
                    "id": m.id,
                    "where": f"{m.file}:{line}",
                    "what": m.what,
                    "status": status,
                    "test": test,
                    "seconds": round(secs, 1),
                }
            )
            print(
                f"{m.id} {m.file}:{line:<5} {status:8s} {secs:5.0f} s  {m.what}"
                + (f"  <- {test}" if test else ""),
                flush=True,
            )
    caught = sum(r["status"] != "survived" for r in results)
    print(f"{caught}/{len(results)} killed ({date.today().isoformat()})")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
