"""Whom a key stands for, remembered per process, and forgotten everywhere when it is revoked.

Looking a key up costs a database round trip on every request (0.3-0.8 ms here, as much as a
move's own statements). So each process remembers, for ``AUTH_KEY_CACHE_SECONDS``, what a
key's lookup found (ids, scopes, the display name; never the key, only its digest), and drops
an entry the moment the key can no longer be used:

- in the process that revokes, at once (before the transaction commits);
- in every other process, through Redis pub/sub (``canasta:auth:revoked``): a revocation is
  published when it happens and again when it commits (a process that looked the key up in
  between must not keep what it read). Each process subscribes from a thread of its own; the
  remembered entries are used only while that subscription is live, and all are dropped when
  it (re)connects, so a message lost while Redis was away cannot leave a revoked key behind.

Without ``REDIS_URL`` nothing is remembered (other processes could not be told): every request
looks its key up. What revokes: a key deleted (revoked, its session ended, its user deleted:
every cascade sends ``post_delete``), a user saved (deactivated) and a player saved (renamed).
A third-party app's token (the OpenID Connect provider's) is never remembered."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction

logger = logging.getLogger(__name__)

CHANNEL = "canasta:auth:revoked"
ENTRIES_MAX = 20_000


@dataclass
class Remembered:
    """What a lookup found (``key_lookup.KeyRow``) and until when it may be used."""

    row: Any
    kept_until: float  # time.monotonic()


_lock = threading.Lock()
_generation = 0  # counts what was forgotten: a lookup that overlapped one is not remembered
_entries: OrderedDict[str, Remembered] = OrderedDict()
_live = threading.Event()  # this process's subscription is up: entries may be used
_listener: threading.Thread | None = None
_listener_pid = 0


def _seconds() -> int:
    return int(getattr(settings, "AUTH_KEY_CACHE_SECONDS", 0))


def _redis_url() -> str | None:
    url: str | None = getattr(settings, "REDIS_URL", None)
    return url


def enabled() -> bool:
    """Entries may be used: a cache time is set, Redis is there and this process listens."""
    if not _seconds() or not _redis_url():
        return False
    _listener_ensure()
    return _live.is_set()


def recall(digest: str) -> Remembered | None:
    if not enabled():
        return None
    with _lock:
        entry = _entries.get(digest)
        if entry is not None and entry.kept_until <= time.monotonic():
            del _entries[digest]
            return None
        return entry


def generation() -> int:
    """Take before a lookup; give to ``remember`` after it."""
    return _generation


def remember(digest: str, row: Any, seen: int) -> None:
    """Keep what a lookup found, unless something was forgotten since it began (``seen``): the
    database may have answered with a row a revocation was then deleting."""
    if not enabled():
        return
    entry = Remembered(row, time.monotonic() + _seconds())
    with _lock:
        if seen != _generation:
            return
        _entries[digest] = entry
        _entries.move_to_end(digest)
        while len(_entries) > ENTRIES_MAX:
            _entries.popitem(last=False)


def forget_all() -> None:
    global _generation
    with _lock:
        _generation += 1
        _entries.clear()


def _forget(message: str) -> None:
    global _generation
    kind, _, value = message.partition(":")
    with _lock:
        _generation += 1
        if kind == "d":
            _entries.pop(value, None)
        elif kind == "u" and value.isdigit():
            user_id = int(value)
            for digest in [d for d, e in _entries.items() if e.row.user_id == user_id]:
                del _entries[digest]


def revoked(message: str) -> None:
    """``d:<digest>`` (a key) or ``u:<user id>`` (every key of a user) can no longer be used
    as remembered: dropped here now, and in every process now and at commit."""
    _forget(message)
    if not _redis_url():
        return
    _publish(message)
    transaction.on_commit(lambda: _publish(message))


# ----------------------------------------------------------------------------- Redis
_publisher: Any = None
_publisher_lock = threading.Lock()


def _publish(message: str) -> None:
    global _publisher
    try:
        if _publisher is None:
            with _publisher_lock:
                if _publisher is None:
                    import redis

                    _publisher = redis.Redis.from_url(
                        str(_redis_url()), socket_timeout=2, socket_connect_timeout=2
                    )
        _publisher.publish(CHANNEL, message)
    except Exception:  # noqa: BLE001 - Redis away: the listeners drop everything on return
        logger.warning("auth: a revocation could not be published", exc_info=True)


def _listener_ensure() -> None:
    """One subscriber thread per process (started after a fork too)."""
    global _listener, _listener_pid
    pid = os.getpid()
    if _listener is not None and _listener_pid == pid and _listener.is_alive():
        return
    with _lock:
        if _listener is not None and _listener_pid == pid and _listener.is_alive():
            return
        _live.clear()
        _entries.clear()
        _listener_pid = pid
        _listener = threading.Thread(target=_listen, name="auth-revocations", daemon=True)
        _listener.start()
    _live.wait(0.5)  # the first request waits briefly for the subscription


def _listen() -> None:
    import redis

    while True:
        pubsub = None
        try:
            client = redis.Redis.from_url(
                str(_redis_url()), socket_connect_timeout=2, health_check_interval=15
            )
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            pubsub.subscribe(CHANNEL)
            pubsub.get_message(timeout=2)  # the subscription's confirmation
            forget_all()  # anything revoked while nobody listened
            _live.set()
            for message in pubsub.listen():
                if message.get("type") == "message":
                    data = message["data"]
                    _forget(data.decode() if isinstance(data, bytes) else str(data))
        except Exception:  # noqa: BLE001 - reconnect; meanwhile nothing is remembered
            logger.warning("auth: the revocation subscription failed", exc_info=True)
        finally:
            _live.clear()
            forget_all()
            if pubsub is not None:
                with contextlib.suppress(Exception):
                    pubsub.close()
        time.sleep(1)
