"""Modern American Canasta (family ``mac``): rules.py applies actions, legal.py lists them,
view.py shows them; registered with the engine on import."""

from ..family import register
from .family_rules import RULES

register(RULES)
