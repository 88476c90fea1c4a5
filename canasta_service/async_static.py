"""WhiteNoise for an async middleware chain.

Under ASGI, Django runs the whole request in a thread as soon as one middleware is sync-only,
and that thread stays taken while the view waits: a long-poll or an event stream would hold a
thread per client (games/api/live.py). WhiteNoise 6 is sync-only; this subclass serves static
files the same way and otherwise passes the request on without leaving the event loop.
tests/games/services/table/test_serving.py checks that every middleware in MIDDLEWARE is
async-capable.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from whitenoise.middleware import WhiteNoiseMiddleware  # type: ignore[import-untyped]


class AsyncWhiteNoiseMiddleware(WhiteNoiseMiddleware):
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Any) -> None:
        super().__init__(get_response)
        self._async = iscoroutinefunction(get_response)
        if self._async:
            markcoroutinefunction(self)

    def __call__(self, request: Any) -> Any:
        if self._async:
            return self._acall(request)
        return super().__call__(request)

    async def _acall(self, request: Any) -> Any:
        if self.autorefresh:
            static_file = await sync_to_async(self.find_file)(request.path_info)
        else:
            static_file = self.files.get(request.path_info)
        if static_file is not None:
            return await sync_to_async(self.serve)(static_file, request)
        return await self.get_response(request)
