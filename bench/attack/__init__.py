"""The hardening attacks, driven against a running server: ``python -m bench.attack``.

Three kinds, run in this order:

1. the attacks of the earlier rounds (``bench.attack.classic``): bad input, privacy, records,
   killed database sessions, sign-ups with a forged X-Forwarded-For (that one last: it uses up
   the sign-up quota of 127.0.0.1);
2. the attacks on sign-in and keys (``bench.attack.identity``): credential stuffing, refresh
   replay, revoked keys, scope escalation, CSRF on the browser flow, e-mail enumeration
   (answers and timing), redirect URIs of the OpenID Connect provider;
3. the isolation attacks of the third hardening round (``bench.attack.isolation``), one per
   finding, each for ``--seconds`` while a victim (``bench.attack.victim``) plays a game against
   bots and a probe reads the API: per attack, the victim's bot-move latency (p50/p95/max) and
   the probe's p95/max, against the targets (bot p95 <= 2 s and max <= 5 s, API p95 <= 1 s),
   after a baseline with no attack.

Then ``manage.py replay --all --verify`` on the server's database (with ``--serve``) and the
count of server errors (5xx other than a 503 ``database_unavailable``) among every answer.

Usage::

    python -m bench.attack --serve production                    # nginx + WSGI + ASGI + workers
    python -m bench.attack --serve production --worker-layout single   # the layout before
    python -m bench.attack --serve production --quick            # CI: shorter attacks
    python -m bench.attack --url http://127.0.0.1:8000 --only slow_webhooks,bot_tables

Exit status 1 if any attack got through, a server error was answered or a game did not
verify; with ``--latency-targets`` also if a latency target was missed.
"""
