"""The scope check every API view runs (a default permission class), and how the schema
shows it: each operation lists, under the ``oauth2`` scheme, the scopes that let it in."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from accounts import errors, scopes
from accounts.models import Credential


def scopes_held(auth: Any) -> frozenset[str]:
    """The scopes of the credential a request was authenticated with: a key's own, a provider
    token's, or every scope for the browser session (``auth`` is ``None``)."""
    if auth is None:
        return frozenset({scopes.ALL})
    if isinstance(auth, Credential):
        return frozenset(auth.scopes)
    get_scopes = getattr(auth, "get_scopes", None)
    if get_scopes is not None:  # the OpenID Connect provider's access token
        # Only what a token may be given, whatever a client was registered with.
        return frozenset(get_scopes()) & scopes.GRANTABLE
    return frozenset()


def scopes_wanted(view: Any, method: str) -> tuple[str, ...]:
    """The scopes a view declares for ``method`` (none declared: nothing scoped gets in)."""
    name = "read_scopes" if method in SAFE_METHODS else "write_scopes"
    return tuple(getattr(view, name, ()))


def scopes_demand(request: Request, wanted: tuple[str, ...]) -> None:
    """Refuse (403 ``insufficient_scope``) a request whose credential holds none of ``wanted``:
    for what a view lets in only with some of its input (a rated table needs ``play``)."""
    if not scopes.scopes_grant(scopes_held(request.auth), wanted):
        raise errors.ScopeInsufficient(extra={"needed": list(wanted)})


class ScopesGranted(BasePermission):
    """A request authenticated with a scoped credential needs one of the scopes its view
    declares for the method; refused with 403 ``insufficient_scope`` otherwise. An
    unauthenticated request passes here (the view's other permissions decide)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if not request.user or not request.user.is_authenticated:
            return True
        held = scopes_held(request.auth)
        if scopes.ALL in held:
            return True
        method = request.method or "GET"
        if getattr(view, method.lower(), None) is None:
            return True  # a method the view does not serve: 405, whatever the credential
        wanted = scopes_wanted(view, method)
        if not scopes.scopes_grant(held, wanted):
            raise errors.ScopeInsufficient(extra={"needed": list(wanted)})
        return True
