"""The policy-value network: separate encoders for the hand, the melds, the pile and the
rest of the observation, a shared trunk, and a policy head shaped like the action space.

It belongs to the agent that plays it (:class:`burako_env.agents.ppo_agent.PPOAgent`); training
(:mod:`burako_env.training.ppo`) builds on it, and ``burako_env.training.network``
re-exports these names.

Observation blocks come from :func:`burako_env.core.constants.obs_layout`; every block
is scaled on the way in (card counts / 2, hand sizes / 11, meld fields one-hot or / 14,
counters and scores through ``sign(x) log(1 + |x|)``). The ``variant`` block (the rules'
parameters) is not read: a policy is trained for one variant and player count.

The meld encoder embeds each of the 2 x MAX_MELDS meld rows on its own (only the rows in
use are computed), pools them per team (sum and max) for the trunk, and feeds the own
team's row embeddings to the **add-card head**: the logit of "add card c to meld slot m"
is a function of slot m's embedding and the trunk, so the policy knows which meld each
slot holds. The other actions (draw, peek, open group / run / wild group, discard) come
from a linear head; with ``card_features``, a discard's logit also has a term from its
card's own features.

The policy works on the **legal action lists** (:func:`legal_lists`): the logits of the
legal ids only, padded with ``-1e9`` (probability exactly 0 in float32); the entropy
sums over the legal actions only. Invalid actions thus never get probability. Only the
listed ids' logits are computed (about 10 of the 2,541 per observation), from the rows
of the heads they use; :meth:`BurakoNet.full_logits` computes every id's densely, the
reference the legal-list logits are tested against.
"""

from __future__ import annotations

from typing import Any, NamedTuple, cast

import numpy as np

try:  # the train extra: torch is not a core dependency (burako_env.extras)
    import torch
    from torch import nn
    from torch.nn import functional as F
except ImportError as exc:
    from burako_env.extras import MissingExtra

    raise MissingExtra("the PPO network (burako_env.agents.network)", "torch") from exc

import numba

from burako_env.agents.heuristic import compiled_heuristic
from burako_env.agents.network_kernels import (
    LAYOUT_BLOCKS,
    card_pool_backward,
    card_pool_forward,
    count_meld_rows,
    featurize,
)
from burako_env.agents.policies import act_batch, legal_lists_kernel
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
    NUM_RANKS,
    OPEN_GROUP_BASE,
    ObsLayout,
    obs_layout,
)

MASKED_LOGIT = -1e9
#: the hinted action's initial logit bonus: the policy starts close to the hint policy
#: (with ten legal actions, e^3 / (e^3 + 9) = 69% on the hint) yet still explores
HINT_GAIN = 3.0
#: generator state of the hint policy's tie-breaks, the same for every decision
HINT_RNG_STATE = np.array([0x9E3779B9, 0x243F6A88, 0xB7E15162, 0x7F4A7C15], np.int64)
NUM_CARD_FEATURES = 10  # see BurakoNet._card_features
#: with ``card_context``, per card type also: its run neighbours in the hand (one and two
#: ranks away, same suit), and its rank's copies in the hand, the pile, the opponents'
#: known cards and on their table (what discard_table's danger and usefulness read)
NUM_CONTEXT_FEATURES = 6
#: with ``card_history``, per card type also: its copies in the pile discarded by the
#: viewer, by the next seat, by the partners and by the other opponents, read from the
#: pile's order (what a player sees of who threw what, and so does not collect)
NUM_HISTORY_FEATURES = 4
CARD_EMBED = 8
WILD_CARD_IDS = torch.tensor([s * NUM_RANKS + 1 for s in range(4)] + [NUM_CARD_TYPES - 1])
NUM_OTHER_ACTIONS = NUM_ACTIONS - (DISCARD_BASE - ADD_BASE)  # every action but the adds
#: the rows of ``other_head`` nearly every observation uses: draw, peek, take a muerto
#: (the ids below OPEN_GROUP_BASE) and the discards (its last NUM_CARD_TYPES rows)
HEAD_ROWS = torch.cat([torch.arange(OPEN_GROUP_BASE), torch.arange(ADD_BASE, NUM_OTHER_ACTIONS)])
#: meld row features: kind (4), key (13), lo / hi / gap one-hot (15 each), wild card + 1
#: one-hot (54), size / 14, natural counts per suit / 2 (4), jokers / 2, clean, canasta,
#: closed
MELD_ROW_FEATURES = 4 + 13 + 3 * 15 + (NUM_CARD_TYPES + 1) + 1 + 4 + 1 + 3


def layout_tuple(num_players: int, total_cards: int) -> ObsLayout:
    """The observation layout (the blocks' offsets) of a table of ``num_players`` and
    ``total_cards`` cards, as the core builds it."""
    return obs_layout(num_players, total_cards)


def symlog(x: torch.Tensor) -> torch.Tensor:
    """``sign(x) * log(1 + |x|)``: large values (points) squashed, small ones kept near linear."""
    return torch.sign(x) * torch.log1p(torch.abs(x))


