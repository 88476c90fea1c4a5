"""Settings for the test suite and for mypy's Django plugin.

The production settings (``settings.py``) refuse to load without a SECRET_KEY while DEBUG is
off. Tests run with DEBUG off, like production, so this module supplies a throwaway key when
none is set (through the environment, so a Celery worker started by the tests inherits it) and
a fast password hasher. Everything else comes from the environment exactly as in production.
"""

import os

os.environ.setdefault("SECRET_KEY", "insecure-key-for-tests-only")

from canasta_service.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Rate limits are off in the suite (tests sign up many players and play whole games through
# the API); tests/hardening/test_abuse.py switches them on where it checks them.
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {  # noqa: F405
    **THROTTLE_RATES,  # noqa: F405
    "signup": None,
    "actions": None,
    "chat": None,
    "review": None,
    "game_create": None,
    "game_start": None,
    "import": None,
    "proposals": None,
}

# Long-polls and event streams wait at most this long in the suite (generated requests may ask
# for the maximum; games/api/live.py).
LIVE_WAIT_MAX_SECONDS = 3
LIVE_STREAM_MAX_SECONDS = 5

# Tests drive expiries themselves; no timer thread runs behind their back.
TURN_TIMER_IN_PROCESS = False
# A review asked for is computed inside the request (ready when it answers), not by a thread.
REVIEWS_IN_PROCESS = False
