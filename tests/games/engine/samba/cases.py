"""A case for every refusal code of the samba family: how to provoke it, and what its message says
(merged into ``tests/games/engine/test_error_codes.py``'s CASES)."""

from __future__ import annotations

from collections.abc import Callable

from games.engine import EngineError, Meld, MeldGroup, TakePile, apply, parse_cards
from games.engine.cards import RANK_OF
from games.engine.state import PHASE_PLAY

from .position import samba_position


def refusal(st_action: Callable[[], None]) -> EngineError:
    try:
        st_action()
    except EngineError as exc:
        return exc
    raise AssertionError("the action was accepted")


def group(text: str, **kw: object) -> MeldGroup:
    cards = tuple(parse_cards(text))
    return MeldGroup(RANK_OF[cards[0]], cards, **kw)  # type: ignore[arg-type]


def sequence_invalid() -> EngineError:
    st = samba_position(["4H 5H 7H 9C 9D"], melds=[{"A1": "KH KS KD"}], phase=PHASE_PLAY)
    return refusal(lambda: apply(st, Meld(0, (group("4H 5H 7H", kind="sequence"),))))


def pile_sequence_forbidden() -> EngineError:
    st = samba_position(["8H 9H KC KD QS"], pile="4C 7H", melds=[{"A1": "KH KS KH"}])
    return refusal(lambda: apply(st, TakePile(0, tuple(parse_cards("8H 9H")))))


def meld_target_required() -> EngineError:
    st = samba_position(
        ["KC 5D 6D 9S"], melds=[{"A1": "KH KS KD", "A2": "KH KS KD"}], phase=PHASE_PLAY
    )
    return refusal(lambda: apply(st, Meld(0, (group("KC"),))))


def meld_target_invalid() -> EngineError:
    st = samba_position(
        ["KC 5D 6D 9S"], melds=[{"A1": "KH KS KD"}, {"B1": "KH KS KD"}], phase=PHASE_PLAY
    )
    return refusal(lambda: apply(st, Meld(0, (group("KC", target="B1"),))))


def meld_merge_invalid() -> EngineError:
    st = samba_position(
        ["KC 5D 6D 9S"], melds=[{"A1": "KH KS KD", "A2": "QH QS QD"}], phase=PHASE_PLAY
    )
    return refusal(lambda: apply(st, Meld(0, (), ("A1", "A2"))))


def meld_wild_to_canasta() -> EngineError:
    st = samba_position(["2C 5D 6D 9S"], melds=[{"A1": "KH KS KD KC KH KS KD"}], phase=PHASE_PLAY)
    return refusal(
        lambda: apply(
            st,
            Meld(
                0,
                (MeldGroup(RANK_OF[parse_cards("KC")[0]], tuple(parse_cards("2C")), target="A1"),),
            ),
        )
    )


def cannot_go_out_without_escalera() -> EngineError:
    st = samba_position(
        ["9S"],
        preset="bolivia",
        melds=[{"A1": "KH KS KD KC KH KS KD", "A2": "QH QS QD QC QH QS 2D"}],
        phase=PHASE_PLAY,
    )
    from games.engine import Discard

    return refusal(lambda: apply(st, Discard(0, parse_cards("9S")[0])))


SAMBA_CASES: dict[str, tuple[Callable[[], EngineError], str]] = {
    "sequence_invalid": (sequence_invalid, "consecutive ranks"),
    "pile_sequence_forbidden": (pile_sequence_forbidden, "cannot start a sequence"),
    "meld_target_required": (meld_target_required, "name the one to add to"),
    "meld_target_invalid": (meld_target_invalid, "not one of your side's melds"),
    "meld_merge_invalid": (meld_merge_invalid, "not group melds of one rank"),
    "meld_wild_to_canasta": (meld_wild_to_canasta, "no wild card may be added"),
    "cannot_go_out_without_escalera": (cannot_go_out_without_escalera, "escalera"),
}
