"""The only writers of the game service, one module per feature.

Each service runs in one transaction and, once a game exists, locks its row first
(``locks.game_lock``), so concurrent requests for one game are serialised. Refusals are
``ServiceError``s raised by code from the one catalogue (``games.errors``). Work that must follow
a commit (a bot's turn, a timer, a live wake-up) is registered with ``transaction.on_commit``.
"""
