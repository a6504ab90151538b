"""Value functions for AIVAT's draw corrections fitted to a pairing's own games.

    .venv/bin/burako tournament ppo discard_table --hands 4000 --seed 11 \
        --save-games games.jsonl --no-progress
    .venv/bin/python scripts/experiments/value_heads.py games.jsonl --labels margin
    .venv/bin/python scripts/experiments/value_heads.py games.jsonl --labels advantage \
        --games 300
    .venv/bin/python scripts/experiments/value_heads.py games.jsonl --reliability --games 40

A head (256-256) reads the shipped argentine policy's frozen trunk at the drawer's
observation, the other seats' hands and which side the drawer is on. ``--labels margin``
fits it to the hand's margin at every post-draw state of the saved games;
``--labels advantage`` to common-random-number labels: at each draw of the first
``--games`` games, the rest of the hand is played once per card the stock could have
given (the rest of the stock the same, ppo and discard_table seated as in the game),
and each outcome less the draw's mean is the label (only differences matter to a
correction). The head then corrects tournaments of 400 hands (seeds 8 and 7) and the
variance ratios are printed, in-sample and with seed 8's factors on seed 7.

``--train-trunk`` trains a copy of the trunk with the head.

A finished experiment (scripts/README.md): its result is recorded in
docs/experiments/2026-12-06-aivat.md.
"""

from __future__ import annotations

import argparse
import copy

import numpy as np
import torch
import torch.nn as nn

import burako_env.agents.tournament as tournament
from burako_env.agents import make_agent
from burako_env.agents.aivat import DrawValue, file_sha256, least_squares_scale, stock_worlds
from burako_env.agents.network import oracle_inputs
from burako_env.agents.ppo_agent import PPOAgent, shipped_policy
from burako_env.core.actions import DRAW_STOCK
from burako_env.core.game import Game, game_seed
from burako_env.records import read_records
from burako_env.table import Seating, play_stepped

NET = PPOAgent.pretrained().net


def replay(path: str, games: int, first: int = 0):
    """Saved games ``first .. first + games`` dealt in one batch, their actions and who
    sits where (0: ppo)."""
    recs = read_records(path)[first : first + games]
    game = Game("argentine", batch_size=len(recs), deal=False)
    for i, r in enumerate(recs):
        game.state.rng[i] = game_seed(r.seed, r.index)
    game.reset()
    n = np.array([len(r.actions) for r in recs])
    actions = np.full((len(recs), n.max()), -1, np.int64)
    for i, r in enumerate(recs):
        actions[i, : n[i]] = r.actions
    seat_agent = np.array([[0 if s == "ppo" else 1 for s in r.seats] for r in recs])
    scores = np.array([r.scores for r in recs])
    return game, n, actions, seat_agent, scores


def labelled_states(path: str, games: int, labels: str, seed: int = 0, future: int | None = None):
    """Inputs (obs, hands, drawer on ppo's side), labels and each row's draw. With
    ``future`` (advantage labels), the rest of the stock below the drawn card is
    reshuffled at each draw, by one order drawn from ``future`` for all its cards."""
    game, n, actions, seat_agent, scores = replay(path, games)
    ppo, dt = make_agent("ppo", seed=1), make_agent("discard_table", seed=2)
    rng = np.random.default_rng(seed)
    rows_out: list[tuple] = []
    group = 0
    for t in range(n.max()):
        now = np.where(t < n, actions[:, t], -1)
        drawing = np.flatnonzero(now == DRAW_STOCK)
        st = game.state
        if labels == "advantage" and drawing.size:
            rows, where, grp = [], [], []
            for g in drawing:
                count = int(st.stock_len[g])
                _, first = np.unique(st.stock[g, :count], return_index=True)
                rows.append(np.full(len(first), g))
                where.append(first)
                grp.append(np.full(len(first), group))
                group += 1
            r, w = np.concatenate(rows), np.concatenate(where)
            worlds = stock_worlds(game, r, w)
            k = np.arange(len(r))
            if future is not None:  # another future, the same for every card of a draw
                for g in drawing:
                    sel = np.flatnonzero(r == g)
                    below = int(st.stock_len[g]) - 1
                    order = np.random.default_rng([future, int(g), t]).permutation(below)
                    worlds.state.stock[sel, :below] = worlds.state.stock[sel][:, order]
            worlds.step(np.full(len(r), DRAW_STOCK), check=False)
            seats = worlds.current_player.astype(np.int64)
            x = (worlds.observe(seats), oracle_inputs(worlds.state.hands, k, seats))
            side = seat_agent[r, seats] == 0
            agent_rng = np.ascontiguousarray(rng.integers(1, 2**62, size=(len(r), 4, 4)))
            play_stepped(worlds, Seating([ppo, dt], seat_agent[r]), agent_rng, False, 20000)
            sc = worlds.hand_scores.astype(np.float64)
            label = (sc[k, seats % 2] - sc[k, 1 - seats % 2]) / 1000.0
            rows_out.append((*x, side, label, np.concatenate(grp)))
        game.step(now, check=False)
        if labels == "margin" and drawing.size:
            seats = game.current_player.astype(np.int64)
            team = seats[drawing] % 2
            x = (game.observe(seats)[drawing], oracle_inputs(game.state.hands, drawing, seats))
            label = (scores[drawing, team] - scores[drawing, 1 - team]) / 1000.0
            side = seat_agent[drawing, seats[drawing]] == 0
            rows_out.append((*x, side, label, drawing))
    return [np.concatenate([r[i] for r in rows_out]) for i in range(5)]


