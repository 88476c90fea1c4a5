"""The OpenID Connect provider's routes: allauth's (``allauth.idp.urls``: /.well-known/ and
/identity/o/, names ``idp:oidc:*``), each view behind the guard of ``accounts.oidc_views``,
with the authorization, token and device-code views wrapped in the service's checks; and
/identity/signin, where ``LOGIN_URL`` sends a visitor who is not signed in."""

from __future__ import annotations

from allauth.idp import urls as idp_urls
from django.urls import URLPattern, URLResolver, include, path

from accounts import oidc_views

# allauth's views the service wraps (by route name).
_WRAPPED = {
    "authorization": oidc_views.authorization,
    "token": oidc_views.token,
    "device_code": oidc_views.device_code,
}


def _guard(patterns: list[URLPattern | URLResolver]) -> list[URLPattern | URLResolver]:
    out: list[URLPattern | URLResolver] = []
    for entry in patterns:
        if isinstance(entry, URLResolver):
            out.append(
                URLResolver(
                    entry.pattern,
                    _guard(list(entry.url_patterns)),
                    entry.default_kwargs,
                    entry.app_name,
                    entry.namespace,
                )
            )
        else:
            view = _WRAPPED.get(entry.name or "", entry.callback)
            out.append(
                URLPattern(entry.pattern, oidc_views.guarded(view), entry.default_args, entry.name)
            )
    return out


urlpatterns: list[URLPattern | URLResolver] = [
    path("identity/signin", oidc_views.signin, name="identity_signin"),
    path("", include((_guard(list(idp_urls.urlpatterns)), idp_urls.app_name))),
]
