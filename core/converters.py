"""Path converters shared by every app's routes.

``<id:name>``: a row id, 1 to 18 digits (every id the database can hold, a 64-bit key, and
no more). A longer number is no such URL (404 ``not_found``) rather than a value the database
refuses to compare with (a 500 before this converter existed).
"""

from __future__ import annotations

from django.urls import register_converter

ID_DIGITS_MAX = 18  # 10**18 - 1 < 2**63 - 1, the largest BigAutoField key


class IdConverter:
    regex = f"[0-9]{{1,{ID_DIGITS_MAX}}}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int | str) -> str:
        return str(value)


register_converter(IdConverter, "id")
