"""How a bot thinks, from the agents themselves: what the web table shows after a bot's
move, and the hint "what would Expert play here?".

Nothing here searches or evaluates on its own: an Expert (``pimc``) decision is the
agent's :meth:`~burako_env.agents.pimc.PIMCAgent.think` (the search its move came from),
a Hard (``ppo``) decision the agent's :meth:`~burako_env.agents.ppo_agent.PPOAgent.think`
(the policy's probabilities and value from the call that chose the move). Easy and Normal
follow fixed rules and have no numbers to show.

JSON of one decision (:func:`search_json`, :func:`policy_json`)::

    {"seat": 1, "who": "Expert", "kind": "search",
     "choice": {"action": 1730, "text": "discard K♦"},
     "summary": "Expert dealt the cards it cannot see again 96 times ...",
     "redeals": 96, "objective": "margin", "budget_hit": false,
     "candidates": [{"action": 1730, "text": "discard K♦", "choice": true,
                     "baseline": true, "redeals": 24, "margin": 35.2,
                     "margin_low": 23.1, "margin_high": 47.3, "win": 0.62,
                     "gain": 0.0, "gain_low": 0.0, "gain_high": 0.0}, ...],
     "withheld": false}

    {"seat": 2, "who": "Hard", "kind": "policy",
     "choice": {"action": 0, "text": "draw a card from the stock"},
     "summary": "...", "value": 0.23,
     "value_text": "its estimate for its team: -1 a hand lost, +1 a hand won",
     "candidates": [{"action": 0, "text": "...", "choice": true, "probability": 0.81}, ...],
     "withheld": false}

``margin`` is the mean hand score margin of the bot's team (points) over the re-deals the
move was played on, ``margin_low`` / ``margin_high`` its 95% interval (null below two
re-deals), ``win`` the share of those hands won; ``gain``, ``gain_low``, ``gain_high``
the paired difference over the baseline (the rollout policy's own move), which the
search decides on. A search's candidates come searched longest first (halving keeps the
better half each round), then by margin; a policy's most likely first.

**The hint** (:func:`expert_hint`) is a search decision with ``hint: true`` and, for a
player: ``advice`` (the pick and its number in one sentence, :func:`hint_advice`),
``advice_note`` (what that number is), ``cards`` (the card ids the pick takes from the
hand, :func:`hint_cards`), ``plan`` (``[{action, text, cards}]``, the pick first: the
moves Expert would make this turn, each the hint of its own position, :func:`hint_plan`)
and ``plan_end`` (why the plan stops there, in words). The plan stops before anything the
seat cannot know yet (a card drawn from the stock, a muerto): the whole hint is a function
of the seat's information.

**What a client may see.** A bot's candidates name cards of its hand. Seen from a seat
(``public`` given: the play view), a candidate is shown only when every card it moves is
one the seat can know is in that hand (the hand's cards known to all: taken from the
pile, wilds shown with a muerto), or it is the move played (public once played);
``withheld`` says that others were left out. Where a variant bars rediscarding the card
of a one-card pile (``pile_no_rediscard``), no discard but the one played is shown in
the turn after the pile was taken: whether that card's discard is legal tells whether
the taker held another copy, which only the taker may know (the views show the bar to
the taker only). The numbers come from the bot's own
information: the search deals again every card hidden from *the bot*
(``Game.determinize``), the policy reads the bot's observation. The watch view (records,
every hand open) shows every candidate.
"""

from __future__ import annotations

import numpy as np

from burako_env.core.actions import decode_action
from burako_env.core.constants import PHASE_PLAY
from burako_env.core.state import state_fields
from burako_env.frontends.levels import EXPERT, agent_for, bot_label
from burako_env.frontends.narrate import action_words

#: the hint's agent: Expert's search without its wall-clock budget, so that the same
#: position and seed always give the same hint (on any machine)
HINT_AGENT = f"{EXPERT.agent}:budget_ms=0"
#: the agents whose thinking a recorded seat may show (the levels' own, default settings)
THINKING_AGENTS = ("pimc", "ppo")
#: candidates of a policy decision shown (the most likely first)
POLICY_TOP = 5
VALUE_TEXT = (
    "its own estimate of how the hand ends for its team, from -1 (a hand lost) to +1 (a hand won)"
)


