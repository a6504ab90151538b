"""A card-advantage model for AIVAT's draw corrections: every card's value from one pass.

    .venv/bin/burako tournament ppo discard_table --hands 4000 --seed 11 \
        --save-games runs/card/games.jsonl --no-progress
    for lo in $(seq 0 100 1900); do
      .venv/bin/python scripts/experiments/card_model.py collect runs/card/games.jsonl $lo
    done
    .venv/bin/python scripts/experiments/card_model.py fit --epochs 8

``collect`` labels games ``lo .. lo + 100`` of the saved games: at each draw from the
stock, the rest of the hand is played once per card the stock could have given (the
rest of the stock the same: common random numbers, ppo and discard_table seated as in
the game), and the drawer's team's margin is the card's label; the state *before* the
draw (the drawer's observation, the other hands, whether the drawer is on ppo's side)
and the stock's counts are kept once per draw (``runs/card/labels_LO.npz``).

``fit`` trains a network from that state to 53 outputs, one value per card kind, on
the labels less their draw's mean (the last chunk held out), prints its validation R²,
then corrects 1,000 hands of ppo against discard_table on seeds 8 and 7 with it (one
forward pass a draw: ``V(card drawn) - sum of P(card) V(card)``) and prints the variance
ratios beside those of the shipped critic on the same games, and of both together (two
least-squares factors).

A finished experiment (scripts/README.md): its result is recorded in
docs/experiments/2026-12-06-aivat.md ("A card-advantage model").
"""

from __future__ import annotations

import argparse
import glob
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
from value_heads import replay  # this folder: a script's own is first on sys.path

import burako_env.agents.tournament as tournament
from burako_env.agents import make_agent
from burako_env.agents.aivat import draw_corrections as critic_corrections
from burako_env.agents.aivat import shipped_value, stock_worlds
from burako_env.agents.network import oracle_inputs
from burako_env.agents.ppo_agent import PPOAgent
from burako_env.core.actions import DRAW_STOCK
from burako_env.core.constants import JOKER
from burako_env.core.game import Game
from burako_env.table import Seating, play_stepped

KINDS = JOKER + 1
NET = PPOAgent.pretrained().net.eval()


def collect(path: str, lo: int, out: Path) -> None:
    """Label the draws of saved games ``lo .. lo + 100`` into ``out/labels_LO.npz``."""
    game, n, actions, seat_agent, _ = replay(path, 100, lo)
    ppo, dt = make_agent("ppo", seed=1), make_agent("discard_table", seed=2)
    rng = np.random.default_rng(lo)
    rows_out, draws_out, group = [], [], 0
    for t in range(n.max()):
        now = np.where(t < n, actions[:, t], -1)
        drawing = np.flatnonzero(now == DRAW_STOCK)
        st = game.state
        if drawing.size:
            drawer = game.current_player.astype(np.int64)
            counts = np.stack(
                [np.bincount(st.stock[g, : int(st.stock_len[g])], minlength=KINDS) for g in drawing]
            )
            rows, where = [], []
            for g in drawing:
                _, first = np.unique(st.stock[g, : int(st.stock_len[g])], return_index=True)
                rows.append(np.full(len(first), g))
                where.append(first)
            r, w = np.concatenate(rows), np.concatenate(where)
            card = st.stock[r, w]
            worlds = stock_worlds(game, r, w)
            worlds.step(np.full(len(r), DRAW_STOCK), check=False)
            seats = worlds.current_player.astype(np.int64)
            agent_rng = np.ascontiguousarray(rng.integers(1, 2**62, size=(len(r), 4, 4)))
            play_stepped(worlds, Seating([ppo, dt], seat_agent[r]), agent_rng, False, 20000)
            sc = worlds.hand_scores.astype(np.float64)
            k = np.arange(len(r))
            label = (sc[k, seats % 2] - sc[k, 1 - seats % 2]) / 1000.0
            draw = group + np.repeat(np.arange(len(drawing)), [len(x) for x in rows])
            rows_out.append((label, draw, card))
            draws_out.append(
                (game.observe(drawer)[drawing], oracle_inputs(st.hands, drawing, drawer),
                 seat_agent[drawing, drawer[drawing]] == 0, counts)
            )  # fmt: skip
            group += len(drawing)
        game.step(now, check=False)
    data = {
        name: np.concatenate([x[i] for x in rows_out])
        for i, name in enumerate(("label", "draw", "card"))
    }
    for i, name in enumerate(("obs", "hands", "side", "counts")):
        data[name] = np.concatenate([x[i] for x in draws_out])
    out.mkdir(parents=True, exist_ok=True)
    np.savez(out / f"labels_{lo}.npz", **data)
    print(f"games {lo} .. {lo + game.batch_size}: {len(data['label']):,} labels, {group:,} draws")


