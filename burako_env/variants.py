"""Rule variants as data (RULES.md section 9).

A :class:`Variant` holds every rule parameter of RULES.md. The four named variants live as
YAML files inside the package, in ``burako_env/configs/variants/`` (the repository's
top-level ``configs/`` points there), so they load from any folder and from a plain
``pip install``; a YAML of one's own (house rules) loads the same way. A variant file holds
the parameters, the player counts it allows (``players``), and ``by_players``: the values
that depend on the player count. ``base: argentine`` (a named variant, or a path relative
to the file) starts a house-rule file from another variant, so omitted keys take that
variant's values rather than the :class:`Variant` defaults. Loading resolves them in this
order: the base's values (resolved the same way, for the chosen player count), the file's
values, its ``by_players`` entry for the chosen ``num_players``, then the caller's
overrides::

    load_variant("argentine")                  # 4 players, the default
    load_variant("argentine", num_players=2)   # 22 cards a hand
    load_variant("my_rules.yaml", stock_end=2) # a file of one's own, one rule changed

A broken file or override raises :class:`VariantError`, which says what to fix.
"""

from __future__ import annotations

import dataclasses
import difflib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from burako_env.limits import (
    MAX_HANDS,
    MAX_MATCH_POINTS,
    MAX_RULE_POINTS,
    MAX_TURNS,
    printable_name,
    read_yaml_file,
)

#: the YAML files shipped inside the package (package data): variants and training configs
CONFIGS_DIR = Path(__file__).resolve().parent / "configs"
VARIANTS_DIR = CONFIGS_DIR / "variants"
VARIANT_NAMES = ("argentine", "italian", "brazilian", "colombian")
DEFAULT_VARIANT = "argentine"

MUERTO_SIZE = 11
MAX_PLAYERS = 8
MAX_MUERTOS_PER_TEAM = 3
MAX_DECKS = 4

CLOSE_REQUIRES = ("any_canasta", "clean_canasta", "none")
UNIQUE_GROUP_RANK = ("team", "table")
OPENINGS = ("peek", "upcard")
MUERTO_POTS = ("team", "shared")


class VariantError(ValueError):
    """A variant file or override that cannot be used; the message says what to fix."""


class UnknownKeywordError(VariantError, TypeError):
    """A keyword that an environment takes neither as its own nor as a rule parameter
    (a misspelt ``opponents=``): raised by :func:`check_env_keywords`. A TypeError, as
    Python's own for an unexpected keyword, and a :class:`VariantError`, as the unknown
    rule parameter it was reported as before."""


def _doc(text: str) -> dict[str, str]:
    return {"doc": text}