#: seeds are taken modulo 2**64: torch's ``manual_seed`` (Hard) overflows past 2**64 - 1
SEED_MODULUS = 2**64


def hint_seed(game_seed: int, moves_played: int) -> int:
    """The hint's search seed at a position: the game's seed and the moves played so far
    (the same position of the same game: the same hint), within 0..2**64 - 1 for any
    64-bit deal seed (the same as before below 2**64 / 100003)."""
    return (int(game_seed) * 100_003 + int(moves_played)) % SEED_MODULUS


def _num(x) -> float | None:
    return None if x is None else round(float(x), 3)


def _cards_moved(game, action: int, seat: int, b: int) -> np.ndarray:
    """Card counts a move takes from ``seat``'s hand (the whole hand for taking the muerto
    keeping its wilds)."""
    info = decode_action(action)
    counts = np.zeros(game.state.hands.shape[-1], np.int64)
    if info.kind == "muerto_keep_wilds":
        return game.state.hands[b, seat].astype(np.int64)
    for c in info.cards:
        counts[int(c)] += 1
    return counts


def _rediscard_undisclosed(game, b: int) -> bool:
    """True while the rediscard bar (``pile_no_rediscard``) may hold for the player to act
    and only that player may know it: the play phase with the pile empty, as after
    taking it (or drawing from an empty one, which a viewer is not told apart here)."""
    view = game.live_view(b)
    return (
        bool(game.variant.pile_no_rediscard)
        and view.phase == PHASE_PLAY
        and int(game.state.pile_len[b]) == 0
    )


def public_filter(game, seat: int, b: int = 0):
    """A test ``shown(action)`` for the candidates of ``seat``'s decision now, before the
    move: True when every card the move takes from the hand is known to all to be there
    (read now: call before the move is played). A discard is not shown after a pile
    was taken where the rediscard bar may hold (``pile_no_rediscard``): the card taken
    from a one-card pile is known, but whether its discard is legal tells whether the
    taker held another copy, which only the taker knows (issue 59)."""
    known = game.state.known[b, seat].astype(np.int64).copy()
    discards_undisclosed = _rediscard_undisclosed(game, b)

    def shown(action: int) -> bool:
        if discards_undisclosed and decode_action(action).kind == "discard":
            return False
        return bool((_cards_moved(game, action, seat, b) <= known).all())

    return shown


def _choice(action: int) -> dict:
    return {"action": int(action), "text": action_words(int(action))}


def search_json(report, seat: int, who: str, shown=None) -> dict:
    """An Expert decision (a :class:`~burako_env.agents.pimc.SearchReport`) as JSON;
    ``shown``: the :func:`public_filter` of the seat that reads it (None: all shown)."""
    rows = []
    withheld = False
    for c in report.candidates:
        if shown is not None and c.action != report.action and not shown(c.action):
            withheld = True
            continue
        rows.append(
            {
                "action": int(c.action),
                "text": action_words(c.action),
                "choice": c.action == report.action,
                "baseline": c.action == report.baseline,
                "redeals": int(c.redeals),
                "margin": _num(c.margin),
                "margin_low": _num(None if c.margin_ci is None else c.margin - c.margin_ci),
                "margin_high": _num(None if c.margin_ci is None else c.margin + c.margin_ci),
                "win": _num(c.win),
                "gain": _num(c.gain),
                "gain_low": _num(None if c.gain_ci is None else c.gain - c.gain_ci),
                "gain_high": _num(None if c.gain_ci is None else c.gain + c.gain_ci),
            }
        )
    # the moves searched longest first (halving keeps the better half each round), then
    # by margin: the choice is among the first
    rows.sort(key=lambda r: (-r["redeals"], -r["margin"], r["action"]))
    chosen = next((r for r in rows if r["choice"]), None)
    if not report.candidates:
        summary = f"{who} had one move only: {action_words(report.action)}."
    else:
        summary = (
            f"{who} dealt the cards it cannot see again {report.redeals} times and played "
            f"the moves it weighed to the end of the hand. Its choice: "
            f"{action_words(report.action)}"
        )
        if chosen is not None:
            summary += f", {chosen['margin']:+.0f} points on average for its team"
            if chosen["margin_low"] is not None:
                spread = (chosen["margin_high"] - chosen["margin_low"]) / 2
                summary += f" (± {spread:.0f})"
        summary += "."
        if report.budget_hit:
            summary += " Its time ran out before the search was complete."
    return {
        "seat": int(seat),
        "who": who,
        "kind": "search",
        "choice": _choice(report.action),
        "summary": summary,
        "redeals": int(report.redeals),
        "objective": report.objective,
        "budget_hit": bool(report.budget_hit),
        "candidates": rows,
        "withheld": withheld,
    }


