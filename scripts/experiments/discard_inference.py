"""How much the other players' last discards say about their hands (``ppo_search``'s
``infer``): the figures of docs/STRATEGIES.md, "Inference from the discards" (measured
in the strategy results record, named below).

Every seat of 4-player argentine hands plays the shipped policy's argmax, so every
discard is the policy's own choice. At each of seat 0's draw decisions after a discard,
each seat before it (the pile's top card the previous seat's, then two and three seats
back) is rewound to its last discard (:meth:`PolicySearchAgent.discard_logp`), once with
its real hand and once in each of ``--worlds`` determinizations for seat 0. Printed: per
seat back, the policy's probability of the real discard with the real hand (the rewind's
accuracy: 1 would be exact for a greedy player) and the mean log-probability in the
determinizations; then, per ``infer_power``, the effective number of worlds among the
``--worlds`` that the weights leave (``(sum w)^2 / sum w^2``), with every seat's discard
and with the previous seat's alone.

    .venv/bin/python scripts/experiments/discard_inference.py --hands 6 --worlds 64 --seed 0

A finished experiment (scripts/README.md): its result is recorded in
docs/experiments/2026-12-05-strategy-results.md.
"""

from __future__ import annotations

import argparse

import numpy as np

from burako_env.agents import make_agent
from burako_env.agents.policy_search import PolicySearchAgent
from burako_env.core.constants import PHASE_DRAW, S_TURN
from burako_env.core.game import Game

POWERS = (1.0, 0.5, 0.25)


def measure(hands: int, worlds: int, seed: int) -> tuple[list, list, dict]:
    """``(real, dealt, ess)``: per seat back (0: the previous seat), the log-probability
    of each discard with the real hand, and its mean over the determinizations; per
    ``(infer_power, "every seat" | "previous")`` the effective worlds left at each
    decision."""
    policy = make_agent("ppo", seed=0)
    rng = np.random.default_rng(seed)
    real: list[list[float]] = [[], [], []]
    dealt: list[list[float]] = [[], [], []]
    ess = {(power, which): [] for power in POWERS for which in ("every seat", "previous")}
    for hand in range(hands):
        game = Game("argentine", num_players=4, seed=seed + hand)
        policy.check_table(game.variant)  # the shipped file, loaded for its table
        while not game.is_over():
            st = game.state
            recent = min(int(st.pile_len[0]), int(st.scalars[0, S_TURN]), 3)
            if game.phase[0] == PHASE_DRAW and game.current_player[0] == 0 and recent:
                net = policy.net
                end = int(st.pile_len[0])
                cards = st.pile[0, end - recent : end][::-1].astype(np.int64)
                pool = game.determinize(0, rng, count=worlds)
                per_seat = []
                for d in range(recent):
                    seat, card = np.array([3 - d]), cards[d : d + 1]
                    real[d].append(PolicySearchAgent.discard_logp(game.clone(), seat, card, net)[0])
                    logp = PolicySearchAgent.discard_logp(pool, seat, card, net)
                    dealt[d].append(logp.mean())
                    per_seat.append(logp)
                for which, logp in (("every seat", sum(per_seat)), ("previous", per_seat[0])):
                    for power in POWERS:
                        w = np.exp(power * (logp - logp.max()))
                        ess[(power, which)].append(w.sum() ** 2 / (w * w).sum())
            game.step_one(policy.act_game(game))
    return real, dealt, ess


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=6, help="hands played (seeds from --seed)")
    parser.add_argument("--worlds", type=int, default=64, help="determinizations a decision")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    real, dealt, ess = measure(args.hands, args.worlds, args.seed)

    print(f"{args.hands} hands, seed {args.seed}, {args.worlds} determinizations a decision")
    print(
        "| seat back | discards | real hand: median p | real hand: p > 0.5 | worlds: mean log p |"
    )
    print("| --- | --- | --- | --- | --- |")
    for d in range(3):
        r = np.exp(np.array(real[d]))
        print(
            f"| {d + 1} | {r.size} | {np.median(r):.2f} | {(r > 0.5).mean():.2f} "
            f"| {np.mean(dealt[d]):.1f} |"
        )
    print(f"\n| infer_power | worlds left of {args.worlds}, every seat | the previous seat alone |")
    print("| --- | --- | --- |")
    for power in POWERS:
        every, prev = ess[(power, "every seat")], ess[(power, "previous")]
        print(f"| {power:g} | {np.median(every):.1f} (median) | {np.median(prev):.1f} |")


if __name__ == "__main__":
    main()
