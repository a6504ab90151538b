"""How well a network imitates a teacher, by the kind of the teacher's action.

    .venv/bin/python scripts/experiments/clone_accuracy.py --steps 400 --epochs 3 \
        [--hidden 128 --encoder 64 --meld-dim 32 --card-context] [--teacher discard_table]

Records ``--steps`` steps of 1,024 games played by the teacher on every seat (the warm
start's data, :func:`burako_env.training.imitation.collect_demonstrations`), clones it
into a fresh hint-free network (:func:`burako_env.training.imitation.behaviour_clone`, the
warm start's settings), and reports the clone's accuracy on 100 steps (``test_steps``)
of other games: over all decisions with a choice, and by the kind of action the teacher
took (draw, take the pile, open, add, discard...). It tells which of the teacher's
decisions the network cannot yet represent (docs/TRAINING.md, "What the network can
imitate", links the record).

A finished experiment (scripts/README.md): its result is recorded in
docs/experiments/2026-12-05-what-the-network-can-imitate.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from burako_env.agents.network import BurakoNet
from burako_env.core.actions import decode_action
from burako_env.envs.vector import VectorEnv


def action_kinds(actions: np.ndarray) -> np.ndarray:
    """The kind of each action id (:func:`burako_env.core.actions.decode_action`)."""
    return np.array([decode_action(int(a)).kind for a in actions])


def clone_accuracy(
    teacher: str = "discard_table",
    variant: str = "argentine",
    num_players: int = 4,
    steps: int = 400,
    epochs: int = 3,
    hidden: int = 128,
    encoder: int = 64,
    meld_dim: int = 32,
    card_context: bool = False,
    seed: int = 1,
    log=print,
    test_steps: int = 100,
) -> dict:
    """Clone ``teacher`` and measure the clone; returns ``{"train": last epoch's stats,
    "accuracy": on the held-out decisions with a choice, "by_kind": {kind: (share,
    accuracy)}, "parameters": n}``."""
    from burako_env.training.imitation import behaviour_clone, collect_demonstrations

    torch.manual_seed(seed)

    def record(s: int, n: int):
        env = VectorEnv(variant, num_players, num_envs=1024, seed=s, reward="win")
        return env, collect_demonstrations(teacher, env, n, 0.997, seed=s)

    env, train = record(seed, steps)
    _, test = record(seed + 1000, test_steps)
    net = BurakoNet(
        env.num_players,
        env.variant.total_cards,
        hidden,
        encoder,
        meld_dim,
        True,
        None,
        card_context=card_context,
    )
    stats = behaviour_clone(
        net,
        train,
        epochs=epochs,
        minibatch=2048,
        lr=1e-3,
        rng=np.random.default_rng(seed),
        log=lambda s, e: log(f"  epoch {e}/{epochs}: accuracy {s['accuracy']:.3f}"),
    )
    net.eval()
    store, n = test.store, len(test)
    correct, choice = np.zeros(n, bool), np.zeros(n, bool)
    taken = np.zeros(n, np.int64)
    with torch.no_grad():
        for start in range(0, n, 4096):
            rows = np.arange(start, min(n, start + 4096))
            legal, valid = store.lists(rows)
            hint = torch.from_numpy(store.hint[rows])
            logits, _ = net(torch.from_numpy(store.obs[rows]), legal, valid, hint)
            pick = store.pick[rows]
            correct[rows] = logits.argmax(1).numpy() == pick
            choice[rows] = valid.sum(1).numpy() > 1
            taken[rows] = legal.numpy()[np.arange(len(rows)), pick]
    kinds = action_kinds(taken)
    by_kind = {}
    for kind in sorted(set(kinds[choice]), key=lambda k: taken[kinds == k].min()):
        sel = choice & (kinds == kind)
        by_kind[kind] = (float(sel.sum() / choice.sum()), float(correct[sel].mean()))
    return {
        "train": stats,
        "accuracy": float(correct[choice].mean()),
        "decisions": int(choice.sum()),
        "by_kind": by_kind,
        "parameters": sum(p.numel() for p in net.parameters()),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--teacher", default="discard_table")
    ap.add_argument("--variant", default="argentine")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--steps", type=int, default=400, help="teacher steps of 1,024 games")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--encoder", type=int, default=64)
    ap.add_argument("--meld-dim", type=int, default=32)
    ap.add_argument("--card-context", action="store_true", help="network.card_context")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.steps < 1 or args.epochs < 1:
        ap.error("--steps and --epochs must be at least 1")
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    try:
        res = clone_accuracy(
            args.teacher,
            args.variant,
            args.players,
            args.steps,
            args.epochs,
            args.hidden,
            args.encoder,
            args.meld_dim,
            args.card_context,
            args.seed,
        )
    except ValueError as exc:
        ap.error(str(exc))
    print(
        f"{res['parameters']:,} parameters; held-out accuracy {res['accuracy']:.3f} over "
        f"{res['decisions']:,} decisions with a choice ({time.perf_counter() - t0:.0f} s)"
    )
    for kind, (share, accuracy) in res["by_kind"].items():
        print(f"  teacher's {kind:<16} {share:6.1%} of decisions, accuracy {accuracy:.3f}")


if __name__ == "__main__":
    main()