def policy_json(report, seat: int, who: str, shown=None, top: int = POLICY_TOP) -> dict:
    """A Hard decision (a :class:`~burako_env.agents.ppo_agent.PolicyReport`) as JSON: the
    ``top`` most likely moves that may be shown, and the move played."""
    rows = []
    withheld = False
    for a, q in report.actions:
        if shown is not None and a != report.action and not shown(a):
            withheld = True
            continue
        if len(rows) < top or a == report.action:
            rows.append(
                {
                    "action": int(a),
                    "text": action_words(a),
                    "choice": a == report.action,
                    "probability": _num(q),
                }
            )
    played = next(q for a, q in report.actions if a == report.action)
    summary = (
        f"{who}'s network gave {action_words(report.action)} a {100 * played:.0f}% chance "
        f"and plays it; it reckons the hand at {report.value:+.2f} for its team "
        "(-1 lost, +1 won)."
    )
    return {
        "seat": int(seat),
        "who": who,
        "kind": "policy",
        "choice": _choice(report.action),
        "summary": summary,
        "value": _num(report.value),
        "value_text": VALUE_TEXT,
        "candidates": rows,
        "withheld": withheld,
    }


def decide(agent, game, b: int = 0, shown=None, who: str | None = None):
    """``(action, thinking JSON or None)``: the agent's move for the player to act, through
    its ``think`` where it has one (Expert, Hard: :class:`~burako_env.agents.base.Thinks`),
    else the table's :func:`~burako_env.table.next_move`; checked legal either way (an
    :class:`~burako_env.table.IllegalAgentMove` names a broken agent). ``shown``: the
    :func:`public_filter` of the seat that will read it, taken before the move."""
    from burako_env.agents.base import Thinks
    from burako_env.table import check_move, next_move

    seat = int(game.current_player[b])
    who = who or bot_label(agent.name)
    if not isinstance(agent, Thinks):
        return next_move(agent, game, b), None
    report = agent.think(game, b)
    action = check_move(agent, game, int(report.action), b)
    if hasattr(report, "candidates"):
        return action, search_json(report, seat, who, shown)
    return action, policy_json(report, seat, who, shown)


#: the most moves of a hint's plan (a turn is a draw, some melds and a discard: far fewer)
PLAN_MOVES = 12
#: why a hint's plan stops where it does, in words (``plan_end``)
PLAN_ENDS = {
    "turn": "That ends your turn.",
    "hand": "That ends the hand.",
    "draw": "Then Expert would decide with the card you draw: it cannot know it yet.",
    "muerto": "Then Expert would decide with the muerto's cards: you cannot see them yet.",
    "hidden": "Then the turn depends on cards you cannot see yet.",
    "long": f"Expert's plan is cut off after {PLAN_MOVES} moves.",
}


def hint_cards(action: int) -> list[int]:
    """The cards of the person's hand a move takes (a meld's, an added card, a discard),
    as card ids in the order the move names them: the page highlights them; none for a
    draw, the pile or the muerto."""
    info = decode_action(action)
    if info.kind in ("draw", "take_pile", "peek_keep", "peek_reject", "muerto_keep_wilds"):
        return []
    return [int(c) for c in info.cards]


