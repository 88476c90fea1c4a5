"""The full game state (including hidden cards), cheap to clone and lossless to serialise.

Hands, stock and pile are lists of card codes (stock and pile tops are the list ends). Melds are
kept per team as ``{key: [codes]}``: the rank in classic and mac, the meld's number in samba and
bolivia (its id is the side's letter and that number). What a family adds is in ``ext``. Nothing
here decides a rule; see ``rules.py`` and the family packages.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Protocol

from .cards import deck_of
from .options import Options, options_from_dict

if TYPE_CHECKING:
    from .actions import Action

PHASE_DRAW = "draw"  # the seat to move must draw, take the pile or (empty stock) decline it
PHASE_PLAY = "play"  # the seat has drawn: meld, lay off, ask the partner, discard
PHASE_ANSWER = "answer"  # the partner (to_act) must answer a request to go out
PHASE_GAME_OVER = "game_over"
PHASES = (PHASE_DRAW, PHASE_PLAY, PHASE_ANSWER, PHASE_GAME_OVER)

# Permission to go out asked of the partner during the current turn.
PERMISSION_NONE, PERMISSION_ASKED, PERMISSION_YES, PERMISSION_NO = 0, 1, 2, 3
PERMISSION_TEXT = ("none", "asked", "yes", "no")

CLASSIC = "classic"
RULES_VERSION = "1"
# Each family's rules have a version of their own, so a change to one family never touches the
# games of another.
FAMILY_RULES_VERSIONS: dict[str, str] = {
    CLASSIC: RULES_VERSION,
    "mac": "mac-1",
    "samba": "samba-1",
    "bolivia": "bolivia-1",
}
# Rules versions this engine replays exactly as they were played. A game is pinned to the version
# it was started under; a game whose version is not listed here is refused, never replayed under
# changed rules. Add the old marker here only while the engine still plays it identically.
SUPPORTED_RULES_VERSIONS: frozenset[str] = frozenset(FAMILY_RULES_VERSIONS.values())


def rules_version_of(family: str) -> str:
    """The rules version a new game of ``family`` is pinned to."""
    return FAMILY_RULES_VERSIONS[family]


def round_seed(game_seed: str, round_no: int) -> str:
    """The seed of one round's shuffle; published as a hash at the deal, revealed at game end."""
    return hashlib.sha256(f"canasta:{game_seed}:{round_no}".encode()).hexdigest()


