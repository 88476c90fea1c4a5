"""Game configuration: a preset plus validated option overrides (docs/rules.md, "Options" and
"Presets"). Each option's explanation is kept beside its definition (``doc``) and served with
the rules (``describe_options``); each preset's in ``PRESET_DESCRIPTIONS``."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from .errors import InvalidOptions

WILD_RATIOS = ("naturals_exceed_wilds", "wilds_not_exceed_naturals")
RED_THREE_REVEALS = ("on_turn", "at_deal")
STOCK_EXHAUSTED = ("end_round", "play_on")
LAST_RED_THREE = ("meld_then_end", "end_now")
FAMILIES = ("classic", "mac", "samba", "bolivia")
SPECIAL_HANDS = ("cla", "basic", "none")
INITIAL_MELD_CORES = ("clean_triple", "clean_triple_or_wild_meld")


def doc(default: Any, text: str) -> Any:
    """An option's default with its explanation for players (served by ``describe_options``)."""
    return field(default=default, metadata={"doc": " ".join(text.split())})


@dataclass(frozen=True, slots=True)
class Options:
    players: int = doc(
        4,
        """Seats at the table. 4: two partnerships, seats 0 and 2 against 1 and 3 (partners sit
        opposite), 11 cards each. 3: each player alone, 13 cards. 2: each player alone,
        15 cards.""",
    )
    draw_count: int = doc(
        1,
        """Cards a player draws from the stock at the start of a turn (instead of taking the
        discard pile).""",
    )
    canastas_to_go_out: int = doc(
        1,
        """Canastas (melds of seven or more cards) the side must have before one of its players
        may go out, or meld so as to keep a single card to discard.""",
    )
    target_score: int = doc(
        5000,
        """The game ends when a round ends with a side at or above this total; the higher total
        wins, and equal totals at or above it play another round.""",
    )
    wild_ratio: str = doc(
        "naturals_exceed_wilds",
        """How many wild cards a meld may hold beside its natural cards.
        naturals_exceed_wilds: fewer wild cards than natural cards (three 9s take at most two).
        wilds_not_exceed_naturals: no more wild cards than natural cards (three 9s take up to
        three). max_wilds_per_meld caps both.""",
    )
    pile_new_meld_needs_two_naturals: bool = doc(
        False,
        """Taking the discard pile to start a new meld with its top card needs a natural pair
        from the hand even when the pile is not frozen (off: one natural card and one wild card
        will do on an unfrozen pile).""",
    )
    pile_to_canasta: bool = doc(
        True,
        """The pile's top card may be laid off on the side's completed canasta (a meld of seven or
        more) to take the pile (off: never onto a canasta).""",
    )
    one_card_pile_restriction: bool = doc(
        False,
        """A player holding exactly one card may not take a discard pile of exactly one card.""",
    )
    red_three_reveal: str = doc(
        "on_turn",
        """When red threes in a dealt hand are laid out (and replaced from the stock).
        on_turn: at the start of their holder's first turn. at_deal: right after the deal,
        each player in turn order.""",
    )
    stock_exhausted: str = doc(
        "end_round",
        """What happens when the stock runs out. end_round: the round ends as soon as a player
        ends a turn with the stock empty (no going-out bonus). play_on: play continues while
        each player in turn takes the discard pile (a player must take it when its top card
        fits the side's meld); the round ends when a player cannot or will not.""",
    )
    ask_partner_to_go_out: bool = doc(
        True,
        """In a partnership game a player may ask the partner "may I go out?" after drawing and
        before melding; the answer binds for the turn (yes: must go out; no: may not). Without
        partners (2 or 3 players) there is no one to ask.""",
    )
    first_upcard_black_three_turns: bool = doc(
        False,
        """A black three turned up to start the discard pile is covered by a further card, as a
        wild card or red three is (off: it stays on top and blocks the pile for the first
        player).""",
    )
    red_three_discard: bool = doc(
        False,
        """Red threes may be discarded. In play a red three never stays in a hand (it is laid out
        and replaced as soon as it comes), so this matters only in set-up positions.""",
    )
    max_wilds_per_meld: int = doc(
        3,
        """The most wild cards (2s and jokers) one meld may hold; wild_ratio limits them too.""",
    )
    wild_canasta: bool = doc(
        False,
        """Wild cards alone may form a meld of their own (rank W, three or more cards); seven or
        more make a wild canasta worth 1000.""",
    )
    concealed_requires_canasta: bool = doc(
        True,
        """Going out concealed (100 more than the going-out bonus) needs a canasta among the
        player's own melds of that turn (off: going out in one turn without earlier melds of
        one's own is enough).""",
    )
    last_red_three: str = doc(
        "meld_then_end",
        """When the last card of the stock is a red three, it gets no replacement.
        meld_then_end: the player may still meld, then the round ends (no discard).
        end_now: the round ends at once.""",
    )

    # -- the variant families (docs/rules.md, "Modern American Canasta", "Samba", "Bolivia").
    # Stored only when they differ from these defaults, so a classic game's options read as
    # they always did.
    family: str = doc(
        "classic",
        """The rule family, fixed by the preset: classic (the classic, hoyle, two_player and
        three_player presets), mac (Modern American Canasta), samba or bolivia.""",
    )
    talons: bool = doc(
        False,
        """Modern American Canasta: a player who makes the side's initial meld after drawing
        from the stock takes a talon from the stock after discarding (4 cards if the other
        side has not opened yet, 3 if it has), while the turn card is not drawn.""",
    )
    rule_of_five: bool = doc(
        False,
        """Modern American Canasta: outside the side's initial-meld turn a wild card goes only
        onto a meld that then holds at least five natural cards.""",
    )
    special_hands: str = doc(
        "none",
        """Modern American Canasta: which special hands may be declared instead of melding.
        cla: the Canasta League of America's eleven hands. basic: the four hands of the older
        tables (pairs, wild pairs, straight, garbage). none: no special hands.""",
    )
    initial_meld_core: str = doc(
        "clean_triple",
        """Modern American Canasta: what the initial meld must hold. clean_triple: a meld of
        three or more natural cards from the hand and no wild card. clean_triple_or_wild_meld:
        a wild meld of three or more cards will also do.""",
    )
    initial_meld_over_7000: int = doc(
        150,
        """Samba and Bolivia: the initial-meld minimum of a side at 7000 or more (150, or 160 as
        some rule books print it).""",
    )

    @property
    def teams(self) -> int:
        return 2 if self.players == 4 else self.players

    @property
    def hand_size(self) -> int:
        if self.family == "mac":
            return 13
        if self.family in ("samba", "bolivia"):
            return 15
        return {4: 11, 3: 13, 2: 15}[self.players]

    @property
    def partnership(self) -> bool:
        return self.players == 4

    @property
    def can_ask_partner(self) -> bool:
        return self.players == 4 and self.ask_partner_to_go_out

    def to_dict(self) -> dict[str, Any]:
        # Every field is a scalar: no need for asdict's deep copy. The family options appear
        # only where they differ from their defaults: classic games' stored options (and their
        # state digests) are what they were before the families existed.
        out = {name: getattr(self, name) for name in CLASSIC_OPTION_NAMES}
        for name in FAMILY_OPTION_NAMES:
            value = getattr(self, name)
            if value != _DEFAULTS[name]:
                out[name] = value
        return out


