"""The players' error codes (see ``core.errors``, the one catalogue): refusals of ``accounts``'
own code, and of an app above it raising the same (``games``' admin renames players too)."""

from __future__ import annotations

from core.errors import ServiceError


class DisplayNameInvalid(ServiceError, code="invalid_request"):
    default_message = "A display name is 1 to 40 characters once spaces at either end are dropped."