def seed_commitment(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


# -- the families beside classic (see family.py) ----------------------------------------------


class FamilyState(Protocol):
    """What a family keeps beside the shared state (JSON-safe, cheap to clone)."""

    def clone(self) -> FamilyState: ...

    def to_dict(self) -> dict[str, Any]: ...

    def cards(self) -> list[int]:
        """Cards held in the family's own places (for the conservation invariant)."""
        ...


class FamilyRules(Protocol):
    """One rule family's rules. ``apply`` validates fully, then commits (a refusal raises
    ``IllegalAction`` and leaves the state exactly as it was)."""

    families: tuple[str, ...]

    def new_ext(self, options: Options) -> FamilyState: ...

    def ext_from_dict(self, data: dict[str, Any]) -> FamilyState: ...

    def deal_round(
        self, st: GameState, events: list[Any] | None, deck: list[int] | None
    ) -> None: ...

    def apply(self, st: GameState, action: Action, events: list[Any] | None) -> None: ...

    def legal_actions(self, st: GameState) -> list[Action]: ...

    def player_view(
        self, st: GameState, viewer: int | None, with_legal: bool
    ) -> dict[str, Any]: ...


_FAMILIES: dict[str, FamilyRules] = {}


def register(rules: FamilyRules) -> None:
    for name in rules.families:
        _FAMILIES[name] = rules


def family_rules(family: str) -> FamilyRules:
    """The rules of a family other than classic (registered when ``games.engine`` loads)."""
    return _FAMILIES[family]


class GameState:
    __slots__ = (
        "options",
        "seed",
        "round_no",
        "dealer",
        "turn",
        "to_act",
        "phase",
        "stock",
        "pile",
        "pile_freezers",
        "hands",
        "melds",
        "red_threes",
        "opened",
        "melded_before",
        "turn_melded",
        "turn_started",
        "turn_laid",
        "permission",
        "no_discard",
        "scores",
        "rounds",
        "winner",
        "action_count",
        "ext",
    )

    options: Options
    seed: str
    round_no: int
    dealer: int
    turn: int
    to_act: int
    phase: str
    stock: list[int]
    pile: list[int]
    pile_freezers: int
    hands: list[list[int]]
    melds: list[dict[int, list[int]]]
    red_threes: list[list[int]]
    opened: list[bool]
    melded_before: list[bool]
    turn_melded: bool
    turn_started: list[int]
    turn_laid: dict[int, list[int]]  # rank -> the cards the seat to move laid there this turn
    permission: int
    no_discard: bool
    scores: list[int]
    rounds: list[dict[str, Any]]
    winner: int | None
    action_count: int
    ext: FamilyState | None  # what a family other than classic keeps beside (``family.py``)

    def __init__(self, options: Options, seed: str) -> None:
        players, teams = options.players, options.teams
        self.options = options
        self.seed = seed
        self.round_no = 0
        self.dealer = players - 1
        self.turn = 0
        self.to_act = 0
        self.phase = PHASE_DRAW
        self.stock = []
        self.pile = []
        self.pile_freezers = 0
        self.hands = [[] for _ in range(players)]
        self.melds = [{} for _ in range(teams)]
        self.red_threes = [[] for _ in range(teams)]
        self.opened = [False] * teams
        self.melded_before = [False] * players
        self.turn_melded = False
        self.turn_started = []
        self.turn_laid = {}
        self.permission = PERMISSION_NONE
        self.no_discard = False
        self.scores = [0] * teams
        self.rounds = []
        self.winner = None
        self.action_count = 0
        self.ext = (
            None if options.family == CLASSIC else family_rules(options.family).new_ext(options)
        )

    # -- helpers -----------------------------------------------------------------------------
    def team_of(self, seat: int) -> int:
        return seat % self.options.teams

    def seats_of(self, team: int) -> list[int]:
        return [s for s in range(self.options.players) if s % self.options.teams == team]

    @property
    def game_over(self) -> bool:
        return self.phase == PHASE_GAME_OVER

    def all_cards(self) -> list[int]:
        """Every card the state holds, in any place (for the conservation invariant)."""
        out = list(self.stock) + list(self.pile)
        for hand in self.hands:
            out += hand
        for team_melds in self.melds:
            for cards in team_melds.values():
                out += cards
        for reds in self.red_threes:
            out += reds
        if self.ext is not None:
            out += self.ext.cards()
        return out

    def cards_conserved(self) -> bool:
        return sorted(self.all_cards()) == list(deck_of(self.options.family))

    # -- copying and serialising -------------------------------------------------------------
    def clone(self) -> GameState:
        new = GameState.__new__(GameState)
        new.options = self.options
        new.seed = self.seed
        new.round_no = self.round_no
        new.dealer = self.dealer
        new.turn = self.turn
        new.to_act = self.to_act
        new.phase = self.phase
        new.stock = self.stock[:]
        new.pile = self.pile[:]
        new.pile_freezers = self.pile_freezers
        new.hands = [h[:] for h in self.hands]
        new.melds = [{r: c[:] for r, c in m.items()} for m in self.melds]
        new.red_threes = [r[:] for r in self.red_threes]
        new.opened = self.opened[:]
        new.melded_before = self.melded_before[:]
        new.turn_melded = self.turn_melded
        new.turn_started = self.turn_started[:]
        new.turn_laid = self.turn_laid  # replaced, never mutated, by the rules
        new.permission = self.permission
        new.no_discard = self.no_discard
        new.scores = self.scores[:]
        new.rounds = self.rounds  # finished rounds are never mutated, only appended to
        new.winner = self.winner
        new.action_count = self.action_count
        new.ext = None if self.ext is None else self.ext.clone()
        return new

    def to_dict(self) -> dict[str, Any]:
        out = {
            "rules_version": FAMILY_RULES_VERSIONS[self.options.family],
            "options": self.options.to_dict(),
            "seed": self.seed,
            "round_no": self.round_no,
            "dealer": self.dealer,
            "turn": self.turn,
            "to_act": self.to_act,
            "phase": self.phase,
            "stock": list(self.stock),
            "pile": list(self.pile),
            "pile_freezers": self.pile_freezers,
            "hands": [list(h) for h in self.hands],
            "melds": [[[r, list(c)] for r, c in sorted(m.items())] for m in self.melds],
            "red_threes": [list(r) for r in self.red_threes],
            "opened": list(self.opened),
            "melded_before": list(self.melded_before),
            "turn_melded": self.turn_melded,
            "turn_started": list(self.turn_started),
            "permission": self.permission,
            "no_discard": self.no_discard,
            "scores": list(self.scores),
            "rounds": [dict(r) for r in self.rounds],
            "winner": self.winner,
            "action_count": self.action_count,
        }
        if self.turn_laid:  # only while a turn has laid cards: older snapshots have no such key
            out["turn_laid"] = [[r, list(c)] for r, c in sorted(self.turn_laid.items())]
        if self.ext is not None:
            out["ext"] = self.ext.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameState:
        st = cls(options_from_dict(data["options"]), data["seed"])
        st.round_no = data["round_no"]
        st.dealer = data["dealer"]
        st.turn = data["turn"]
        st.to_act = data["to_act"]
        st.phase = data["phase"]
        st.stock = list(data["stock"])
        st.pile = list(data["pile"])
        st.pile_freezers = data["pile_freezers"]
        st.hands = [list(h) for h in data["hands"]]
        st.melds = [{int(r): list(c) for r, c in m} for m in data["melds"]]
        st.red_threes = [list(r) for r in data["red_threes"]]
        st.opened = list(data["opened"])
        st.melded_before = list(data["melded_before"])
        st.turn_melded = data["turn_melded"]
        st.turn_started = list(data["turn_started"])
        st.turn_laid = {int(r): list(c) for r, c in data.get("turn_laid", ())}
        st.permission = data["permission"]
        st.no_discard = data["no_discard"]
        st.scores = list(data["scores"])
        st.rounds = [dict(r) for r in data["rounds"]]
        st.winner = data["winner"]
        st.action_count = data["action_count"]
        if st.ext is not None:
            st.ext = family_rules(st.options.family).ext_from_dict(data["ext"])
        return st

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]
