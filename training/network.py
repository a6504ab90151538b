"""The policy-value network: separate encoders for the hand, the melds, the pile and the
rest of the observation, a shared trunk, and a policy head shaped like the action space.

Observation blocks come from :func:`burako_env.core.constants.obs_layout`; every block
is scaled on the way in (card counts / 2, hand sizes / 11, meld fields one-hot or / 14,
counters and scores through ``sign(x) log(1 + |x|)``). The ``variant`` block (the rules'
parameters) is not read: a policy is trained for one variant and player count.

The meld encoder embeds each of the 2 x MAX_MELDS meld rows on its own (only the rows in
use are computed), pools them per team (sum and max) for the trunk, and feeds the own
team's row embeddings to the **add-card head**: the logit of "add card c to meld slot m"
is a function of slot m's embedding and the trunk, so the policy knows which meld each
slot holds. The other actions (draw, peek, open group / run / wild group, discard) come
from a linear head.

The policy works on the **legal action lists** (:func:`legal_lists`): the logits of the
legal ids only, padded with ``-1e9`` (probability exactly 0 in float32); the entropy
sums over the legal actions only. Invalid actions thus never get probability.
"""

from __future__ import annotations

import numpy as np
import torch
from numba import njit
from torch import nn
from torch.nn import functional as F

from burako_env.core.constants import (
    ADD_BASE,
    DISCARD_BASE,
    MAX_MELDS,
    MAX_MUERTOS,
    MELD_OBS_FIELDS,
    MF_GAP,
    MF_HI,
    MF_KEY,
    MF_KIND,
    MF_LO,
    MF_N0,
    MF_NJOKER,
    MF_SIZE,
    MF_WILD,
    MUERTO_OBS_FIELDS,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    NUM_MELD_FIELDS,
    NUM_MISC,
    NUM_PHASES,
    ObsLayout,
    obs_layout,
)

MASKED_LOGIT = -1e9
NUM_CARD_FEATURES = 10  # see BurakoNet._cards
CARD_EMBED = 8
NUM_RANK = 13
WILD_CARD_IDS = torch.tensor([s * NUM_RANK + 1 for s in range(4)] + [NUM_CARD_TYPES - 1])
NUM_OTHER_ACTIONS = NUM_ACTIONS - (DISCARD_BASE - ADD_BASE)  # every action but the adds
#: meld row features: kind (4), key (13), lo / hi / gap one-hot (15 each), wild card + 1
#: one-hot (54), size / 14, natural counts per suit / 2 (4), jokers / 2, clean, canasta,
#: closed
MELD_ROW_FEATURES = 4 + 13 + 3 * 15 + (NUM_CARD_TYPES + 1) + 1 + 4 + 1 + 3


def layout_tuple(num_players: int, total_cards: int) -> ObsLayout:
    return obs_layout(num_players, total_cards)


def symlog(x: torch.Tensor) -> torch.Tensor:
    return torch.sign(x) * torch.log1p(torch.abs(x))


def layer_init(layer: nn.Linear, std: float = float(np.sqrt(2)), bias: float = 0.0) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


