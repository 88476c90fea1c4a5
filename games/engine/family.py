"""The rule families beside Classic: each plays behind the same ``apply`` / ``legal_actions`` /
``player_view`` / replay API, and registers itself here.

The classic family is the engine's own modules (``rules``, ``legal``, ``view``); ``mac``
(Modern American Canasta) and ``samba`` (Samba and Bolivia) are sub-packages that implement
``FamilyRules`` and keep the state a family adds to ``GameState`` in ``GameState.ext`` (a
``FamilyState``). The protocols and the registry live in ``state.py`` (the state holds a
family's part); this module is the name the families and the dispatching modules import.
"""

from __future__ import annotations

from .state import CLASSIC, FamilyRules, FamilyState, family_rules, register

__all__ = ["CLASSIC", "FamilyRules", "FamilyState", "family_rules", "register"]
