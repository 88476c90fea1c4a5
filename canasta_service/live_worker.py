"""The live server's gunicorn worker (docker-compose's ``live``): uvicorn's, with WebSocket
compression off and uvicorn's own X-Forwarded-For handling off (the client's address is worked
out by ``core.proxies`` from TRUSTED_PROXIES, the same way under WSGI and ASGI).

Browsers offer permessage-deflate on every socket; accepted, it keeps zlib state per socket
(``python -m bench.live --idle 3000 --idle-transports ws --ws-deflate``: 75 KiB of worker
memory per idle socket instead of 37), for messages that are small JSON."""

from __future__ import annotations

from typing import Any

from uvicorn_worker import UvicornWorker  # type: ignore[import-untyped]


class LiveWorker(UvicornWorker):
    CONFIG_KWARGS: dict[str, Any] = {
        **UvicornWorker.CONFIG_KWARGS,
        "ws_per_message_deflate": False,
        "proxy_headers": False,
    }
