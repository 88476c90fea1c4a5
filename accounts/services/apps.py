"""Connected apps: the third-party apps (clients of the OpenID Connect provider) that hold a
token of a person, and taking that access back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from allauth.idp.oidc.models import Token as ProviderToken
from django.db.models import Max, Min

from accounts import errors, scopes


@dataclass(frozen=True)
class ConnectedApp:
    client_id: str
    name: str
    scopes: list[str]
    first_authorized_at: datetime
    last_authorized_at: datetime


def connected_apps_list(user: Any) -> list[ConnectedApp]:
    """Every app with a live access or refresh token of ``user``, the scopes it holds."""
    live = ProviderToken.objects.valid().filter(
        user=user,
        client__isnull=False,
        type__in=(ProviderToken.Type.ACCESS_TOKEN, ProviderToken.Type.REFRESH_TOKEN),
    )
    held: dict[str, set[str]] = {}
    for client_id, text in live.values_list("client_id", "scopes"):
        held.setdefault(client_id, set()).update(text.split())
    rows = (
        live.values("client_id", "client__name")
        .annotate(first=Min("created_at"), last=Max("created_at"))
        .order_by("-last")
    )
    return [
        ConnectedApp(
            client_id=row["client_id"],
            name=row["client__name"],
            scopes=sorted(
                held[row["client_id"]] & (scopes.GRANTABLE | {"openid", "profile", "email"})
            ),
            first_authorized_at=row["first"],
            last_authorized_at=row["last"],
        )
        for row in rows
    ]


def connected_app_revoke(user: Any, client_id: str) -> None:
    """Take back every token ``client_id`` holds for ``user`` (it must ask again)."""
    deleted, _ = ProviderToken.objects.filter(user=user, client_id=client_id).delete()
    if not deleted:
        raise errors.ConnectedAppNotFound()
