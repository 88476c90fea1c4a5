"""The mac family's rules (see rules.py); registered with the engine on import."""

from ..family import register
from .rules import RULES

register(RULES)