@dataclass(frozen=True)
class Variant:
    """Every rule parameter of RULES.md; the field docs name the section they come from."""

    name: str = field(default="custom", metadata=_doc("a label for logs and records"))
    players: tuple[int, ...] = field(
        default=(2, 4), metadata=_doc("player counts the variant allows (even, 2 to 8)")
    )
    num_players: int = field(default=4, metadata=_doc("players at the table; teams alternate (3)"))
    decks: int = field(default=2, metadata=_doc("copies of the 52-card deck (1)"))
    jokers_per_deck: int = field(default=1, metadata=_doc("jokers added with each deck (1)"))
    hand_size: int = field(default=11, metadata=_doc("cards dealt to each player (3)"))
    muertos_per_team: int = field(default=1, metadata=_doc("face-down 11-card packets a team (3)"))
    target: int = field(default=3000, metadata=_doc("match points that end a match (8)"))
    value_low: int = field(default=5, metadata=_doc("value of a 3 to 7 (9)"))
    value_high: int = field(default=10, metadata=_doc("value of an 8 to K (9)"))
    value_ace: int = field(default=15, metadata=_doc("value of an ace (9)"))
    value_two: int = field(default=20, metadata=_doc("value of a 2 (9)"))
    value_joker: int = field(default=50, metadata=_doc("value of a joker (9)"))
    canasta_card_points: bool = field(
        default=True, metadata=_doc("cards of canastas count their values; off: bonus only (7)")
    )
    clean_canasta: int = field(default=200, metadata=_doc("bonus of a clean canasta (7)"))
    dirty_canasta: int = field(default=100, metadata=_doc("bonus of a dirty canasta (7)"))
    clean_aces_canasta: int = field(
        default=200, metadata=_doc("bonus of a clean canasta of aces, instead of the plain (7)")
    )
    dirty_aces_canasta: int = field(
        default=100, metadata=_doc("bonus of a dirty canasta of aces, instead of the plain (7)")
    )
    wild_canasta: int = field(default=700, metadata=_doc("bonus of a wild group of 7 (2.4, 7)"))
    going_out_bonus: int = field(default=100, metadata=_doc("bonus for going out (7)"))
    muerto_taken_bonus: int = field(default=0, metadata=_doc("points per muerto taken (7)"))
    muerto_not_taken: int = field(default=-100, metadata=_doc("points per muerto not taken (7)"))
    unique_group_rank: str = field(
        default="team",
        metadata=_doc("'team': no two groups of a rank per team; 'table': none on the table (2.1)"),
    )
    max_meld_size: int = field(
        default=0, metadata=_doc("a meld of this size is closed; 0 for no limit (2.3)")
    )
    wild_group: bool = field(default=False, metadata=_doc("groups made only of wilds (2.4)"))
    pile_min_total: int = field(
        default=0, metadata=_doc("pile size + hand size needed to take the pile (4)")
    )
    opening_first: str = field(
        default="peek", metadata=_doc("opening of a match's first hand: 'peek' or 'upcard' (3)")
    )
    opening_later: str = field(
        default="peek", metadata=_doc("opening of the later hands: 'peek' or 'upcard' (3)")
    )
    pile_no_rediscard: bool = field(
        default=False, metadata=_doc("a one-card pile taken may not be discarded at once (4)")
    )
    peek_no_rediscard: bool = field(
        default=False, metadata=_doc("a kept peeked card may not be discarded that turn (4)")
    )
    min_first_meld: int = field(
        default=0, metadata=_doc("points a team's first melds must reach; 0 for none (4)")
    )
    min_first_meld_high: int = field(
        default=75, metadata=_doc("the minimum once the team has min_first_meld_threshold (4)")
    )
    min_first_meld_threshold: int = field(
        default=1500, metadata=_doc("match points from which the higher minimum applies (4)")
    )
    min_first_meld_step: int = field(
        default=15, metadata=_doc("rise of a team's minimum after each failed first meld (4)")
    )
    no_wild_discard: bool = field(default=False, metadata=_doc("a wild may never be discarded (4)"))
    close_discard_not_wild: bool = field(
        default=False, metadata=_doc("the discard that goes out may not be a wild (4)")
    )
    close_requires: str = field(
        default="any_canasta",
        metadata=_doc("going out needs 'any_canasta', 'clean_canasta' or 'none' (5)"),
    )
    close_requires_discard: bool = field(
        default=False, metadata=_doc("going out must be done by a discard (5)")
    )
    muerto_keep_wilds: bool = field(
        default=False, metadata=_doc("a hand of only 1 or 2 wilds may take the muerto (5)")
    )
    cutter_keeps_wilds: bool = field(
        default=False, metadata=_doc("the cutter keeps wilds seen at the deck's bottom (3)")
    )
    stock_end: int = field(
        default=0, metadata=_doc("the hand ends once a draw leaves this many cards or fewer (6)")
    )
    muerto_refills_stock: bool = field(
        default=False, metadata=_doc("an untaken muerto becomes the stock when it runs out (6)")
    )
    muerto_pot: str = field(
        default="team",
        metadata=_doc("'team': each team its own muertos; 'shared': one pot, one per team (5)"),
    )
    no_canasta_negative: bool = field(
        default=False, metadata=_doc("a team without a canasta scores its table negative (7)")
    )
    max_turns: int = field(default=400, metadata=_doc("turns after which a hand ends (6)"))
    max_hands: int = field(
        default=100, metadata=_doc("hands after which a match ends, higher total winning (8)")
    )

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def num_teams(self) -> int:
        """Always 2: partners sit across, every table plays two teams."""
        return 2

    @property
    def total_cards(self) -> int:
        """The cards of the whole deck: 52 and the jokers, per deck."""
        return self.decks * (52 + self.jokers_per_deck)

    @property
    def label(self) -> str:
        """The name as a terminal shows it: control characters escaped, a long one cut
        (:func:`~burako_env.limits.printable_name`; a house-rule file or a record's inline
        rules may name their variant anything)."""
        return printable_name(self.name)

    def replace(self, **overrides: Any) -> Variant:
        """A copy with some parameters changed (validated like a loaded variant)."""
        return _build({**self.to_dict(), **overrides}, source=f"variant '{self.label}'")

    def to_dict(self) -> dict[str, Any]:
        """The variant's parameters as plain data (``players`` a list): what a record or a YAML file
        holds."""
        d = dataclasses.asdict(self)
        d["players"] = list(self.players)
        return d

    def describe(self) -> str:
        """A table of every parameter, its value and what it means."""
        rows = [f"variant {self.label} ({self.num_players} players)"]
        for f in fields(self):
            if f.name == "name":
                continue
            rows.append(f"  {f.name:26s} {str(getattr(self, f.name)):14s} {f.metadata['doc']}")
        return "\n".join(rows)