def trunk(obs: np.ndarray) -> torch.Tensor:
    """The shipped policy's trunk features of observations ``obs``."""
    with torch.inference_mode():
        blocks = np.array_split(obs, max(1, -(-len(obs) // 4096)))
        features = [NET._features(torch.from_numpy(np.ascontiguousarray(b)))[0] for b in blocks]
        return torch.cat(features)


class CardModel(nn.Module):
    """The state before a draw (its observation standardized, the trunk's features, the
    other hands, the side) to a value per card kind."""

    def __init__(self, mean: torch.Tensor, std: torch.Tensor, width: int):
        super().__init__()
        self.register_buffer("mean", mean)
        self.register_buffer("std", std)
        self.body = nn.Sequential(
            nn.Linear(width, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, KINDS)
        )

    def inputs(self, obs, hands, side) -> torch.Tensor:
        raw = (torch.from_numpy(obs.astype(np.float32)) - self.mean) / self.std
        flag = torch.from_numpy(side.astype(np.float32))[:, None] * 2 - 1
        other = torch.from_numpy(hands.astype(np.float32)) * 0.5
        return torch.cat([raw, trunk(obs), other, flag], 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)


def fit(folder: Path, epochs: int) -> CardModel:
    """Fit the model to the draws' centered labels; the last chunk is held out."""
    files = glob.glob(str(folder / "labels_*.npz"))
    files.sort(key=lambda f: int(f[:-4].split("_")[-1]))
    parts = [np.load(f) for f in files]
    offsets = np.cumsum([0] + [len(p["obs"]) for p in parts])
    obs = np.concatenate([p["obs"] for p in parts])
    hands = np.concatenate([p["hands"] for p in parts])
    side = np.concatenate([p["side"] for p in parts])
    draw = np.concatenate([p["draw"] + offsets[i] for i, p in enumerate(parts)])
    label = torch.from_numpy(np.concatenate([p["label"] for p in parts])).float()
    card = torch.from_numpy(np.concatenate([p["card"] for p in parts]).astype(np.int64))
    print(f"{len(label):,} labels, {len(obs):,} draws", flush=True)
    o = torch.from_numpy(obs.astype(np.float32))
    model = CardModel(o.mean(0), o.std(0).clamp(min=1.0), 1)
    x = model.inputs(obs, hands, side)
    model = CardModel(model.mean, model.std, x.shape[1])
    starts = np.searchsorted(draw, np.arange(len(obs)))
    ends = np.searchsorted(draw, np.arange(len(obs)), side="right")
    opt = torch.optim.Adam(model.parameters(), 1e-3, weight_decay=1e-4)

    def loss_of(draws: np.ndarray):
        rows = np.concatenate([np.arange(starts[d], ends[d]) for d in draws])
        local = torch.from_numpy(np.repeat(np.arange(len(draws)), ends[draws] - starts[draws]))
        pred = model(x[draws])[local, card[rows]]
        y = label[rows]
        count = torch.zeros(len(draws)).index_add(0, local, torch.ones(len(rows)))
        pred = pred - (torch.zeros(len(draws)).index_add(0, local, pred) / count)[local]
        y = y - (torch.zeros(len(draws)).index_add(0, local, y) / count)[local]
        return ((pred - y) ** 2).mean(), (y**2).mean()

    held = np.arange(len(obs)) >= offsets[-2]
    train, val = np.flatnonzero(~held), np.flatnonzero(held)
    rng = np.random.default_rng(0)
    for epoch in range(epochs):
        model.train()
        rng.shuffle(train)
        for i in range(0, len(train), 64):
            loss, _ = loss_of(np.sort(train[i : i + 64]))
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            mse, var = loss_of(val)
        print(f"epoch {epoch}: validation R² {1 - float(mse / var):.4f}", flush=True)
    return model.eval()


def card_corrections(model: CardModel):
    """``draw_corrections`` (agents/aivat.py's signature) with the card model."""

    def corrections(variant, deal_words, actions, n_actions, team, value_fn):
        game = Game(variant, batch_size=len(deal_words), deal=False)
        game.state.rng[:] = deal_words
        game.reset()
        total = np.zeros(len(deal_words))
        draws = np.zeros(len(deal_words), np.int64)
        for t in range(int(n_actions.max(initial=0))):
            col = actions[:, min(t, actions.shape[1] - 1)]
            now = np.where(t < n_actions, col, -1).astype(np.int64)
            drawing = np.flatnonzero(now == DRAW_STOCK)
            if drawing.size:
                st = game.state
                drawer = game.current_player.astype(np.int64)
                ours = drawer[drawing] % 2 == team[drawing]
                x = model.inputs(
                    game.observe(drawer)[drawing], oracle_inputs(st.hands, drawing, drawer), ours
                )
                with torch.inference_mode():
                    v = model(x).numpy().astype(np.float64)
                n = st.stock_len[drawing].astype(np.int64)
                pairs = zip(drawing, n, strict=True)
                p = np.stack([np.bincount(st.stock[g, :m], minlength=KINDS) for g, m in pairs])
                top = st.stock[drawing, n - 1]
                c = v[np.arange(len(drawing)), top] - (p / n[:, None] * v).sum(1)
                total[drawing] += np.where(ours, c, -c)
                draws[drawing] += 1
            game.step(now, check=False)
        return total, draws

    return corrections


def ratios(model: CardModel, hands: int = 1000) -> None:
    """Variance ratios on ppo against discard_table: the critic, the model, both."""

    def lstsq(y, cs):
        x = np.stack(cs, 1)
        return np.linalg.lstsq(x - x.mean(0), y - y.mean(), rcond=None)[0]

    def ratio(y, cs, k):
        return np.var(y) / np.var(y - np.stack(cs, 1) @ k)

    runs = {}
    for seed in (8, 7):
        found = []
        for corrections in (critic_corrections, card_corrections(model)):
            tournament.draw_corrections = corrections
            res = tournament.run_tournament(
                ["ppo", "discard_table"], hands_per_pairing=hands, seed=seed, progress=False,
                estimator="aivat", value=shipped_value("argentine", 4),
            )  # fmt: skip
            found.append(res.pairings[0].estimate)
        critic, card = found
        runs[seed] = (critic.pair_margin, critic.pair_win, critic.pair_correction,
                      card.pair_correction)  # fmt: skip
        print(f"seed {seed}: corrections {critic.seconds:.1f} s, critic; {card.seconds:.1f} s")
    for which, name in ((0, "margin"), (1, "win")):
        for seed in (8, 7):
            y, c1, c2 = (runs[seed][i] for i in (which, 2, 3))
            both = ratio(y, [c1, c2], lstsq(y, [c1, c2]))
            print(
                f"{name}, seed {seed}: critic {ratio(y, [c1], lstsq(y, [c1])):.3f}, model "
                f"{ratio(y, [c2], lstsq(y, [c2])):.3f}, both {both:.3f}"
            )
        k = lstsq(runs[8][which], [runs[8][2], runs[8][3]])
        y, c1, c2 = (runs[7][i] for i in (which, 2, 3))
        print(f"{name}, seed 7 with seed 8's factors, both: {ratio(y, [c1, c2], k):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("collect", "fit"))
    parser.add_argument("games", nargs="?")
    parser.add_argument("lo", nargs="?", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/card"))
    parser.add_argument("--epochs", type=int, default=8)
    args = parser.parse_args()
    torch.manual_seed(0)
    if args.what == "collect":
        collect(args.games, args.lo, args.out)
    else:
        ratios(fit(args.out, args.epochs))


if __name__ == "__main__":
    main()
