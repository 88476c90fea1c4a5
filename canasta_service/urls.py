"""URL routes. The versioned API lives under /api/v1/; schema and docs under /api/; the web
client's page at /."""

from django.conf import settings
from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from canasta_service.client import client_page, service_worker, web_manifest
from canasta_service.health import HealthApi, WorkerProbeCreateApi, WorkerProbeDetailApi
from canasta_service.i18n import WebCatalogue
from canasta_service.metrics import metrics_view

api_v1: list[URLPattern | URLResolver] = [
    path("health/", HealthApi.as_view(), name="health"),
    path("health/probe/", WorkerProbeCreateApi.as_view(), name="health-probe"),
    path("health/probe/<slug:token>/", WorkerProbeDetailApi.as_view(), name="health-probe-detail"),
    # The web client's translations (Django's JSON catalogue of the djangojs domain).
    path("i18n/catalog/", WebCatalogue.as_view(), name="i18n-catalogue"),
    # One set of routes per app (each app's api/urls.py).
    path("", include("accounts.api.urls")),
    path("", include("games.api.urls")),
    path("", include("competition.api.urls")),
    path("", include("notifications.api.urls")),
    path("", include("bots.api.urls")),
]

urlpatterns = [
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The docs' pages fetch nothing from another host (canasta_service/templates/docs/).
    path(
        "api/docs/",
        SpectacularSwaggerView.as_view(url_name="schema", template_name="docs/swagger_ui.html"),
        name="swagger-ui",
    ),
    path(
        "api/redoc/",
        SpectacularRedocView.as_view(url_name="schema", template_name="docs/redoc.html"),
        name="redoc",
    ),
    path("admin/", admin.site.urls),
    # allauth's headless API (sign-up, sign-in, passkeys, TOTP, e-mail, sessions):
    # /_allauth/app/v1/... for apps, /_allauth/browser/v1/... for the web client.
    path("_allauth/", include("allauth.headless.urls")),
    # The OpenID Connect provider for third-party apps (/.well-known/openid-configuration).
    path("", include("accounts.oidc_urls")),
    path("", client_page, name="client"),
    # The installable app: the service worker at the root (its scope covers the page) and the
    # web app manifest.
    path("sw.js", service_worker, name="client-worker"),
    path("manifest.webmanifest", web_manifest, name="client-manifest"),
    # Prometheus's scrape: a bearer token (METRICS_TOKEN), not in the OpenAPI document.
    path("metrics", metrics_view, name="metrics"),
]

# Errors outside DRF views (unknown URL, uncaught exception) are problem documents too.
handler400 = "core.exceptions.bad_request"
handler403 = "core.exceptions.permission_denied"
handler404 = "core.exceptions.page_not_found"
handler500 = "core.exceptions.server_error"

# The load benchmark's baseline endpoint, mounted only when BENCH_BASELINE=1 (not in the schema).
if settings.BENCH_BASELINE:
    from canasta_service.baseline import BaselineApi

    urlpatterns.append(path("api/bench/baseline/", BaselineApi.as_view(), name="bench-baseline"))