def inputs(obs, hands, side, trunk=NET) -> torch.Tensor:
    """The head's inputs: ``trunk``'s features of the observations (with gradients only
    for a trunk in training), the other hands and the side flag."""
    with torch.set_grad_enabled(trunk.training and torch.is_grad_enabled()):
        features = torch.cat(
            [
                trunk._features(torch.from_numpy(np.ascontiguousarray(block, np.int16)))[0]
                for block in np.array_split(obs, max(1, -(-len(obs) // 4096)))
            ]
        )
    flag = torch.from_numpy(side.astype(np.float32))[:, None] * 2 - 1
    return torch.cat([features, torch.from_numpy(hands).float() * 0.5, flag], 1)


def centered(v: torch.Tensor, group: torch.Tensor, n: int) -> torch.Tensor:
    total = torch.zeros(n).index_add(0, group, v)
    count = torch.zeros(n).index_add(0, group, torch.ones_like(v))
    return v - (total / count.clamp(min=1))[group]


def fit_head(data, labels: str, epochs: int, train_trunk: bool):
    """The head (and, with ``train_trunk``, a copy of the policy's trunk), fitted
    (within-draw differences for advantage labels), validation R² printed after each
    epoch (a tenth of the draws or games held out). Returns (head, trunk)."""
    obs, hands, side, y, group = data
    trunk = copy.deepcopy(NET).train() if train_trunk else NET
    if train_trunk:

        def x_of(rows):
            return inputs(obs[rows], hands[rows], side[rows], trunk)
    else:
        with torch.inference_mode():
            frozen = inputs(obs, hands, side)

        def x_of(rows):
            return frozen[rows]

    width = x_of(np.arange(1)).shape[1]
    head = nn.Sequential(
        nn.Linear(width, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1)
    )
    params = list(head.parameters()) + (list(trunk.parameters()) if train_trunk else [])
    opt = torch.optim.Adam(params, 3e-4 if train_trunk else 1e-3, weight_decay=1e-4)
    n = int(group.max()) + 1
    held = np.random.default_rng(0).random(n) < 0.1
    g = torch.from_numpy(group).long()
    target = torch.from_numpy(y).float()
    if labels == "advantage":
        target = centered(target, g, n)
    train = np.flatnonzero(~held[group])
    val = np.flatnonzero(held[group])
    rng = np.random.default_rng(0)
    for epoch in range(epochs):
        rng.shuffle(train)
        for i in range(0, len(train), 512):
            b = train[i : i + 512]
            out = head(x_of(b)).squeeze(1)
            if labels == "advantage":
                out = centered(out, g[b], n)
            loss = ((out - target[b]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            out = head(x_of(val)).squeeze(1)
            if labels == "advantage":
                out = centered(out, g[val], n)
            r2 = 1 - ((out - target[val]) ** 2).mean() / target[val].var()
        print(f"epoch {epoch}: validation R² {float(r2):.3f}", flush=True)
    return head.eval(), trunk.eval()


def variance_ratios(head: nn.Module, trunk, hands: int) -> None:
    def value_fn(game, rows, seats, side):
        with torch.inference_mode():
            x = inputs(
                game.observe(seats)[rows],
                oracle_inputs(game.state.hands, rows, seats),
                (seats[rows] % 2) == side,
                trunk,
            )
            return head(x).squeeze(1).numpy().astype(np.float64)

    tournament.critic_value_fn = lambda net, head_name: value_fn  # this run's value
    policy = shipped_policy("argentine", 4)
    unit = DrawValue(
        policy=str(policy), policy_sha256=file_sha256(policy), head="oracle",
        margin_scale=1.0, win_scale=1.0, variant="argentine", num_players=4,
    )  # fmt: skip
    pairs = {}
    for seed in (8, 7):
        res = tournament.run_tournament(
            ["ppo", "discard_table"], hands_per_pairing=hands, seed=seed, progress=False,
            estimator="aivat", value=unit,
        )  # fmt: skip
        e = res.pairings[0].estimate
        pairs[seed] = (e.pair_margin, e.pair_correction)
        m, c = pairs[seed]
        k = least_squares_scale(m, c)
        print(f"seed {seed}: margin variance ratio {np.var(m) / np.var(m - k * c):.3f}")
    k = least_squares_scale(*pairs[8])
    m, c = pairs[7]
    print(f"seed 7 with seed 8's factor: {np.var(m) / np.var(m - k * c):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games_file")
    parser.add_argument("--labels", choices=("margin", "advantage"), default="margin")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument(
        "--train-trunk", action="store_true",
        help="train a copy of the policy's trunk with the head (learning rate 3e-4)",
    )  # fmt: skip
    parser.add_argument(
        "--reliability", action="store_true",
        help="label the advantage twice, with two other futures, and print how the two "
        "labels of a card correlate (the share of a label that is the card's own effect)",
    )  # fmt: skip
    args = parser.parse_args()
    torch.manual_seed(0)
    if args.reliability:
        first = labelled_states(args.games_file, args.games, "advantage", future=1)
        second = labelled_states(args.games_file, args.games, "advantage", future=2)
        centered_labels = [
            centered(torch.from_numpy(x[3]).float(), torch.from_numpy(x[4]).long(),
                     int(x[4].max()) + 1).numpy()
            for x in (first, second)
        ]  # fmt: skip
        corr = np.corrcoef(*centered_labels)[0, 1]
        print(f"{len(first[3]):,} labels twice: the two labels of a card correlate at {corr:.3f}")
        return
    data = labelled_states(args.games_file, args.games, args.labels)
    print(f"{len(data[3]):,} labelled states")
    head, trunk = fit_head(data, args.labels, args.epochs, args.train_trunk)
    variance_ratios(head, trunk, args.hands)


if __name__ == "__main__":
    main()