def meld_fits(r: torch.Tensor, team_row: torch.Tensor, fits: torch.Tensor) -> None:
    """Mark in ``fits`` [N * 2, 53] the card types that can (roughly) be added to the meld
    rows ``r`` (raw int fields [U, 15], int64) of team rows ``team_row`` [U]: a group
    takes its rank; a run the naturals next to its ends (two away while its wild stands at
    an end) and the one its wild stands in for; a meld without a wild (or a wild group)
    takes a wild. Closed melds take nothing. A feature, not the rules: the mask decides."""
    kind, key = r[:, MF_KIND], r[:, MF_KEY]
    lo, hi, gap, wild = r[:, MF_LO], r[:, MF_HI], r[:, MF_GAP], r[:, MF_WILD]
    closed = r[:, NUM_MELD_FIELDS + 2] > 0
    open_ = ~closed
    cand = torch.full((r.shape[0], 9), -1, dtype=torch.long)
    group = (kind == 1) & open_
    cand[:, :4] = torch.where(
        group[:, None], torch.arange(4)[None, :] * NUM_RANK + key[:, None].clamp(0, 12), -1
    )
    run = (kind == 2) & open_
    end_wild = (wild > 0) & (gap == 0)
    pos = torch.stack([lo - 1, hi + 1, lo - 2, hi + 2, gap], dim=1)
    ok = (pos >= 1) & (pos <= 14)
    ok[:, 2:4] &= end_wild[:, None]
    ok[:, 4] &= gap > 0
    rank = torch.where(pos >= 14, torch.zeros_like(pos), pos - 1)
    card = key[:, None].clamp(0, 3) * NUM_RANK + rank.clamp(0, 12)
    cand[:, 4:] = torch.where(run[:, None] & ok, card, -1)
    flat = team_row[:, None] * NUM_CARD_TYPES + cand
    hit = cand >= 0
    fits.view(-1)[flat[hit]] = 1.0
    takes_wild = open_ & (((kind == 1) | (kind == 2)) & (wild == 0) | (kind == 3))
    rows_w = team_row[takes_wild]
    if rows_w.numel():
        idx = rows_w[:, None] * NUM_CARD_TYPES + WILD_CARD_IDS[None, :]
        fits.view(-1)[idx.reshape(-1)] = 1.0


@njit(cache=True)
def _lists_kernel(mask, ids, counts):
    n, a = mask.shape
    for i in range(n):
        k = 0
        for j in range(a):
            if mask[i, j]:
                ids[i, k] = j
                k += 1
        counts[i] = k