_POINTS = (-MAX_RULE_POINTS, MAX_RULE_POINTS)
_CARDS = (0, MAX_DECKS * 54)
#: every whole-number parameter's range (burako_env.limits says why these bounds)
_INT_RANGES = {
    "num_players": (2, MAX_PLAYERS),
    "decks": (1, MAX_DECKS),
    "jokers_per_deck": (0, 2),
    "hand_size": (1, _CARDS[1]),
    "muertos_per_team": (1, MAX_MUERTOS_PER_TEAM),
    "target": (0, MAX_MATCH_POINTS),
    **dict.fromkeys(
        (
            "value_low",
            "value_high",
            "value_ace",
            "value_two",
            "value_joker",
            "clean_canasta",
            "dirty_canasta",
            "clean_aces_canasta",
            "dirty_aces_canasta",
            "wild_canasta",
            "going_out_bonus",
            "muerto_taken_bonus",
            "muerto_not_taken",
            "min_first_meld_step",
        ),
        _POINTS,
    ),
    **dict.fromkeys(("max_meld_size", "pile_min_total", "stock_end"), _CARDS),
    **dict.fromkeys(
        ("min_first_meld", "min_first_meld_high", "min_first_meld_threshold"),
        (0, MAX_MATCH_POINTS),
    ),
    "max_turns": (1, MAX_TURNS),
    "max_hands": (1, MAX_HANDS),
}

PARAMETERS = tuple(f.name for f in fields(Variant))
_TYPES = {f.name: f.type for f in fields(Variant)}


def _check_type(name: str, value: Any, source: str) -> Any:
    kind = _TYPES[name]
    if kind == "bool":
        if not isinstance(value, bool):
            raise VariantError(f"{source}: {name} must be true or false, got {value!r}")
    elif kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise VariantError(f"{source}: {name} must be a whole number, got {value!r}")
    elif kind == "str":
        if not isinstance(value, str):
            raise VariantError(f"{source}: {name} must be a string, got {value!r}")
    elif name == "players":
        if not isinstance(value, (list, tuple)) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            raise VariantError(f"{source}: players must be a list of player counts, got {value!r}")
        value = tuple(value)
    return value


def _validate(v: Variant) -> None:
    src = f"variant '{v.label}'"
    for name in PARAMETERS:
        _check_type(name, getattr(v, name), src)

    def choice(name: str, options: tuple[str, ...]) -> None:
        if getattr(v, name) not in options:
            raise VariantError(f"{src}: {name} must be one of {options}, got {getattr(v, name)!r}")

    choice("unique_group_rank", UNIQUE_GROUP_RANK)
    choice("close_requires", CLOSE_REQUIRES)
    choice("opening_first", OPENINGS)
    choice("opening_later", OPENINGS)
    choice("muerto_pot", MUERTO_POTS)
    if v.muerto_pot == "shared" and v.muertos_per_team != 1:
        raise VariantError(
            f"{src}: muerto_pot 'shared' is seed 004's pot of two muertos, one per team: "
            f"it needs muertos_per_team 1, got {v.muertos_per_team}"
        )
    for p in v.players:
        if p not in (2, 4, 6, 8):
            raise VariantError(f"{src}: players lists {p}; player counts are 2, 4, 6 or 8")
    if v.num_players not in v.players:
        raise VariantError(
            f"{src}: {v.num_players} players is not allowed; this variant allows {list(v.players)}"
        )
    if not 1 <= v.decks <= MAX_DECKS:
        raise VariantError(f"{src}: decks must be 1 to {MAX_DECKS}, got {v.decks}")
    if not 0 <= v.jokers_per_deck <= 2:
        raise VariantError(f"{src}: jokers_per_deck must be 0, 1 or 2, got {v.jokers_per_deck}")
    if not 1 <= v.muertos_per_team <= MAX_MUERTOS_PER_TEAM:
        raise VariantError(
            f"{src}: muertos_per_team must be 1 to {MAX_MUERTOS_PER_TEAM}, got {v.muertos_per_team}"
        )
    if v.hand_size < 1:
        raise VariantError(f"{src}: hand_size must be at least 1, got {v.hand_size}")
    if v.max_meld_size and v.max_meld_size < 3:
        raise VariantError(f"{src}: max_meld_size must be 0 (no limit) or at least 3")
    for name in ("pile_min_total", "stock_end", "min_first_meld", "target", "min_first_meld_step"):
        if getattr(v, name) < 0:
            raise VariantError(f"{src}: {name} cannot be negative, got {getattr(v, name)}")
    if v.max_turns < 1:
        raise VariantError(f"{src}: max_turns must be at least 1, got {v.max_turns}")
    if v.max_hands < 1:
        raise VariantError(f"{src}: max_hands must be at least 1, got {v.max_hands}")
    for name, (low, high) in _INT_RANGES.items():
        if not low <= getattr(v, name) <= high:
            raise VariantError(f"{src}: {name} must lie in {low}..{high}, got {getattr(v, name)}")
    # a hand needs its deal, the muertos, an up-card or a peek, and a stock above stock_end
    needed = v.num_players * v.hand_size + 2 * v.muertos_per_team * MUERTO_SIZE + 2 + v.stock_end
    if v.total_cards < needed:
        raise VariantError(
            f"{src}: {v.total_cards} cards ({v.decks} decks with {v.jokers_per_deck} jokers) "
            f"cannot deal {v.num_players} hands of {v.hand_size}, "
            f"{2 * v.muertos_per_team} muertos of {MUERTO_SIZE} and a stock: "
            f"{needed} cards are needed; add decks or lower hand_size"
        )