def _runner_up(rows: list[dict]) -> dict | None:
    """The candidate the search weighed longest after its pick (the last halving round's
    other survivor: the same re-deals as the pick, so the margins compare move for move),
    the better one first."""
    others = [r for r in rows if not r["choice"] and r["margin"] is not None]
    if not others:
        return None
    return max(others, key=lambda r: (r["redeals"], r["margin"], -r["action"]))


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def hint_advice(hint: dict) -> tuple[str, str]:
    """``(advice, note)``: a hint (:func:`search_json`) for a player in plain words: the
    move with the number behind it, compared with the next best move; and what that number
    is. A margin objective (Expert's own) gives points for the person's team at the end of
    the hand; a win objective the share of Expert's playouts won. Nothing is said that the
    numbers do not hold: where Expert keeps its usual move while another averaged more,
    the advice says so."""
    move = _capital(hint["choice"]["text"])
    rows = hint["candidates"]
    chosen = next((r for r in rows if r["choice"]), None)
    if not rows or chosen is None:
        return f"{move}: it is your only move.", "There was nothing to weigh."
    runner = _runner_up(rows)
    deals = chosen["redeals"]
    if hint["objective"] == "win":
        share = 100 * (chosen["win"] or 0.0)
        advice = f"{move}: your team wins {share:.0f}% of Expert's playouts with it"
        note = (
            f"Expert played each move to the end of the hand on {deals} deals of the cards "
            "you cannot see; the share is how many of those hands your team won."
        )
        if runner is not None:
            gap = share - 100 * (runner["win"] or 0.0)
            advice += _compare(gap, "percentage points", runner, chosen["baseline"])
        return advice + ".", note
    advice = f"{move}: about {chosen['margin']:+.0f} points for your team by the end of the hand"
    note = (
        f"Expert played each move to the end of the hand on {deals} deals of the cards you "
        "cannot see; the number is its average margin: your team's hand score minus the "
        "other team's."
    )
    if runner is not None:
        advice += _compare(
            chosen["margin"] - runner["margin"], "points", runner, chosen["baseline"]
        )
    return advice + ".", note


def _compare(gap: float, unit: str, runner: dict, usual: bool) -> str:
    """The words comparing the pick with the runner-up: ``gap`` (pick minus runner-up,
    said as rounded); ``usual``: the pick is Expert's usual move (its rollout policy's),
    which it keeps unless another beats it clearly."""
    other = runner["text"]
    if round(gap) > 0:
        return f", {gap:.0f} {unit} better than your next choice ({other})"
    if round(gap) == 0:
        return f", as good as your next choice ({other})"
    why = (
        ": Expert keeps its usual move unless another is clearly better"
        if usual
        else ", over fewer deals"
    )
    return f"; {other} averaged {-gap:.0f} {unit} more, too little to be sure{why}"


def _plan_stop(before, game, action: int, seat: int, b: int) -> str | None:
    """Why a plan stops after ``action`` was played on ``game`` (a copy; ``before``: the
    copy as it stood before), or None when the seat decides again knowing only what it
    knew: the move drew no card hidden from it (the stock, a muerto) and the turn goes on.
    The plan never reads a card the seat cannot see: that would tell it the stock."""
    kind = decode_action(action).kind
    if game.is_over() or game.live_view(b).hands_ended != before.live_view(b).hands_ended:
        return "hand"
    if kind in ("draw", "peek_reject"):
        return "draw"
    if kind == "muerto_keep_wilds" or not np.array_equal(
        game.state.muerto_status[b], before.state.muerto_status[b]
    ):
        return "muerto"
    if int(game.state.stock_len[b]) != int(before.state.stock_len[b]):
        return "hidden"
    if int(game.current_player[b]) != seat:
        return "turn"
    return None


def _position_key(game, seed: int, b: int) -> tuple:
    """A decision's key in a hint's cache: its seed and every field of game ``b``'s state
    (the legal-action cache read up to its length: its tail is stale)."""
    st = game.state
    n = int(st.num_legal[b])
    parts = [
        st.legal[b, :n].tobytes() if name == "legal" else np.ascontiguousarray(arr[b]).tobytes()
        for name, arr in state_fields(st)
    ]
    return (int(seed), *parts)


