from __future__ import annotations
from .heuristic import HeuristicPolicy as IsmctsPolicy