_MAC = Options(
    family="mac",
    canastas_to_go_out=2,
    target_score=8500,
    max_wilds_per_meld=2,
    wild_ratio="wilds_not_exceed_naturals",
    pile_new_meld_needs_two_naturals=True,
    pile_to_canasta=False,
    wild_canasta=True,
    talons=True,
    rule_of_five=True,
    special_hands="cla",
)
_SAMBA = Options(
    family="samba",
    draw_count=2,
    canastas_to_go_out=2,
    target_score=10000,
    max_wilds_per_meld=2,
    wild_ratio="wilds_not_exceed_naturals",
    pile_new_meld_needs_two_naturals=True,
    pile_to_canasta=False,
)
PRESETS: dict[str, Options] = {
    "classic": Options(),
    "hoyle": Options(
        wild_ratio="wilds_not_exceed_naturals",
        one_card_pile_restriction=True,
        red_three_reveal="at_deal",
        stock_exhausted="play_on",
    ),
    "two_player": Options(
        players=2,
        draw_count=2,
        canastas_to_go_out=2,
        target_score=2500,
        wild_ratio="wilds_not_exceed_naturals",
        pile_new_meld_needs_two_naturals=True,
        pile_to_canasta=False,
        red_three_reveal="at_deal",
        stock_exhausted="play_on",
        ask_partner_to_go_out=False,
    ),
    "three_player": Options(players=3, ask_partner_to_go_out=False),
    "mac": _MAC,
    "mac_two_player": replace(_MAC, players=2, ask_partner_to_go_out=False),
    "samba": _SAMBA,
    "bolivia": replace(_SAMBA, family="bolivia", target_score=15000, wild_canasta=True),
}
DEFAULT_PRESET = "classic"
# The presets of the classic family (the engine's own modules play them).
CLASSIC_PRESETS: tuple[str, ...] = tuple(n for n, o in PRESETS.items() if o.family == "classic")
PRESET_DESCRIPTIONS: dict[str, str] = {
    "classic": "Four players in two partnerships, as on cardgames.io: draw one card, one "
    "canasta to go out, 5000 to win, wild cards fewer than the natural cards in a meld, red "
    "threes laid out on their holder's turn, and the round ends when the stock runs out.",
    "hoyle": "Four players in two partnerships, by the classic rule books: wild cards may "
    "equal the natural cards in a meld, red threes laid out right after the deal, a player "
    "holding one card may not take a one-card pile, and play goes on when the stock runs out "
    "while players take the pile.",
    "two_player": "Two players, each alone, 15 cards: draw two, two canastas to go out, 2500 "
    "to win, wild cards may equal the natural cards, a new meld with the pile's top card needs "
    "a natural pair, the top card never goes onto a canasta, red threes laid out after the "
    "deal, and play goes on when the stock runs out.",
    "three_player": "Three players, each alone, 13 cards; otherwise the classic rules (no "
    "partner to ask).",
    "mac": "Modern American Canasta, as clubs and leagues play it: four players in two "
    "partnerships, 13 cards, no upcard, every three a bonus card, talons, a pile always frozen, "
    "melds of at most seven cards, sevens and aces natural, a wild meld, dead ranks, the "
    "clean-triple opening of 125/155/180, two canastas and a discard to go out, special hands, "
    "8500 to win.",
    "mac_two_player": "Modern American Canasta for two players, each alone: 13 cards, the "
    "rules of the four-handed game without a partner to ask.",
    "samba": "Samba: four players in two partnerships, three packs and six jokers, 15 cards, "
    "draw two, sequences of one suit (seven make a samba, 1500), several melds of a rank, "
    "at most two wild cards in a meld, two canastas to go out, 10000 to win.",
    "bolivia": "Bolivia: Samba with wild melds (seven wild cards make a bolivia, 2500), a "
    "sequence canasta (escalera) needed among the two canastas to go out, black threes left "
    "in a hand at -100 each, and 15000 to win.",
}