def _think(game, seed: int, b: int, reports: dict | None):
    """Expert's decision for the hint (:data:`HINT_AGENT` seeded ``seed``) at game ``b``,
    from ``reports`` when that position was searched with that seed already (a plan's
    next move, then asked as a hint: the same search, so the same report)."""
    from burako_env.agents import make_agent

    key = None if reports is None else _position_key(game, seed, b)
    if key is not None and key in reports:
        return reports[key]
    report = make_agent(HINT_AGENT, seed=seed).think(game, b)
    if key is not None:
        reports[key] = report
    return report


def hint_plan(
    game, first: int, next_seed, b: int = 0, reports: dict | None = None
) -> tuple[list[dict], str]:
    """``(plan, end)``: the moves Expert would make this turn in the seat to act, from
    ``first`` (its pick now) on, each later one Expert's own decision there (seeded
    ``next_seed(j)`` for the j-th move after the pick: the hint that position would give);
    it stops where the turn ends or where a move shows the seat a card it cannot see now
    (``end``: a key of :data:`PLAN_ENDS`). Played on a copy: the game is not touched.
    ``reports``: each decision's search by position (:func:`_think`), kept for the hints
    that follow."""
    seat = int(game.current_player[b])
    sim = game.clone([b])
    plan = [{"action": int(first), "text": action_words(first), "cards": hint_cards(first)}]
    action = int(first)
    for j in range(1, PLAN_MOVES + 1):
        before = sim.clone()
        sim.step_one(action)
        stop = _plan_stop(before, sim, action, seat, 0)
        if stop is not None:
            return plan, stop
        if j == PLAN_MOVES:
            break
        action = int(_think(sim, next_seed(j), 0, reports).action)
        plan.append({"action": action, "text": action_words(action), "cards": hint_cards(action)})
    return plan, "long"


def expert_hint(game, seed: int, b: int = 0, next_seed=None, reports: dict | None = None) -> dict:
    """What Expert would play for the player to act, from that player's information only
    (their own decision: every candidate is their own move, all shown), with the advice in
    plain words (:func:`hint_advice`: ``advice``, ``advice_note``), the cards of the hand
    it moves (``cards``) and, ``next_seed`` given (the seed of the j-th decision after
    this one), the turn's plan (:func:`hint_plan`: ``plan``, ``plan_end``; else None).
    ``reports``: the searches of earlier hints' plans by position, used and filled (a
    player who follows the plan gets the next hint without a search)."""
    seat = int(game.current_player[b])
    report = _think(game, seed, b, reports)
    out = search_json(report, seat, EXPERT.name)
    out["hint"] = True
    out["summary"] = out["summary"].replace(
        f"{EXPERT.name} dealt", f"{EXPERT.name}, in your seat, dealt", 1
    )
    out["advice"], out["advice_note"] = hint_advice(out)
    out["cards"] = hint_cards(report.action)
    out["plan"], out["plan_end"] = None, None
    if next_seed is not None:
        plan, end = hint_plan(game, report.action, next_seed, b, reports)
        out["plan"], out["plan_end"] = plan, PLAN_ENDS[end]
    return out


def recorded_thinking(seat_name: str, game, seed: int, b: int = 0) -> dict | None:
    """A recorded seat's thinking at a position of a replayed game (the watch view): its
    agent, seeded ``seed``, deciding there again; None unless the seat is Expert or Hard
    by name (``pimc``, ``ppo`` or the level): a record names no file to load or search
    settings to run, and the other agents have no numbers to show."""
    from burako_env.agents import make_agent

    name = agent_for(seat_name)
    if name not in THINKING_AGENTS:  # and never a path or settings from a file
        return None
    agent = make_agent(name, seed=seed)
    agent.check_table(game.variant)
    _, thinking = decide(agent, game, b, who=bot_label(name))
    return thinking


__all__ = [
    "HINT_AGENT",
    "decide",
    "expert_hint",
    "hint_advice",
    "hint_cards",
    "hint_plan",
    "hint_seed",
    "policy_json",
    "public_filter",
    "recorded_thinking",
    "search_json",
]