def layer_init(layer: nn.Linear, std: float = float(np.sqrt(2)), bias: float = 0.0) -> nn.Linear:
    """``layer`` with orthogonal weights of gain ``std`` and constant biases ``bias`` (PPO's usual
    initialisation)."""
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
        group[:, None], torch.arange(4)[None, :] * NUM_RANKS + key[:, None].clamp(0, 12), -1
    )
    run = (kind == 2) & open_
    end_wild = (wild > 0) & (gap == 0)
    pos = torch.stack([lo - 1, hi + 1, lo - 2, hi + 2, gap], dim=1)
    ok = (pos >= 1) & (pos <= 14)
    ok[:, 2:4] &= end_wild[:, None]
    ok[:, 4] &= gap > 0
    rank = torch.where(pos >= 14, torch.zeros_like(pos), pos - 1)
    card = key[:, None].clamp(0, 3) * NUM_RANKS + rank.clamp(0, 12)
    cand[:, 4:] = torch.where(run[:, None] & ok, card, -1)
    flat = team_row[:, None] * NUM_CARD_TYPES + cand
    hit = cand >= 0
    fits.view(-1)[flat[hit]] = 1.0
    takes_wild = open_ & (((kind == 1) | (kind == 2)) & (wild == 0) | (kind == 3))
    rows_w = team_row[takes_wild]
    if rows_w.numel():
        idx = rows_w[:, None] * NUM_CARD_TYPES + WILD_CARD_IDS[None, :]
        fits.view(-1)[idx.reshape(-1)] = 1.0


class Heads(NamedTuple):
    """What :meth:`BurakoNet.heads` computes for a batch of decisions."""

    logits: torch.Tensor  # [N, K] the legal actions' logits, padding at MASKED_LOGIT
    value: torch.Tensor  # [N] the value from the observation
    oracle_value: torch.Tensor | None  # [N] the oracle critic's (training, oracle given)
    hidden_error: torch.Tensor | None  # [N] the hidden-card prediction's squared error


class NetInputs(NamedTuple):
    """What the network reads from a batch of N observations (:meth:`BurakoNet.inputs`)."""

    #: [N, 53 + 159 + rest]: the hand, the pile block (counts, top, peeked card) and the
    #: rest (table counts, known cards, hand sizes, muertos, phase, counters), scaled
    dense: torch.Tensor
    #: [U', MELD_ROW_FEATURES]: the meld rows in use, one-hot and scaled fields (each
    #: distinct row once where ``meld_of`` is given)
    meld_x: torch.Tensor
    #: int64 [U]: the rows' ids, ascending (``n * 2 * MAX_MELDS + team * MAX_MELDS + slot``)
    used: torch.Tensor
    #: int64 [U]: the row of ``meld_x`` of each row in use, or None: ``meld_x`` has U rows
    meld_of: torch.Tensor | None
    #: [N, 53, num_card_features] per-card features, or None without ``card_features``
    cards: torch.Tensor | None

    def to(self, device: torch.device) -> NetInputs:
        """The same inputs on ``device``."""
        return NetInputs(
            self.dense.to(device),
            self.meld_x.to(device),
            self.used.to(device),
            None if self.meld_of is None else self.meld_of.to(device),
            None if self.cards is None else self.cards.to(device),
        )


def inputs_kernels_apply(obs: torch.Tensor) -> bool:
    """Whether the compiled featurizer can read these observations (int16 on the CPU,
    numba's compiler on)."""
    return obs.device.type == "cpu" and obs.dtype == torch.int16 and not _JIT_DISABLED


def card_kernels_apply(feats: torch.Tensor) -> bool:
    """Whether :class:`CardPool` can pool these card features: float32 on the CPU, with
    numba's compiler on (under ``NUMBA_DISABLE_JIT=1`` the kernels would run as Python
    loops: torch's path is the faster one there)."""
    return feats.device.type == "cpu" and feats.dtype == torch.float32 and not _JIT_DISABLED


_JIT_DISABLED = bool(numba.config.DISABLE_JIT)


class CardPool(torch.autograd.Function):
    """``(sum, max)`` over the card types of ``relu(per_card[c] + feats[:, c] @ wf)``,
    without the [N, 53, d] tensor in between (:mod:`burako_env.agents.network_kernels`).
    ``feats`` [N, 53, F] gets no gradient (it is read from the observation); ``wf`` [F, d]
    and ``per_card`` [53, d] do."""

    @staticmethod
    def forward(ctx, feats, wf, per_card):
        """``(sum, max)`` [N, d] by the compiled kernel, keeping the arg-max card of each unit
        for :meth:`backward`."""
        f = feats.detach().contiguous()
        w = wf.detach().contiguous()
        pc = per_card.detach().contiguous()
        n, d = f.shape[0], w.shape[1]
        total = torch.empty(n, d)
        top = torch.empty(n, d)
        arg = torch.empty(n, d, dtype=torch.int8)
        card_pool_forward(f.numpy(), w.numpy(), pc.numpy(), total.numpy(), top.numpy(), arg.numpy())
        ctx.save_for_backward(f, w, pc, arg)
        ctx.mark_non_differentiable(arg)
        return total, top

    @staticmethod
    def backward(ctx, grad_total, grad_top):
        """The gradients of ``feats``, ``wf`` and ``per_card`` by the compiled kernel (the max's
        through the arg-max cards :meth:`forward` kept)."""
        f, w, pc, arg = ctx.saved_tensors
        grad_wf = torch.empty_like(w)
        grad_pc = torch.empty_like(pc)
        card_pool_backward(
            f.numpy(),
            w.numpy(),
            pc.numpy(),
            arg.numpy(),
            grad_total.contiguous().numpy(),
            grad_top.contiguous().numpy(),
            grad_wf.numpy(),
            grad_pc.numpy(),
        )
        return None, grad_wf, grad_pc