def _build(values: dict[str, Any], source: str) -> Variant:
    # sorted as text: a YAML key may be a number (``1: 2``), and numbers and text do not sort
    unknown = sorted((str(k) for k in values if k not in PARAMETERS), key=str)
    if unknown:
        raise VariantError(
            f"{source}: unknown parameter(s) {', '.join(unknown)}; "
            f"known parameters: {', '.join(PARAMETERS)}"
        )
    checked = {k: _check_type(k, v, source) for k, v in values.items()}
    return Variant(**checked)


def check_env_keywords(overrides: Mapping[str, Any], own: Callable[..., Any], env: str) -> None:
    """Raise :class:`UnknownKeywordError` if ``overrides`` (the ``**overrides`` of an
    environment's constructor ``own``, the rule parameters it passes on to the variant)
    holds a keyword that is no rule parameter. The message names the closest keywords
    (difflib) and lists the environment's own keywords apart from the rule parameters:
    a misspelt ``opponents=`` is the env's, not the variant file's, to blame."""
    unknown = [str(k) for k in overrides if k not in PARAMETERS]
    if not unknown:
        return
    keywords = [
        name
        for name, param in inspect.signature(own).parameters.items()
        if name != "self" and param.kind not in (param.VAR_KEYWORD, param.VAR_POSITIONAL)
    ]
    guesses = []
    for word in unknown:
        close = difflib.get_close_matches(word, [*keywords, *PARAMETERS], n=2, cutoff=0.6)
        hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
        guesses.append(f"{word!r}{hint}")
    rules = [p for p in PARAMETERS if p not in keywords]  # num_players: the env's own
    raise UnknownKeywordError(
        f"{env}: unknown keyword(s) {', '.join(guesses)}. Its own keywords: "
        f"{', '.join(keywords)}; besides, any rule parameter overrides the variant's "
        f"(`burako rules --table` lists them): {', '.join(rules)}"
    )


def variant_from_dict(values: dict[str, Any], source: str) -> Variant:
    """A variant from a mapping of parameters (a record's inline rules), checked as a
    file's would be; VariantError naming ``source`` otherwise."""
    if not isinstance(values, dict):
        raise VariantError(f"{source} must be a mapping of parameter: value")
    return _build(values, source)


def variant_path(name_or_path: str | Path) -> Path:
    """The YAML file of a named variant, or the path given."""
    text = str(name_or_path)
    if text in VARIANT_NAMES:
        return VARIANTS_DIR / f"{text}.yaml"
    path = Path(text)
    if path.suffix in (".yaml", ".yml") or path.exists():
        return path
    raise VariantError(
        f"unknown variant {text!r}: use one of {', '.join(VARIANT_NAMES)} or a path to a YAML file"
    )


def _read_mapping(path: Path) -> dict[str, Any]:
    # bounded: a regular file of at most MAX_CONFIG_FILE_BYTES, no YAML aliases, no
    # duplicate keys, nesting bounded (burako_env.limits)
    data = read_yaml_file(path, "variant file", VariantError)
    if not isinstance(data, dict):
        raise VariantError(f"{path} must hold a mapping of parameter: value")
    return dict(data)