# Options a table may change in each family; every other one is fixed by the preset (R1).
FAMILY_OVERRIDABLE: dict[str, frozenset[str]] = {
    "mac": frozenset(
        {
            "target_score",
            "talons",
            "rule_of_five",
            "special_hands",
            "initial_meld_core",
            "red_three_reveal",
            "ask_partner_to_go_out",
        }
    ),
    "samba": frozenset(
        {
            "target_score",
            "initial_meld_over_7000",
            "red_three_reveal",
            "stock_exhausted",
            "ask_partner_to_go_out",
            "first_upcard_black_three_turns",
            "last_red_three",
        }
    ),
}
FAMILY_OVERRIDABLE["bolivia"] = FAMILY_OVERRIDABLE["samba"]
FAMILY_TARGET_RANGE = (1000, 20000)

_CHOICES: dict[str, tuple[Any, ...]] = {
    "wild_ratio": WILD_RATIOS,
    "red_three_reveal": RED_THREE_REVEALS,
    "stock_exhausted": STOCK_EXHAUSTED,
    "last_red_three": LAST_RED_THREE,
    "family": FAMILIES,
    "special_hands": SPECIAL_HANDS,
    "initial_meld_core": INITIAL_MELD_CORES,
    "initial_meld_over_7000": (150, 160),
}
_RANGES: dict[str, tuple[int, int]] = {
    "players": (2, 4),
    "draw_count": (1, 2),
    "canastas_to_go_out": (1, 2),
    "target_score": (1000, 10000),
    "max_wilds_per_meld": (3, 4),
}
_TYPES: dict[str, type] = {f.name: type(getattr(Options(), f.name)) for f in fields(Options)}
OPTION_NAMES: tuple[str, ...] = tuple(_TYPES)
FAMILY_OPTION_NAMES: tuple[str, ...] = (
    "family",
    "talons",
    "rule_of_five",
    "special_hands",
    "initial_meld_core",
    "initial_meld_over_7000",
)
CLASSIC_OPTION_NAMES: tuple[str, ...] = tuple(
    n for n in OPTION_NAMES if n not in FAMILY_OPTION_NAMES
)
_DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(Options)}


_DOCS: dict[str, str] = {f.name: f.metadata["doc"] for f in fields(Options)}