def legal_lists(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The legal action ids of each row of a bool mask [N, A] as a padded int64 array
    [N, K] (K = the largest count; padding repeats the row's first id) and the counts."""
    mask = np.ascontiguousarray(mask, dtype=np.bool_)
    n = mask.shape[0]
    counts = np.empty(n, np.int64)
    width = max(1, int(mask.sum(1).max())) if n else 1
    ids = np.zeros((n, width), np.int64)
    legal_lists_kernel(mask, ids, counts)
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
        hint: str | None = None,
        card_context: bool = False,
        oracle_critic: bool = False,
        hidden_cards: bool = False,
        card_history: bool = False,
    ) -> None:
        super().__init__()
        if card_context and not card_features:
            raise ValueError("card_context extends the card features: it needs card_features")
        if card_history and not card_features:
            raise ValueError("card_history extends the card features: it needs card_features")
        self.num_players = int(num_players)
        self.total_cards = int(total_cards)
        #: the constructor's arguments that shape the network (saved with it: :meth:`spec`)
        self.hparams: dict[str, Any] = {
            "hidden": hidden,
            "encoder": encoder,
            "meld_dim": meld_dim,
            "card_features": bool(card_features),
            "hint": hint,
        }
        if card_context:  # only when set: the files saved before it keep their spec
            self.hparams["card_context"] = True
        if card_history:
            self.hparams["card_history"] = True
        if oracle_critic:
            self.hparams["oracle_critic"] = True
        if hidden_cards:
            self.hparams["hidden_cards"] = True
        #: the card encoder's pooling by the compiled kernels where they apply (False:
        #: always torch's, the reference the kernels are tested against)
        self.card_kernels = True
        self.num_card_features = (
            NUM_CARD_FEATURES
            + (NUM_CONTEXT_FEATURES if card_context else 0)
            + (NUM_HISTORY_FEATURES if card_history else 0)
        )
        self.hint_policy = hint_policy(hint)
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
        self._offsets = np.array([getattr(lay, k) for k in LAYOUT_BLOCKS], np.int64)
        self._dense_size = 4 * NUM_CARD_TYPES + self._rest_size
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
                layer_init(nn.Linear(self.num_card_features + CARD_EMBED, meld_dim)), nn.ReLU()
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
        #: the size of the oracle input (the other seats' hands) of the training-only
        #: heads, 0: none
        self.oracle_size = (
            (self.num_players - 1) * NUM_CARD_TYPES if oracle_critic or hidden_cards else 0
        )
        self.oracle_critic = bool(oracle_critic)
        if hidden_cards:
            # an auxiliary task: the other seats' hands predicted from the trunk, so that
            # the trunk the policy reads learns to infer them (training only)
            self.hidden_head = layer_init(nn.Linear(hidden, self.oracle_size), std=0.01)
        self.hidden_cards = bool(hidden_cards)
        if oracle_critic:
            # training only: a second value head that also reads every hidden hand
            # (Suphx's oracle guiding, PerfectDou's perfect-training-imperfect-execution);
            # the policy's logits never read it, so play depends on the observation only
            self.oracle_enc = nn.Sequential(
                layer_init(nn.Linear(self.oracle_size, encoder)), nn.ReLU()
            )
            self.oracle_head = nn.Sequential(
                layer_init(nn.Linear(hidden + encoder, hidden)),
                nn.ReLU(),
                layer_init(nn.Linear(hidden, 1), std=1.0),
            )
        if self.hint_policy is not None:
            # the hinted action's logit bonus: a learned constant plus a learned function
            # of the state (zero at first), so the policy can learn where to trust it
            self.hint_gain = nn.Parameter(torch.tensor(HINT_GAIN))
            self.hint_ctx = layer_init(nn.Linear(hidden, 1), std=0.0)

    # ------------------------------------------------------------ features
    def inputs(self, obs: torch.Tensor) -> NetInputs:
        """The network's inputs read from observations ``obs`` int16 [N, O]: by the
        compiled :func:`~burako_env.agents.network_kernels.featurize` on the CPU, else
        by torch (:meth:`reference_inputs`, the same values)."""
        if self.card_kernels and inputs_kernels_apply(obs):
            return self._compiled_inputs(obs)
        return self.reference_inputs(obs)

    def _compiled_inputs(self, obs: torch.Tensor) -> NetInputs:
        o = np.ascontiguousarray(obs.numpy())
        n, nf = o.shape[0], self.num_card_features
        starts = np.empty(n + 1, np.int64)
        rows = count_meld_rows(o, self.layout.melds, 2 * MAX_MELDS, MELD_OBS_FIELDS, starts)
        dense = np.empty((n, self._dense_size), np.float32)
        meld_x = np.empty((rows, MELD_ROW_FEATURES), np.float32)
        used = np.empty(rows, np.int64)
        meld_of = np.empty(rows, np.int64)
        with_cards = self.hparams["card_features"]
        cards = np.empty((n if with_cards else 0, NUM_CARD_TYPES, nf), np.float32)
        distinct = featurize(
            o,
            self._offsets,
            self.num_players,
            bool(self.hparams.get("card_context")),
            self.total_cards if self.hparams.get("card_history") else 0,
            starts,
            dense,
            meld_x,
            used,
            meld_of,
            cards,
        )
        return NetInputs(
            torch.from_numpy(dense),
            torch.from_numpy(meld_x[:distinct]),
            torch.from_numpy(used),
            torch.from_numpy(meld_of),
            torch.from_numpy(cards) if with_cards else None,
        )

    def reference_inputs(self, obs: torch.Tensor) -> NetInputs:
        """:meth:`inputs` computed by torch ops (any device; the reference the compiled
        featurizer is tested against)."""
        lay = self.layout
        n = obs.shape[0]
        x = obs.float()
        n_known = (self.num_players - 1) * NUM_CARD_TYPES
        dense = torch.cat(
            [
                x[:, lay.hand : lay.hand + NUM_CARD_TYPES] * 0.5,
                x[:, lay.pile_counts : lay.pile_counts + NUM_CARD_TYPES] * 0.5,
                x[:, lay.pile_top : lay.pile_top + NUM_CARD_TYPES],
                x[:, lay.peek_card : lay.peek_card + NUM_CARD_TYPES],
                x[:, lay.table_counts : lay.table_counts + 2 * NUM_CARD_TYPES] * 0.5,
                x[:, lay.known : lay.known + n_known] * 0.5,
                x[:, lay.hand_sizes : lay.hand_sizes + self.num_players] / 11.0,
                x[:, lay.muertos : lay.muertos + 2 * MAX_MUERTOS * MUERTO_OBS_FIELDS] * 0.25,
                x[:, lay.phase : lay.phase + NUM_PHASES],
                symlog(x[:, lay.misc : lay.misc + NUM_MISC]),
            ],
            dim=1,
        )
        rows = obs[:, lay.melds : lay.melds + 2 * MAX_MELDS * MELD_OBS_FIELDS]
        rows = rows.reshape(n, 2 * MAX_MELDS, MELD_OBS_FIELDS)  # a view of obs
        used = torch.nonzero((rows[:, :, MF_KIND] > 0).reshape(-1)).squeeze(1)
        r = rows[used // (2 * MAX_MELDS), used % (2 * MAX_MELDS)].long()  # [U, fields]
        rf = r.float()
        meld_x = torch.cat(
            [
                F.one_hot(r[:, MF_KIND].clamp(0, 3), 4).float(),
                F.one_hot(r[:, MF_KEY].clamp(0, 12), 13).float(),
                F.one_hot(r[:, MF_LO].clamp(0, 14), 15).float(),
                F.one_hot(r[:, MF_HI].clamp(0, 14), 15).float(),
                F.one_hot(r[:, MF_GAP].clamp(0, 14), 15).float(),
                F.one_hot(r[:, MF_WILD].clamp(0, NUM_CARD_TYPES), NUM_CARD_TYPES + 1).float(),
                rf[:, MF_SIZE : MF_SIZE + 1] / 14.0,
                rf[:, MF_N0 : MF_N0 + 4] / 2.0,
                rf[:, MF_NJOKER : MF_NJOKER + 1] / 2.0,
                rf[:, NUM_MELD_FIELDS : NUM_MELD_FIELDS + 3],
            ],
            dim=1,
        )
        cards = None
        if self.hparams["card_features"]:
            fits = torch.zeros(n * 2, NUM_CARD_TYPES, dtype=torch.float32, device=obs.device)
            if used.numel():
                meld_fits(r, used // MAX_MELDS, fits)
            cards = self._card_features(x, fits.reshape(n, 2, NUM_CARD_TYPES))
        return NetInputs(dense, meld_x, used, None, cards)

    def _meld_rows(self, inp: NetInputs, n: int) -> tuple[torch.Tensor, torch.Tensor]:
        """The meld rows in use (``inp.used``: a row id is ``n * 2 * MAX_MELDS + team *
        MAX_MELDS + slot``, ascending; team 0 is the viewer's) embedded on their own:
        ``(embeddings [U, meld_dim], pools [N, 4 * meld_dim])``, the pools being the sum
        / 4 and the max of each team's row embeddings (an empty row counts as zero)."""
        d = self.hparams["meld_dim"]
        team = inp.used // MAX_MELDS  # the (observation, team) of each row, in [0, 2N)
        emb = self.meld_enc(inp.meld_x)  # [U, d], ReLU: >= 0
        if inp.meld_of is not None:  # the rows were encoded once per distinct row
            emb = emb.index_select(0, inp.meld_of)
        # per team: the sum over its rows, and the max with the empty rows' zero
        total = emb.new_zeros(2 * n, d).index_add(0, team, emb)
        top = emb.new_zeros(2 * n, d).scatter_reduce(0, team[:, None].expand(-1, d), emb, "amax")
        pools = torch.cat([total / 4.0, top], dim=1).reshape(n, 4 * d)
        return emb, pools

    def _features(self, obs: torch.Tensor):
        """``(h [N, hidden], meld embeddings [U, d], their row ids [U], card features)``:
        the trunk's output, the meld rows in use (:meth:`_meld_rows`) and, with card
        features, :meth:`_card_features` [N, 53, num_card_features] (else None)."""
        inp = self.inputs(obs)
        device = self.value_head.weight.device
        if inp.dense.device != device:  # read on the CPU, trained on the GPU
            inp = inp.to(device)
        a, b = NUM_CARD_TYPES, 4 * NUM_CARD_TYPES
        melds, pools = self._meld_rows(inp, obs.shape[0])
        parts = [
            self.hand_enc(inp.dense[:, :a]),
            self.pile_enc(inp.dense[:, a:b]),
            self.rest_enc(inp.dense[:, b:]),
            pools,
        ]
        if inp.cards is not None:
            total, top = self._pool_cards(inp.cards)
            parts.append(torch.cat([total / 8.0, top], dim=1))
        return self.trunk(torch.cat(parts, 1)), melds, inp.used, inp.cards

    def _pool_cards(self, feats: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The sum and the max over the card types of :meth:`_encode_cards` (each
        [N, d]), by the compiled kernels on the CPU (:class:`CardPool`), else by torch."""
        if self.card_kernels and card_kernels_apply(feats):
            lin = cast(nn.Linear, self.card_enc[0])  # a Sequential's item is typed Module
            nf = self.num_card_features
            per_card = F.linear(self.card_embed, lin.weight[:, nf:], lin.bias)  # [53, d]
            return CardPool.apply(feats, lin.weight[:, :nf].t(), per_card)
        cards = self._encode_cards(feats)  # [N, 53, d]
        # the same values either way; with autograd, max(dim) for its cheaper backward
        # (ties, which split amax's gradient, are zeros after the ReLU and get none
        # either way), else amax, much faster than max(dim)'s forward
        top = cards.max(1).values if cards.requires_grad else cards.amax(1)
        return cards.sum(1), top

    def _card_features(self, x: torch.Tensor, fits: torch.Tensor) -> torch.Tensor:
        """Per card type: fits an own / opponents' meld, held, in the pile, on each
        team's table, known in the opponents' / the partner's hands, top of the pile,
        copies seen; with ``card_context`` also its run neighbours in the hand and its
        rank's copies in view (:data:`NUM_CONTEXT_FEATURES`), with ``card_history`` its
        copies in the pile by who discarded them (:data:`NUM_HISTORY_FEATURES`); [N, 53,
        num_card_features]."""
        lay, n, c = self.layout, x.shape[0], NUM_CARD_TYPES
        known = x[:, lay.known : lay.known + (self.num_players - 1) * c].reshape(n, -1, c)
        opp = known[:, 0::2].sum(1)  # seats viewer+1, +3, ...: the other team
        partner = known[:, 1::2].sum(1)
        hand = x[:, lay.hand : lay.hand + c]
        pile = x[:, lay.pile_counts : lay.pile_counts + c]
        table = x[:, lay.table_counts : lay.table_counts + 2 * c].reshape(n, 2, c)
        seen = hand + pile + table.sum(1) + opp + partner
        feats = [
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
        ]
        if self.hparams.get("card_context"):
            feats += _rank_context(hand, pile, opp, table[:, 1])
        if self.hparams.get("card_history"):
            order = x[:, lay.pile_order : lay.pile_order + self.total_cards]
            feats += _pile_history(order, self.num_players)
        return torch.stack(feats, dim=2)

    def _encode_cards(self, feats: torch.Tensor, card: torch.Tensor | None = None):
        """``card_enc`` of card features with the learned embedding of the card: of
        every card type (``feats`` [N, 53, F] -> [N, 53, d]), or of rows ``feats`` [E, F]
        of card types ``card`` [E] (-> [E, d]), F = ``num_card_features``. The
        layer is applied in two parts: the embedding's share (and the bias) once per
        card type, the features' share by a matmul."""
        lin = cast(nn.Linear, self.card_enc[0])  # a Sequential's item is typed Module
        nf = self.num_card_features
        w = lin.weight  # [d, nf + CARD_EMBED]
        per_card = F.linear(self.card_embed, w[:, nf:], lin.bias)  # [53, d]
        wf = w[:, :nf].t()
        if card is None:
            out = torch.matmul(feats, wf) + per_card
        else:
            out = torch.addmm(per_card.index_select(0, card), feats, wf)
        return torch.relu_(out)

    # ------------------------------------------------------------ heads
    def hints(
        self,
        obs: torch.Tensor,
        legal: torch.Tensor,
        valid: torch.Tensor,
        mask: np.ndarray | None = None,
    ) -> torch.Tensor:
        """The hint policy's choice per row as a position in the legal list (int64 [N];
        all -1 without a hint policy). Deterministic: its ties are broken by a fixed
        generator state, so the hint is a function of the observation alone. ``mask``
        (bool [N, NUM_ACTIONS], the rows' masks) saves rebuilding it from the lists."""
        n = legal.shape[0]
        if self.hint_policy is None:
            return torch.full((n,), -1, dtype=torch.long)
        kind, weights = self.hint_policy
        if mask is None:
            mask = np.zeros((n, NUM_ACTIONS), np.bool_)
            r, k = valid.nonzero(as_tuple=True)
            mask[r.numpy(), legal[r, k].numpy()] = True
        states = np.tile(HINT_RNG_STATE, (n, 1))
        chosen = act_batch(kind, obs.numpy(), mask, states, weights)
        hit = (legal == torch.from_numpy(chosen)[:, None]) & valid
        return hit.int().argmax(1)

    def forward(
        self,
        obs: torch.Tensor,
        legal: torch.Tensor,
        valid: torch.Tensor,
        hint: torch.Tensor | None = None,
        oracle: torch.Tensor | None = None,
    ):
        """``(logits [N, K], values [N])`` of :meth:`heads`; with ``oracle`` and an
        oracle critic, values [N, 2]: the observation's critic and the oracle critic's."""
        out = self.heads(obs, legal, valid, hint, oracle)
        if out.oracle_value is None:
            return out.logits, out.value
        return out.logits, torch.stack([out.value, out.oracle_value], 1)

    def heads(
        self,
        obs: torch.Tensor,
        legal: torch.Tensor,
        valid: torch.Tensor,
        hint: torch.Tensor | None = None,
        oracle: torch.Tensor | None = None,
    ) -> Heads:
        """Logits of the legal actions and the values.

        ``obs`` int16 [N, O]; ``legal`` int64 [N, K] action ids (padding anywhere
        ``valid`` [N, K] is false). Returns ``(logits [N, K], values [N])``, padding at
        MASKED_LOGIT. Only the valid entries' logits are computed (the same values as
        :meth:`full_logits`), by kind of id: draw / peek / take-muerto and discards from
        the rows of ``other_head`` they use (one small matmul), the discards plus their
        card's own term; openings as one dot product per entry; an add of card c to slot
        m from slot m's context vector (its row embedding and the trunk) dotted with
        ``add_head``'s row for c. With a hint policy, its action (``hint``, positions
        from :meth:`hints`, computed here when None) gets a learned bonus.

        With ``oracle`` (training only: the other seats' hands [N, (P - 1) * 53], see
        :func:`oracle_inputs`), a network built with ``oracle_critic`` gives the oracle
        critic's value and one built with ``hidden_cards`` the error of its prediction of
        those hands. The logits and the observation's value never read it.
        """
        h, melds, used, feats = self._features(obs)
        legal, valid = legal.to(h.device), valid.to(h.device)
        n, width = legal.shape
        r, k = valid.nonzero(as_tuple=True)
        a = legal[r, k]
        w, b = self.other_head.weight, self.other_head.bias
        where = [a.new_zeros(0)]  # positions in the flat valid entries
        vals = [h.new_zeros(0)]
        hr = HEAD_ROWS.to(a.device)
        nh = len(hr)
        head = F.linear(h, w.index_select(0, hr), b.index_select(0, hr)).reshape(-1)  # [N * nh]
        i = torch.nonzero(a < OPEN_GROUP_BASE).squeeze(1)
        if i.numel():  # draw, peek, take a muerto
            where.append(i)
            vals.append(head.index_select(0, r[i] * nh + a[i]))
        i = torch.nonzero(a >= DISCARD_BASE).squeeze(1)
        if i.numel():  # discards
            ri, ci = r[i], a[i] - DISCARD_BASE
            v = head.index_select(0, ri * nh + OPEN_GROUP_BASE + ci)
            if feats is not None:  # the card's own features, encoded again (cheaper
                # than a gather from the pooled encodings, whose backward is dense)
                f = feats.reshape(-1, self.num_card_features)
                f = f.index_select(0, ri * NUM_CARD_TYPES + ci)
                z = self._encode_cards(f, ci)
                z = F.relu(z + self.card_ctx(h).index_select(0, ri))
                v = v + self.card_discard(z).squeeze(1)
            where.append(i)
            vals.append(v)
        i = torch.nonzero((a >= OPEN_GROUP_BASE) & (a < ADD_BASE)).squeeze(1)
        if i.numel():  # openings
            ri, ai = r[i], a[i]
            v = (h.index_select(0, ri) * w.index_select(0, ai)).sum(1) + b.index_select(0, ai)
            where.append(i)
            vals.append(v)
        i = torch.nonzero((a >= ADD_BASE) & (a < DISCARD_BASE)).squeeze(1)
        if i.numel():  # adds: slot-major like the action ids
            ri = r[i]
            slot, ci = (a[i] - ADD_BASE) // NUM_CARD_TYPES, (a[i] - ADD_BASE) % NUM_CARD_TYPES
            lookup = torch.full((n * 2 * MAX_MELDS,), len(used), dtype=torch.long, device=a.device)
            lookup[used] = torch.arange(len(used), device=a.device)
            emb = torch.cat([melds, melds.new_zeros(1, melds.shape[1])])  # last: empty
            emb = emb.index_select(0, lookup[ri * 2 * MAX_MELDS + slot])
            z = F.relu(self.add_row(emb) + self.add_ctx(h).index_select(0, ri))
            wa, ba = self.add_head.weight, self.add_head.bias
            where.append(i)
            vals.append((z * wa.index_select(0, ci)).sum(1) + ba.index_select(0, ci))
        pos = (r * width + k).index_select(0, torch.cat(where))
        logits = torch.full((n * width,), MASKED_LOGIT, dtype=h.dtype, device=h.device)
        logits = logits.index_copy(0, pos, torch.cat(vals)).reshape(n, width)
        if self.hint_policy is not None:
            if hint is None:
                hint = self.hints(obs, legal, valid)
            hint = hint.to(h.device)
            gain = self.hint_gain + self.hint_ctx(h).squeeze(1)
            bonus = F.one_hot(hint.clamp(min=0), width) * (hint >= 0)[:, None]
            logits = logits + gain[:, None] * bonus
        value = self.value_head(h).squeeze(1)
        oracle_value = hidden_error = None
        if oracle is not None:
            if not self.oracle_size:
                raise ValueError(
                    "oracle inputs given to a network without an oracle critic or a "
                    "hidden-card head"
                )
            hands = oracle.to(h.device, torch.float32) * 0.5
            if self.oracle_critic:
                seen = self.oracle_enc(hands)
                oracle_value = self.oracle_head(torch.cat([h, seen], 1)).squeeze(1)
            if self.hidden_cards:
                hidden_error = ((self.hidden_head(h) - hands) ** 2).mean(1)
        return Heads(logits, value, oracle_value, hidden_error)

    def full_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """Logits of every action id [N, NUM_ACTIONS], computed densely, head by head
        (for inspection, and the reference :meth:`forward` is tested against)."""
        h, melds, used, feats = self._features(obs)
        n, d = obs.shape[0], self.hparams["meld_dim"]
        other = self.other_head(h)  # [N, NUM_OTHER_ACTIONS], the discards last
        if feats is not None:  # discard logits also from each card's own features
            cards = self._encode_cards(feats)  # [N, 53, d]
            z = F.relu(cards + self.card_ctx(h)[:, None, :])
            bias = self.card_discard(z).squeeze(2)  # [N, 53]
            other = torch.cat([other[:, :ADD_BASE], other[:, ADD_BASE:] + bias], dim=1)
        rows = melds.new_zeros(n * 2 * MAX_MELDS, d).index_copy(0, used, melds)
        own = rows.reshape(n, 2, MAX_MELDS, d)[:, 0]
        z = F.relu(self.add_row(own) + self.add_ctx(h)[:, None, :])  # [N, M, d]
        add = self.add_head(z).flatten(1)  # [N, M * 53], slot-major like the action ids
        return torch.cat([other[:, :ADD_BASE], add, other[:, ADD_BASE:]], dim=1)

    def act(
        self,
        obs: torch.Tensor,
        legal: torch.Tensor,
        valid: torch.Tensor,
        generator: torch.Generator | None = None,
        greedy: bool = False,
        hint: torch.Tensor | None = None,
        oracle: torch.Tensor | None = None,
    ):
        """Sample (or argmax) a legal action per row: ``(actions, picks, logprobs,
        values)``, ``picks`` being the chosen positions in the legal lists (values as
        :meth:`forward` gives them).

        Sampling is Gumbel-max over the legal logits with noise from ``generator`` (a CPU
        generator: the same noise on any device); padding entries can never be chosen.
        The results are on the network's device.
        """
        logits, value = self.forward(obs, legal, valid, hint, oracle)
        legal, valid = legal.to(logits.device), valid.to(logits.device)
        logp = torch.log_softmax(logits, dim=-1)
        if greedy:
            pick = logits.argmax(1)
        else:
            u = torch.rand(logits.shape, generator=generator).clamp_(1e-20, 1.0 - 1e-7)
            noisy = logits - torch.log(-torch.log(u.to(logits.device)))
            pick = torch.where(valid, noisy, torch.full_like(noisy, -torch.inf)).argmax(1)
        action = legal.gather(1, pick[:, None]).squeeze(1)
        return action, pick, logp.gather(1, pick[:, None]).squeeze(1), value

    def evaluate(self, obs, legal, valid, pick, hint=None, oracle=None):
        """``(logprob, entropy, value)`` of the legal-list positions ``pick`` [N] (PPO
        loss). Entropy counts only the legal actions."""
        logits, value = self.forward(obs, legal, valid, hint, oracle)
        return (*policy_terms(logits, valid, pick), value)

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
        """A network of the shape ``spec`` records (:meth:`spec`'s dict, as policy files and
        checkpoints keep it), freshly initialised."""
        return cls(
            spec["num_players"],
            spec["total_cards"],
            hidden=spec["hidden"],
            encoder=spec["encoder"],
            meld_dim=spec["meld_dim"],
            card_features=spec.get("card_features", False),
            hint=spec.get("hint"),
            card_context=spec.get("card_context", False),
            oracle_critic=spec.get("oracle_critic", False),
            hidden_cards=spec.get("hidden_cards", False),
            card_history=spec.get("card_history", False),
        )

    def with_card_history(self) -> BurakoNet:
        """This network reading the ``card_history`` features too, computing the same
        logits and values: the card encoder's weights on the new features start at zero
        (the rest as they are), so they change nothing until training moves them. What
        fine-tuning a trained policy with them starts from (``init_policy``)."""
        if self.hparams.get("card_history"):
            return self
        spec = self.spec()
        spec["card_history"] = True
        wide = BurakoNet.from_spec(spec)  # raises without card_features
        state = self.state_dict()
        old = state["card_enc.0.weight"]  # [d, features + embedding]
        nf = self.num_card_features
        weight = old.new_zeros(old.shape[0], old.shape[1] + NUM_HISTORY_FEATURES)
        weight[:, :nf] = old[:, :nf]
        weight[:, nf + NUM_HISTORY_FEATURES :] = old[:, nf:]
        state["card_enc.0.weight"] = weight
        wide.load_state_dict(state)
        wide.card_kernels = self.card_kernels
        return wide

    def widened(self, hidden: int, seed: int = 0) -> BurakoNet:
        """This network with a wider trunk (``hidden`` units, at least its own), computing
        the same logits and values up to float rounding (Net2Net's function-preserving
        widening): the trunk's new units start as a fresh network of that width would
        (seeded by ``seed``), and every weight that reads them from an old unit or a head
        starts at zero, so they change nothing until training moves those weights. What
        fine-tuning a trained policy with more capacity starts from (``init_policy``)."""
        old = int(self.hparams["hidden"])
        if hidden < old:
            raise ValueError(f"widened: hidden {hidden} is narrower than the network's {old}")
        spec = self.spec()
        spec["hidden"] = int(hidden)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            wide = BurakoNet.from_spec(spec)
        state = wide.state_dict()
        with torch.no_grad():
            for name, theirs in self.state_dict().items():
                ours = state[name]
                if theirs.dim() == 0:  # the hint's gain
                    ours.copy_(theirs)
                    continue
                rows = slice(0, theirs.shape[0])
                if theirs.dim() == 1 or ours.shape[1] == theirs.shape[1]:
                    ours[rows] = theirs  # the old units' (or a head's) inputs as they were
                    continue
                # the columns that read the trunk: the old units' weights kept, the new
                # units' zero; the oracle head reads [trunk | the hands' encoding]
                ours[rows, old:hidden] = 0.0
                ours[rows, :old] = theirs[:, :old]
                ours[rows, hidden:] = theirs[:, old:]
        wide.load_state_dict(state)
        wide.card_kernels = self.card_kernels
        return wide


def _pile_history(order: torch.Tensor, num_players: int) -> list[torch.Tensor]:
    """The ``card_history`` features, each [N, 53]: the copies of each card type in the
    pile (``order`` [N, T], card + 1 from the bottom up, 0 past the top) discarded by the
    viewer, the next seat, the partners and the other opponents, halved; the top card is
    the seat before the viewer's, the one below it the seat before that's
    (:func:`~burako_env.agents.network_kernels._pile_history`, the compiled twin: the
    pile ends at the first entry below 1, an entry past the card ids counts for no one)."""
    n, length = order.shape
    top = (order > 0).long().cumprod(1).sum(1, keepdim=True)  # [N, 1]: to the first 0
    depth = top - 1 - torch.arange(length, device=order.device)[None, :]
    rel = (num_players - 1 - depth.remainder(num_players)) % num_players
    # past the top, or no card id (only a hand-made observation): the spare column
    in_pile = (depth >= 0) & (order <= NUM_CARD_TYPES)
    card = torch.where(in_pile, order.long() - 1, NUM_CARD_TYPES)
    groups = (rel == 0, rel == 1, (rel % 2 == 0) & (rel > 0), (rel % 2 == 1) & (rel > 1))
    out = []
    for group in groups:
        counts = order.new_zeros(n, NUM_CARD_TYPES + 1)
        counts.scatter_add_(1, card, (group & in_pile).to(order.dtype) * 0.5)
        out.append(counts[:, :NUM_CARD_TYPES])
    return out


def _rank_context(hand, pile, opp, opp_table) -> list[torch.Tensor]:
    """The ``card_context`` features, each [N, 53] (the joker's column 0): how many of a
    card's run neighbours the hand holds (one rank away, then two, in the order A 2 ... K
    A: the ace next to both the 2 and the king, no run past it), and its rank's copies,
    all suits, in the hand, the pile, the opponents' known cards and on their table."""
    n = hand.shape[0]

    def suited(v):  # [N, 53] -> [N, 4 suits, 13 ranks], the joker left out
        return v[:, : 4 * NUM_RANKS].reshape(n, 4, NUM_RANKS)

    def per_card(v):  # [N, 4, 13] -> [N, 53], the joker's column 0
        return torch.cat([v.reshape(n, 4 * NUM_RANKS), v.new_zeros(n, 1)], dim=1)

    held = (suited(hand) > 0).float()
    # the ranks in run order A 2 3 ... K A (the ace at both ends, no wrap past it),
    # padded by two on each side
    line = F.pad(torch.cat([held, held[:, :, :1]], dim=2), (2, 2))
    near = []
    for k in (1, 2):
        ext = line[:, :, 2 + k : 16 + k] + line[:, :, 2 - k : 16 - k]  # [N, 4, 14]
        ace = ext[:, :, :1] + ext[:, :, 13:]  # the ace's neighbours at both of its ends
        near.append(per_card(torch.cat([ace, ext[:, :, 1:13]], dim=2) * 0.5))
    ranks = [
        per_card(suited(v).sum(1, keepdim=True).expand(-1, 4, -1) * scale)
        for v, scale in ((hand, 0.25), (pile, 0.25), (opp, 0.5), (opp_table, 0.25))
    ]
    return near + ranks


def hint_policy(name: str | None) -> tuple[int, np.ndarray] | None:
    """``(kind, weights)`` of the compiled agent ``name`` whose choices the network
    reads as a hint (None: no hint); a ValueError for an agent that is not compiled."""
    if name is None:
        return None
    policy = compiled_heuristic(name).decides()
    return policy.kind, policy.weights


def read_blocks(num_players: int, total_cards: int) -> dict[str, int]:
    """Sizes of the observation blocks the network reads: every block but ``variant``
    (the rules' parameters, constant for a policy trained on one variant) and
    ``pile_order`` (the pile's counts and top card stand for it; ``card_history`` reads
    it, and its size is the spec's ``total_cards``). Saved in a policy's spec and
    compared on load: a change here would refuse every saved file."""
    lay = obs_layout(num_players, total_cards)._asdict()
    names = [k for k in lay if k != "size"]
    ends = [lay[k] for k in names[1:]] + [lay["size"]]
    sizes = {k: end - lay[k] for k, end in zip(names, ends, strict=True)}
    return {k: v for k, v in sizes.items() if k not in ("variant", "pile_order")}


def policy_terms(logits: torch.Tensor, valid: torch.Tensor, pick: torch.Tensor):
    """``(logprob, entropy)`` of the legal-list positions ``pick`` [N] under ``logits``
    [N, K]; the entropy counts only the valid (legal) entries."""
    valid, pick = valid.to(logits.device), pick.to(logits.device)
    logp = torch.log_softmax(logits, dim=-1)
    entropy = -torch.where(valid, logp.exp() * logp, torch.zeros_like(logp)).sum(-1)
    return logp.gather(1, pick[:, None]).squeeze(1), entropy


def oracle_inputs(hands: np.ndarray, rows: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """The oracle critic's input for games ``rows`` whose seat ``seat[rows]`` acts: the
    other seats' hands (from a game state's ``hands`` [B, P, 53]) in the order of play
    after the acting seat, int8 [N, (P - 1) * 53]. Hidden information: for training's
    critic only, never an input of the policy."""
    num_players = hands.shape[1]
    order = (seat[rows][:, None] + np.arange(1, num_players)[None, :]) % num_players
    return hands[rows[:, None], order].reshape(len(rows), -1)


def num_parameters(net: nn.Module) -> int:
    """The number of trainable and frozen parameters of ``net``."""
    return sum(p.numel() for p in net.parameters())
