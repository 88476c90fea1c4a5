"""A readable text rendering of a game for humans: one line per event, and the table."""

from __future__ import annotations

from typing import Any

from .cards import cards_text, rank_text
from .melds import CANASTA_SIZE
from .rules import Event
from .state import PERMISSION_TEXT, GameState


def _melds_text(melds: list[dict[str, Any]]) -> str:
    return "; ".join(f"{m['rank']}: {' '.join(m['cards'])}" for m in melds)


def describe_event(event: dict[str, Any]) -> str:
    """One line for an event as a viewer saw it (the dict form of ``event_view``)."""
    kind = event.get("kind", "?")
    who = f"seat {event['seat']}" if event.get("seat") is not None else "table"
    if kind == "round_started":
        text = (
            f"round {event['round']} dealt by seat {event['dealer']}; upcards "
            f"{' '.join(event['upcards'])}; seat {event['first_seat']} starts"
        )
        if event.get("hand"):
            text += f"; your hand {' '.join(event['hand'])}"
        if event.get("hands"):
            text += "; hands " + " | ".join(
                f"seat {s}: {' '.join(h)}" for s, h in enumerate(event["hands"])
            )
        return text
    if kind == "card_drawn":
        cards = f" ({' '.join(event['cards'])})" if event.get("cards") else ""
        return f"{who} drew {event['count']} card(s){cards}"
    if kind == "red_three_revealed":
        drawn = f" ({' '.join(event['drawn'])})" if event.get("drawn") else ""
        return (
            f"{who} revealed {event['card']} and drew {event['replacements']} replacement(s)"
            + drawn
        )
    if kind == "pile_taken":
        used = " ".join(event["with"]) or "a lay-off"
        extra = f", melding {_melds_text(event['melds'])}" if event.get("melds") else ""
        if event.get("cards"):
            extra += f", into the hand {' '.join(event['cards'])}"
        return f"{who} took the pile with {event['top']} + {used}{extra}"
    if kind == "melded":
        return f"{who} melded {_melds_text(event['melds'])}"
    if kind == "card_discarded":
        return f"{who} discarded {event['card']}"
    if kind == "partner_asked":
        return f"{who} asked seat {event['partner']} for permission to go out"
    if kind == "partner_answered":
        return f"{who} answered {'yes' if event['allow'] else 'no'}"
    if kind == "pile_declined":
        return f"{who} declined the pile"
    if kind == "round_ended":
        totals = ", ".join(f"team {t}: {p['total']:+d}" for t, p in enumerate(event["teams"]))
        scores = event["scores"]
        return f"round {event['round']} ended ({event['reason']}): {totals}; scores {scores}"
    if kind == "game_ended":
        return f"game over: team {event['winner_team']} wins with scores {event['scores']}"
    if kind == "talon_drawn":
        cards = f" ({' '.join(event['cards'])})" if event.get("cards") else ""
        return f"{who} took a talon of {event['count']} card(s){cards}"
    if kind == "special_hand_declared":
        return f"{who} declared the special hand {event['name']}: {' '.join(event['cards'])}"
    if kind == "melds_merged":
        return f"{who} merged meld {event['from']} into {event['into']}"
    return f"{who} {kind}"


_SUIT_SYMBOL = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


def card_symbol_text(card: str) -> str:
    """A card as people read it: ``7H`` -> ``7\u2665``, ``JK`` -> ``Joker``."""
    if card == "JK":
        return "Joker"
    return card[:-1] + _SUIT_SYMBOL.get(card[-1], card[-1])


def _groups_text(melds: list[dict[str, Any]]) -> str:
    return "; ".join(
        " ".join(card_symbol_text(c) for c in m["cards"]) + f" ({m['rank']})" for m in melds
    )


def describe_action(action: dict[str, Any]) -> str:
    """A short human text of an action in its text form (``action_to_dict``): "Take the
    pile", "Discard 7\u2665", "Meld 7\u2665 7\u2660 7\u2663 (7)"."""
    kind = action.get("type")
    if kind == "draw":
        return "Draw from the stock" + (", keeping a 3" if action.get("keep_three") else "")
    if kind == "declare_special_hand":
        return f"Declare the special hand {action.get('name')}"
    if kind == "take_pile":
        text = "Take the pile"
        if action.get("cards"):
            text += " with " + " ".join(card_symbol_text(c) for c in action["cards"])
        if action.get("melds"):
            text += ", melding " + _groups_text(action["melds"])
        return text
    if kind == "meld":
        merge = action.get("merge")
        merged = f"Merge meld {merge[1]} into {merge[0]}" if merge else ""
        melded = "Meld " + _groups_text(action["melds"]) if action.get("melds") else ""
        return "; ".join(t for t in (merged, melded) if t) or "Meld"
    if kind == "discard":
        return f"Discard {card_symbol_text(str(action.get('card', '?')))}"
    if kind == "ask_partner":
        return "Ask your partner whether you may go out"
    if kind == "answer_partner":
        return "Let your partner go out" if action.get("allow") else "Tell your partner not yet"
    if kind == "decline_pile":
        return "Decline the pile"
    if kind == "end_round":
        return "End the round"
    return str(kind)


def event_view_full(event: Event) -> dict[str, Any]:
    """An event with every hidden part shown (a finished game, or an operator's tool).

    Like ``event_view`` for the acting seat, plus every seat's dealt hand at a round's start
    (``hands``, by seat) and any other seat's private part under ``private`` (by seat).
    """
    out: dict[str, Any] = {"kind": event.kind, "seat": event.seat, **event.public}
    if event.seat is not None and event.seat in event.private:
        out.update(event.private[event.seat])
    others = {s: part for s, part in event.private.items() if s != event.seat}
    if event.kind == "round_started":
        out["hands"] = [others.get(s, {}).get("hand") for s in range(max(others, default=-1) + 1)]
    elif others:
        out["private"] = {str(s): part for s, part in sorted(others.items())}
    return out


def describe_step(seq: int, seat: int | None, kind: str, effects: list[dict[str, Any]]) -> str:
    """One line for a logged step: its number, actor and action, then what it caused."""
    who = f"seat {seat}" if seat is not None else "table"
    said = "; ".join(describe_event(e) for e in effects)
    return f"#{seq} {who} {kind}: {said}" if said else f"#{seq} {who} {kind}"


def render_table(st: GameState, show_hands: bool = False) -> str:
    """The table as text; hands are shown only when ``show_hands`` (a finished game)."""
    lines = [
        f"round {st.round_no}, dealer seat {st.dealer}, seat {st.turn} to play "
        f"({st.phase}, permission {PERMISSION_TEXT[st.permission]})",
        f"stock {len(st.stock)} | pile {len(st.pile)}"
        + (f", top {cards_text(st.pile[-1:])[0]}" if st.pile else "")
        + (" (frozen)" if st.pile_freezers else ""),
    ]
    for team in range(st.options.teams):
        melds = ", ".join(
            f"{rank_text(r)}x{len(cs)}{'*' if len(cs) >= CANASTA_SIZE else ''}"
            for r, cs in sorted(st.melds[team].items())
        )
        reds = " ".join(cards_text(st.red_threes[team]))
        lines.append(
            f"team {team} ({st.scores[team]}): melds [{melds}]"
            + (f" red threes {reds}" if reds else "")
        )
    for seat, hand in enumerate(st.hands):
        shown = " ".join(cards_text(hand)) if show_hands else f"{len(hand)} cards"
        lines.append(f"  seat {seat}: {shown}")
    return "\n".join(lines)
