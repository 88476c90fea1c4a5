"""After a benchmark run: the guarantees still hold in the database the stack used.

For every started game: its events are numbered 1..version with no gap and no duplicate, and
replaying its log with the engine gives exactly its snapshot. Run by the benchmarks with the
stack's environment (``python -m bench.check``); prints one line, exits 1 on a violation.
"""

from __future__ import annotations

import os
import sys

import django


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canasta_service.settings")
    django.setup()
    from games.engine import GameState
    from games.models import Game, GameEvent
    from games.selectors.games import game_replay_state

    games = events = gaps = mismatches = 0
    for game in Game.objects.exclude(snapshot=None).iterator():
        games += 1
        seqs = list(
            GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", flat=True)
        )
        events += len(seqs)
        if seqs != list(range(1, game.version + 1)):
            gaps += 1
        if game_replay_state(game) != GameState.from_dict(game.snapshot):
            mismatches += 1
    ok = not gaps and not mismatches
    print(
        f"check: {games} games, {events} events; games with a missing or doubled seq: {gaps}; "
        f"replay != snapshot: {mismatches} -> {'OK' if ok else 'VIOLATED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
