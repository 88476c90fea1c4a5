"""The API's JSON parser: DRF's, plus a clear 400 for JSON nested too deeply to decode.

Python's ``json`` decoder recurses once per nesting level and raises ``RecursionError`` (not a
``ValueError``) past the interpreter's limit; DRF's parser lets that escape as a 500. A body of
a few kilobytes (``[[[[...]]]]``) was enough. Here it is a ``ParseError`` like any other
undecodable body: 400 ``malformed_body``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None