def describe_options() -> dict[str, dict[str, Any]]:
    """Every option with its type, allowed values, classic default and explanation (for docs and
    clients)."""
    out: dict[str, dict[str, Any]] = {}
    for name, kind in _TYPES.items():
        entry: dict[str, Any] = {
            "type": kind.__name__,
            "default": getattr(Options(), name),
            "description": _DOCS[name],
        }
        if name in _CHOICES:
            entry["choices"] = list(_CHOICES[name])
        if name in _RANGES:
            entry["min"], entry["max"] = _RANGES[name]
        out[name] = entry
    return out


def _check_value(name: str, value: Any, family: str = "classic") -> None:
    kind = _TYPES[name]
    if kind is bool:
        if not isinstance(value, bool):
            raise InvalidOptions(name, f"option '{name}' must be true or false")
    elif kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidOptions(name, f"option '{name}' must be a whole number")
    elif not isinstance(value, str):
        raise InvalidOptions(name, f"option '{name}' must be text")
    if name in _CHOICES and value not in _CHOICES[name]:
        raise InvalidOptions(name, f"option '{name}' must be one of {', '.join(_CHOICES[name])}")
    if name in _RANGES:
        low, high = _RANGES[name]
        if family != "classic" and name == "target_score":
            low, high = FAMILY_TARGET_RANGE
        if family != "classic" and name == "max_wilds_per_meld":
            low, high = 2, 2
        if not low <= value <= high:
            raise InvalidOptions(name, f"option '{name}' must be between {low} and {high}")


def make_options(preset: str = DEFAULT_PRESET, overrides: dict[str, Any] | None = None) -> Options:
    """Build validated options from a preset name and overrides; errors name the bad option."""
    if preset not in PRESETS:
        raise InvalidOptions(
            "preset", f"unknown preset '{str(preset)[:32]}'; choose one of {', '.join(PRESETS)}"
        )
    overrides = dict(overrides or {})
    base = PRESETS[preset]
    for name, value in overrides.items():
        if name not in _TYPES:
            raise InvalidOptions(name, f"unknown option '{str(name)[:40]}'")
        _check_value(name, value, base.family)
        if value != getattr(base, name) and not _overridable(base, name):
            raise InvalidOptions(name, _fixed_message(base, preset, name))
    return replace(base, **overrides)


def _overridable(base: Options, name: str) -> bool:
    if base.family == "classic":
        return name not in FAMILY_OPTION_NAMES
    if name == "ask_partner_to_go_out" and not base.partnership:
        return False
    return name in FAMILY_OVERRIDABLE[base.family]


def _fixed_message(base: Options, preset: str, name: str) -> str:
    if base.family == "classic" and name in FAMILY_OPTION_NAMES:
        return f"option '{name}' belongs to another rule family; choose a preset of that family"
    return f"option '{name}' is fixed by the '{preset}' preset and cannot be changed"


def _stored_options(data: dict[str, Any]) -> Options:
    """Options read back from storage: every value checked against its family's ranges; the
    family options absent from the data take their defaults (see ``Options.to_dict``)."""
    family = data.get("family", "classic")
    if family not in FAMILIES:
        raise InvalidOptions("family", f"option 'family' must be one of {', '.join(FAMILIES)}")
    for name, value in data.items():
        if name not in _TYPES:
            raise InvalidOptions(name, f"unknown option '{str(name)[:40]}'")
        _check_value(name, value, family)
    if family == "classic":
        return make_options(DEFAULT_PRESET, dict(data))
    return replace(Options(), **data)


_FROM_DICT_CACHE: dict[tuple[tuple[str, type, Any], ...], Options] = {}
_FROM_DICT_CACHE_SIZE = 512


def options_from_dict(data: dict[str, Any]) -> Options:
    """Rebuild stored options (every field present); validates like make_options.

    Every stored game state carries its options, and a game has few distinct ones: the
    validated ``Options`` (immutable) are remembered by their items."""
    try:
        # The type is part of the key: True == 1, but only one of them is a valid draw_count.
        key = tuple((name, type(value), value) for name, value in sorted(data.items()))
        hash(key)
    except TypeError:  # an unhashable value is invalid: let the validation say which
        return _stored_options(dict(data))
    known = _FROM_DICT_CACHE.get(key)
    if known is None:
        known = _stored_options(dict(data))
        if len(_FROM_DICT_CACHE) >= _FROM_DICT_CACHE_SIZE:
            _FROM_DICT_CACHE.clear()
        _FROM_DICT_CACHE[key] = known
    return known