def legal_lists(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The legal action ids of each row of a bool mask [N, A] as a padded int64 array
    [N, K] (K = the largest count; padding repeats the row's first id) and the counts."""
    mask = np.ascontiguousarray(mask, dtype=np.bool_)
    n = mask.shape[0]
    counts = np.empty(n, np.int64)
    width = max(1, int(mask.sum(1).max())) if n else 1
    ids = np.zeros((n, width), np.int64)
    _lists_kernel(mask, ids, counts)
    if (counts == 0).any():
        raise ValueError(f"rows without a legal action: {np.flatnonzero(counts == 0)[:10]}")
    ids = np.where(np.arange(width)[None, :] < counts[:, None], ids, ids[:, :1])
    return ids, counts


def padded(ids: np.ndarray, counts: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """Torch tensors ``(legal [N, K], valid [N, K])`` from :func:`legal_lists`."""
    legal = torch.from_numpy(ids)
    valid = torch.arange(ids.shape[1])[None, :] < torch.from_numpy(counts)[:, None]
    return legal, valid


class BurakoNet(nn.Module):
    """Actor-critic for one (num_players, total_cards) observation layout."""

    def __init__(
        self,
        num_players: int,
        total_cards: int,
        hidden: int = 256,
        encoder: int = 128,
        meld_dim: int = 32,
        card_features: bool = True,
    ) -> None:
        super().__init__()
        self.num_players = int(num_players)
        self.total_cards = int(total_cards)
        self.hparams = {
            "hidden": hidden,
            "encoder": encoder,
            "meld_dim": meld_dim,
            "card_features": bool(card_features),
        }
        lay = obs_layout(self.num_players, self.total_cards)
        self.layout = lay
        self.obs_size = lay.size
        n_known = (self.num_players - 1) * NUM_CARD_TYPES
        self._rest_size = (
            2 * NUM_CARD_TYPES  # table counts
            + n_known
            + self.num_players  # hand sizes
            + 2 * MAX_MUERTOS * MUERTO_OBS_FIELDS
            + NUM_PHASES
            + NUM_MISC
        )
        half = max(2, encoder // 2)
        self.hand_enc = nn.Sequential(layer_init(nn.Linear(NUM_CARD_TYPES, encoder)), nn.ReLU())
        self.pile_enc = nn.Sequential(layer_init(nn.Linear(3 * NUM_CARD_TYPES, half)), nn.ReLU())
        self.rest_enc = nn.Sequential(layer_init(nn.Linear(self._rest_size, encoder)), nn.ReLU())
        self.meld_enc = nn.Sequential(
            layer_init(nn.Linear(MELD_ROW_FEATURES, meld_dim)),
            nn.ReLU(),
            layer_init(nn.Linear(meld_dim, meld_dim)),
            nn.ReLU(),
        )
        trunk_in = 2 * encoder + half + 4 * meld_dim
        if card_features:
            # per card type: its counts in view and whether it fits a meld of either team
            self.card_embed = nn.Parameter(torch.randn(NUM_CARD_TYPES, CARD_EMBED) * 0.1)
            self.card_enc = nn.Sequential(
                layer_init(nn.Linear(NUM_CARD_FEATURES + CARD_EMBED, meld_dim)), nn.ReLU()
            )
            self.card_ctx = layer_init(nn.Linear(hidden, meld_dim))
            self.card_discard = layer_init(nn.Linear(meld_dim, 1), std=0.01)
            trunk_in += 2 * meld_dim
        self.trunk = nn.Sequential(
            layer_init(nn.Linear(trunk_in, hidden)),
            nn.ReLU(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.ReLU(),
        )
        self.other_head = layer_init(nn.Linear(hidden, NUM_OTHER_ACTIONS), std=0.01)
        self.add_ctx = layer_init(nn.Linear(hidden, meld_dim))
        self.add_row = layer_init(nn.Linear(meld_dim, meld_dim))
        self.add_head = layer_init(nn.Linear(meld_dim, NUM_CARD_TYPES), std=0.01)
        self.value_head = layer_init(nn.Linear(hidden, 1), std=1.0)

    # ------------------------------------------------------------ features
    def _meld_rows(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Row embeddings [N, 2, MAX_MELDS, meld_dim] (empty rows are zero) and, with
        card features, which card types fit a meld of each team [N, 2, 53]."""
        n = obs.shape[0]
        lay = self.layout
        rows = obs[:, lay.melds : lay.melds + 2 * MAX_MELDS * MELD_OBS_FIELDS]
        rows = rows.reshape(n * 2 * MAX_MELDS, MELD_OBS_FIELDS)
        used = torch.nonzero(rows[:, MF_KIND] > 0).squeeze(1)
        d = self.hparams["meld_dim"]
        out = torch.zeros(n * 2 * MAX_MELDS, d, dtype=torch.float32, device=obs.device)
        fits = None
        if self.hparams["card_features"]:
            fits = torch.zeros(n * 2, NUM_CARD_TYPES, dtype=torch.float32)
        if used.numel():
            r = rows.index_select(0, used).long()
            if fits is not None:
                meld_fits(r, used // MAX_MELDS, fits)
            feats = torch.cat(
                [
                    F.one_hot(r[:, MF_KIND].clamp(0, 3), 4),
                    F.one_hot(r[:, MF_KEY].clamp(0, 12), 13),
                    F.one_hot(r[:, MF_LO].clamp(0, 14), 15),
                    F.one_hot(r[:, MF_HI].clamp(0, 14), 15),
                    F.one_hot(r[:, MF_GAP].clamp(0, 14), 15),
                    F.one_hot(r[:, MF_WILD].clamp(0, NUM_CARD_TYPES), NUM_CARD_TYPES + 1),
                ],
                dim=1,
            ).float()
            rf = r.float()
            extra = torch.cat(
                [
                    rf[:, MF_SIZE : MF_SIZE + 1] / 14.0,
                    rf[:, MF_N0 : MF_N0 + 4] / 2.0,
                    rf[:, MF_NJOKER : MF_NJOKER + 1] / 2.0,
                    rf[:, NUM_MELD_FIELDS : NUM_MELD_FIELDS + 3],
                ],
                dim=1,
            )
            out.index_copy_(0, used, self.meld_enc(torch.cat([feats, extra], dim=1)))
        if fits is not None:
            fits = fits.reshape(n, 2, NUM_CARD_TYPES)
        return out.reshape(n, 2, MAX_MELDS, d), fits

    def _features(self, obs: torch.Tensor):
        lay = self.layout
        x = obs.float()
        hand = x[:, lay.hand : lay.hand + NUM_CARD_TYPES] * 0.5
        pile = torch.cat(
            [
                x[:, lay.pile_counts : lay.pile_counts + NUM_CARD_TYPES] * 0.5,
                x[:, lay.pile_top : lay.pile_top + NUM_CARD_TYPES],
                x[:, lay.peek_card : lay.peek_card + NUM_CARD_TYPES],
            ],
            dim=1,
        )
        n_known = (self.num_players - 1) * NUM_CARD_TYPES
        rest = torch.cat(
            [
                x[:, lay.table_counts : lay.table_counts + 2 * NUM_CARD_TYPES] * 0.5,
                x[:, lay.known : lay.known + n_known] * 0.5,
                x[:, lay.hand_sizes : lay.hand_sizes + self.num_players] / 11.0,
                x[:, lay.muertos : lay.muertos + 2 * MAX_MUERTOS * MUERTO_OBS_FIELDS] * 0.25,
                x[:, lay.phase : lay.phase + NUM_PHASES],
                symlog(x[:, lay.misc : lay.misc + NUM_MISC]),
            ],
            dim=1,
        )
        rows, fits = self._meld_rows(obs)  # [N, 2, M, d], [N, 2, 53]
        pooled = torch.cat([rows.sum(2) / 4.0, rows.amax(2)], dim=2).flatten(1)
        parts = [self.hand_enc(hand), self.pile_enc(pile), self.rest_enc(rest), pooled]
        cards = None
        if fits is not None:
            cards = self._cards(x, fits)  # [N, 53, d]
            parts.append(torch.cat([cards.sum(1) / 8.0, cards.amax(1)], dim=1))
        return self.trunk(torch.cat(parts, 1)), rows[:, 0], cards

    def _cards(self, x: torch.Tensor, fits: torch.Tensor) -> torch.Tensor:
        """Per card type: fits an own / opponents' meld, held, in the pile, on each
        team's table, known in the opponents' / the partner's hands, top of the pile,
        copies seen; with a learned embedding of the card; encoded [N, 53, d]."""
        lay, n, c = self.layout, x.shape[0], NUM_CARD_TYPES
        known = x[:, lay.known : lay.known + (self.num_players - 1) * c].reshape(n, -1, c)
        opp = known[:, 0::2].sum(1)  # seats viewer+1, +3, ...: the other team
        partner = known[:, 1::2].sum(1)
        hand = x[:, lay.hand : lay.hand + c]
        pile = x[:, lay.pile_counts : lay.pile_counts + c]
        table = x[:, lay.table_counts : lay.table_counts + 2 * c].reshape(n, 2, c)
        seen = hand + pile + table.sum(1) + opp + partner
        feats = torch.stack(
            [
                fits[:, 0],
                fits[:, 1],
                hand * 0.5,
                pile * 0.5,
                table[:, 0] * 0.5,
                table[:, 1] * 0.5,
                opp * 0.5,
                partner * 0.5,
                x[:, lay.pile_top : lay.pile_top + c],
                seen * 0.5,
            ],
            dim=2,
        )
        emb = self.card_embed[None].expand(n, -1, -1)
        return self.card_enc(torch.cat([feats, emb], dim=2))

    # ------------------------------------------------------------ heads
    def forward(self, obs: torch.Tensor, legal: torch.Tensor, valid: torch.Tensor):
        """Logits of the legal actions and the values.

        ``obs`` int16 [N, O]; ``legal`` int64 [N, K] action ids (padding anywhere
        ``valid`` [N, K] is false). Returns ``(logits [N, K], values [N])``, padding at
        MASKED_LOGIT. The add-card logits of slot m come from slot m's context vector
        (its row embedding and the trunk) through one linear map to the 53 card types.
        """
        h, own_rows, cards = self._features(obs)
        other = self.other_head(h)  # [N, NUM_OTHER_ACTIONS], the discards last
        if cards is not None:  # discard logits also from each card's own features
            z = F.relu(cards + self.card_ctx(h)[:, None, :])
            bias = self.card_discard(z).squeeze(2)  # [N, 53]
            other = torch.cat([other[:, :ADD_BASE], other[:, ADD_BASE:] + bias], dim=1)
        z = F.relu(self.add_row(own_rows) + self.add_ctx(h)[:, None, :])  # [N, M, d]
        add = self.add_head(z).flatten(1)  # [N, M * 53], slot-major like the action ids
        full = torch.cat([other[:, :ADD_BASE], add, other[:, ADD_BASE:]], dim=1)
        logits = full.gather(1, legal)
        logits = torch.where(valid, logits, torch.full_like(logits, MASKED_LOGIT))
        return logits, self.value_head(h).squeeze(1)

    def full_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """Logits of every action id [N, NUM_ACTIONS] (for inspection and tests)."""
        n = obs.shape[0]
        ids = torch.arange(NUM_ACTIONS).expand(n, -1)
        return self.forward(obs, ids, torch.ones_like(ids, dtype=torch.bool))[0]

    def act(
        self,
        obs: torch.Tensor,
        legal: torch.Tensor,
        valid: torch.Tensor,
        generator: torch.Generator | None = None,
        greedy: bool = False,
    ):
        """Sample (or argmax) a legal action per row: ``(actions, picks, logprobs,
        values)``, ``picks`` being the chosen positions in the legal lists.

        Sampling is Gumbel-max over the legal logits with noise from ``generator``;
        padding entries can never be chosen.
        """
        logits, value = self.forward(obs, legal, valid)
        logp = torch.log_softmax(logits, dim=-1)
        if greedy:
            pick = logits.argmax(1)
        else:
            u = torch.rand(logits.shape, generator=generator).clamp_(1e-20, 1.0 - 1e-7)
            noisy = logits - torch.log(-torch.log(u))
            pick = torch.where(valid, noisy, torch.full_like(noisy, -torch.inf)).argmax(1)
        action = legal.gather(1, pick[:, None]).squeeze(1)
        return action, pick, logp.gather(1, pick[:, None]).squeeze(1), value

    def evaluate(self, obs, legal, valid, pick):
        """``(logprob, entropy, value)`` of the legal-list positions ``pick`` [N] (PPO
        loss). Entropy counts only the legal actions."""
        logits, value = self.forward(obs, legal, valid)
        logp = torch.log_softmax(logits, dim=-1)
        entropy = -torch.where(valid, logp.exp() * logp, torch.zeros_like(logp)).sum(-1)
        return logp.gather(1, pick[:, None]).squeeze(1), entropy, value

    # ------------------------------------------------------------ files
    def spec(self) -> dict:
        """What it takes to rebuild this network (saved beside its weights), with the
        sizes of the observation blocks it reads (:func:`read_blocks`)."""
        return {
            "num_players": self.num_players,
            "total_cards": self.total_cards,
            "obs_size": self.obs_size,
            "num_actions": NUM_ACTIONS,
            "blocks": read_blocks(self.num_players, self.total_cards),
            **self.hparams,
        }

    @classmethod
    def from_spec(cls, spec: dict) -> BurakoNet:
        return cls(
            spec["num_players"],
            spec["total_cards"],
            hidden=spec["hidden"],
            encoder=spec["encoder"],
            meld_dim=spec["meld_dim"],
            card_features=spec.get("card_features", False),
        )


def read_blocks(num_players: int, total_cards: int) -> dict[str, int]:
    """Sizes of the observation blocks the network reads: every block but ``variant``
    (the rules' parameters, constant for a policy trained on one variant) and
    ``pile_order`` (the pile's counts and top card stand for it)."""
    lay = obs_layout(num_players, total_cards)._asdict()
    names = [k for k in lay if k != "size"]
    ends = [lay[k] for k in names[1:]] + [lay["size"]]
    sizes = {k: end - lay[k] for k, end in zip(names, ends, strict=True)}
    return {k: v for k, v in sizes.items() if k not in ("variant", "pile_order")}


def num_parameters(net: nn.Module) -> int:
    return sum(p.numel() for p in net.parameters())
