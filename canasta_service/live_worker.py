"""The live server's gunicorn worker (docker-compose's ``live``): uvicorn's, with WebSocket
compression off, uvicorn's own X-Forwarded-For handling off (the client's address is worked
out by ``core.proxies`` from TRUSTED_PROXIES, the same way under WSGI and ASGI), and a socket's
message at most the game socket's limit: a larger frame closes the socket (1009) as it arrives,
instead of being buffered whole (up to uvicorn's default of 16 MiB) before the consumer refuses
it.

Browsers offer permessage-deflate on every socket; accepted, it keeps zlib state per socket
(``python -m bench.live --idle 3000 --idle-transports ws --ws-deflate``: 75 KiB of worker
memory per idle socket instead of 37), for messages that are small JSON."""

from __future__ import annotations

from typing import Any

from uvicorn_worker import UvicornWorker  # type: ignore[import-untyped]

from core.messages import MESSAGE_MAX_BYTES


class LiveWorker(UvicornWorker):
    CONFIG_KWARGS: dict[str, Any] = {
        **UvicornWorker.CONFIG_KWARGS,
        "ws_per_message_deflate": False,
        "proxy_headers": False,
        "ws_max_size": MESSAGE_MAX_BYTES,
    }
