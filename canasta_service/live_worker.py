"""The live server's gunicorn worker (docker-compose's ``live``): uvicorn's, with WebSocket
compression off, uvicorn's own X-Forwarded-For handling off (the client's address is worked
out by ``core.proxies`` from TRUSTED_PROXIES, the same way under WSGI and ASGI), and a socket's
message at most the game socket's limit: a larger frame closes the socket (1009) as it arrives,
instead of being buffered whole (up to uvicorn's default of 16 MiB) before the consumer refuses
it.

Browsers offer permessage-deflate on every socket; accepted, it keeps zlib state per socket
(``python -m bench.live --idle 3000 --idle-transports ws --ws-deflate``: 75 KiB of worker
memory per idle socket instead of 37), for messages that are small JSON. It stays off unless
``LIVE_WS_PER_MESSAGE_DEFLATE`` is true (an option, for a deploy with memory to spare: the
figures, per idle socket and per game's bytes, are in bench/README.md, "Payload bytes")."""

from __future__ import annotations

import os
from typing import Any

from uvicorn_worker import UvicornWorker  # type: ignore[import-untyped]

from core.messages import MESSAGE_MAX_BYTES


def ws_per_message_deflate() -> bool:
    """Whether sockets accept permessage-deflate: ``LIVE_WS_PER_MESSAGE_DEFLATE`` (off)."""
    return os.environ.get("LIVE_WS_PER_MESSAGE_DEFLATE", "").strip().lower() in ("1", "true", "yes")


class LiveWorker(UvicornWorker):
    CONFIG_KWARGS: dict[str, Any] = {
        **UvicornWorker.CONFIG_KWARGS,
        "ws_per_message_deflate": ws_per_message_deflate(),
        "proxy_headers": False,
        "ws_max_size": MESSAGE_MAX_BYTES,
    }