def _by_players(data: dict[str, Any], source: str) -> dict[Any, Any]:
    by_players = data.pop("by_players", None) or {}
    if not isinstance(by_players, dict):
        raise VariantError(f"{source}: by_players must map a player count to parameters")
    return by_players


def _per_count(by_players: dict[Any, Any], n: int, source: str) -> dict[str, Any]:
    per_count = by_players.get(n, by_players.get(str(n), {})) or {}
    if not isinstance(per_count, dict):
        raise VariantError(f"{source}: by_players[{n}] must be a mapping of parameter: value")
    return per_count


def _base_path(base: Any, path: Path, source: str) -> Path:
    if not isinstance(base, str) or not base:
        raise VariantError(
            f"{source}: base must be a variant name ({', '.join(VARIANT_NAMES)}) or a YAML "
            f"path, got {base!r}"
        )
    if base in VARIANT_NAMES:
        return VARIANTS_DIR / f"{base}.yaml"
    candidate = Path(base)
    return candidate if candidate.is_absolute() else path.parent / candidate


def _file_values(path: Path, num_players: Any, chain: tuple[Path, ...] = ()) -> dict[str, Any]:
    """A variant file's values for ``num_players`` (None: the file's own count), its
    ``base`` resolved first."""
    source = str(path)
    if path.resolve() in chain:
        cycle = " -> ".join(str(p) for p in (*chain, path.resolve()))
        raise VariantError(f"{source}: its base chain loops ({cycle})")
    data = _read_mapping(path)
    by_players = _by_players(data, source)
    data.setdefault("name", path.stem)
    base = data.pop("base", None)
    n = num_players if num_players is not None else data.get("num_players")
    base_values: dict[str, Any] = {}
    if base is not None:
        base_values = _file_values(_base_path(base, path, source), n, (*chain, path.resolve()))
        if n is None:
            n = base_values["num_players"]
    if n is None:
        n = 4
    if isinstance(n, bool) or not isinstance(n, int):
        raise VariantError(f"{source}: num_players must be a whole number, got {n!r}")
    return {**base_values, **data, **_per_count(by_players, n, source), "num_players": n}


def load_variant(
    variant: str | Path | Variant | None = None, num_players: int | None = None, **overrides: Any
) -> Variant:
    """Load a variant by name, path or :class:`Variant`, for ``num_players``, with overrides."""
    if isinstance(variant, Variant):
        if num_players is None and not overrides:
            return variant
        data = variant.to_dict()
        by_players: dict[Any, Any] = {}
        if variant.name in VARIANT_NAMES and num_players not in (None, variant.num_players):
            # a named variant moved to another player count takes that count's values
            named = _read_mapping(variant_path(variant.name))
            by_players = named.get("by_players") or {}
        source = f"variant '{variant.label}'"
        n = num_players if num_players is not None else data.get("num_players", 4)
        if isinstance(n, bool) or not isinstance(n, int):
            raise VariantError(f"{source}: num_players must be a whole number, got {n!r}")
        values = {**data, **_per_count(by_players, n, source), "num_players": n}
    else:
        if variant is not None and not isinstance(variant, (str, Path)):
            raise VariantError(
                f"variant must be a name ({', '.join(VARIANT_NAMES)}), a YAML path or a "
                f"Variant, got {type(variant).__name__} {variant!r}"
            )
        path = variant_path(variant or DEFAULT_VARIANT)
        source = str(path)
        if num_players is not None and (
            isinstance(num_players, bool) or not isinstance(num_players, int)
        ):
            raise VariantError(f"{source}: num_players must be a whole number, got {num_players!r}")
        values = _file_values(path, num_players)
    return _build({**values, **overrides}, source)


def variant_table(names: tuple[str, ...] = VARIANT_NAMES, num_players: int = 4) -> str:
    """Section 9's table: one column per named variant, one row per parameter."""
    variants = [
        load_variant(n, num_players=num_players if num_players in _allowed(n) else None)
        for n in names
    ]
    width = max(len(p) for p in PARAMETERS) + 2
    lines = ["parameter".ljust(width) + "".join(v.name.ljust(16) for v in variants)]
    for p in PARAMETERS:
        if p == "name":
            continue
        cells = []
        for v in variants:
            value = getattr(v, p)
            cells.append((",".join(map(str, value)) if p == "players" else str(value)).ljust(16))
        lines.append(p.ljust(width) + "".join(cells))
    return "\n".join(lines)


def _allowed(name: str) -> tuple[int, ...]:
    data = _read_mapping(variant_path(name))
    return tuple(data.get("players", (4,)))
