"""Attacks on sign-in and keys (allauth's headless API, device sessions, personal tokens):

    credential_stuffing  many passwords for one e-mail (from many addresses), and one password
                         over many e-mails (from one address): 429 with Retry-After before
                         ``STUFFING_TRIES``, and the right password is refused meanwhile
    refresh_replay       a used refresh key presented again: the session ends, the access key
                         its rotation gave answers 401, its newer refresh key is refused
    revoked_reuse        a revoked personal token, a key of an ended session and every key
                         after signing out everywhere: 401 at the very next request
    scope_escalation     a profile:read token creating a game, making a token, listing
                         sessions, signing out everywhere, deleting the account: 403 each,
                         nothing changed; a token asking for account:write: 400
    csrf_browser         the browser flow's session cookie without its CSRF token: a sign-in,
                         an e-mail verification and (with the server's mail log) an account
                         endpoint and a password change are refused (403), and work with it
    enumeration          sign-up, password reset and sign-in for a known and an unknown e-mail:
                         the same status and body shape; the medians of their answer times
                         (held while they differ by less than ``TIMING_SLACK``)
    oidc_redirect        the OpenID Connect provider's authorization endpoint with redirect
                         URIs that are not the registered one: 400, no redirect (needs the
                         provider on, ``--serve`` to register a client and the mail log to sign
                         a browser in; skipped with a note otherwise)

Every attack speaks from loopback addresses of its own (127.1.x.y), so the per-address limits
one attack reaches do not refuse another's requests.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from bench.attack.common import TALLY, TIMEOUT, Answer, Outcome, Target

AUTH = "/_allauth"
APP = "/_allauth/app/v1"
BROWSER = "/_allauth/browser/v1"
PASSWORD = "tilted-canasta-at-dawn-41"
# A refusal must come before this many tries (allauth: 5 failed sign-ins per e-mail in five
# minutes, 10 per address a minute).
STUFFING_TRIES = 15
# Answer times of a known and an unknown e-mail: held while the medians differ by less than
# this many seconds or this share of the slower one.
TIMING_SLACK = (0.05, 0.25)
CODE = re.compile(r"^([A-Z0-9]{4}-[A-Z0-9]{4})$", re.MULTILINE)
REDIRECT = "https://scores.example.com/callback"


@dataclass
class Ctx:
    target: Target
    quick: bool
    # Where the servers print e-mails (the console backend): codes of sign-ups are read there.
    mail_logs: list[Path] = field(default_factory=list)
    # Runs ``manage.py`` with the served stack's environment (to register an OIDC client).
    manage: Callable[[list[str]], str] | None = None
    first: int = 0
    made: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    # E-mails with an account, signed up by ``prepare`` (when, for the sign-up probe).
    known: list[str] = field(default_factory=list)
    known_since: float = 0.0

    def address(self) -> Target:
        """A loopback address no request came from before (127.1.x.y)."""
        with self.lock:
            index = self.first + self.made
            self.made += 1
        return self.target.from_address(f"127.1.{index // 250 % 250}.{index % 250 + 1}")


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def app(t: Target, path: str, body: Any = None, key: str | None = None) -> Answer:
    """A call to allauth's app API (POST with a body, GET without)."""
    method = "POST" if body is not None else "GET"
    return t.call(method, path, body, headers=bearer(key) if key else None, prefix=APP)


def api(t: Target, method: str, path: str, body: Any = None, key: str = "") -> Answer:
    return t.call(method, path, body, headers=bearer(key) if key else None)


def guest(t: Target, name: str) -> dict[str, Any]:
    made = t.call("POST", "/players/", {"display_name": name[:20]})
    if made.status != 201:
        raise RuntimeError(f"guest sign-up answered {made.status} {made.code}")
    return dict(made.body)


def device(t: Target, guest_key: str) -> dict[str, Any]:
    opened = t.call("POST", "/account/sessions/", {"device": "attack"}, token=guest_key)
    if opened.status != 201:
        raise RuntimeError(f"device session answered {opened.status} {opened.code}")
    return dict(opened.body)


def signed_in(ctx: Ctx, name: str) -> tuple[Target, dict[str, Any], dict[str, Any]]:
    """A guest with a device session, from an address of its own."""
    t = ctx.address()
    player = guest(t, name)
    return t, player, device(t, player["token"])


def limited(answer: Answer) -> bool:
    return answer.status == 429 and answer.headers.get("retry-after", "").isdigit()


def new_email(tag: str) -> str:
    return f"{tag}-{secrets.token_hex(5)}@example.org"


# ============================================================================== stuffing
def credential_stuffing(ctx: Ctx, out: Outcome) -> None:
    # An account with an e-mail and a password (a guest that added both).
    t, _, keys = signed_in(ctx, "Stuffed")
    email = new_email("stuffed")
    app(t, "/account/email", {"email": email}, keys["access_token"])
    changed = app(t, "/account/password/change", {"new_password": PASSWORD}, keys["access_token"])
    out.check(changed.status == 200, f"setting the password answered {changed.status}")

    # Many passwords for one e-mail, each from another address.
    refused_at = 0
    for attempt in range(1, STUFFING_TRIES + 1):
        answer = app(ctx.address(), "/auth/login", {"email": email, "password": f"guess-{attempt}"})
        if answer.status == 429:
            out.check(limited(answer), "a 429 without Retry-After (one e-mail)")
            refused_at = attempt
            break
        out.check(answer.status == 400, f"a wrong password answered {answer.status}")
    out.check(bool(refused_at), f"{STUFFING_TRIES} passwords for one e-mail, none refused")
    right = app(ctx.address(), "/auth/login", {"email": email, "password": PASSWORD})
    out.check(right.status == 429, f"the right password during the limit answered {right.status}")

    # One password over many e-mails, from one address.
    t = ctx.address()
    spread_at = 0
    for attempt in range(1, STUFFING_TRIES + 1):
        answer = app(t, "/auth/login", {"email": new_email("spray"), "password": PASSWORD})
        if answer.status == 429:
            out.check(limited(answer), "a 429 without Retry-After (many e-mails)")
            spread_at = attempt
            break
    out.check(bool(spread_at), f"one password over {STUFFING_TRIES} e-mails, none refused")
    out.say(
        f"one e-mail refused at try {refused_at or '-'}, many e-mails at try {spread_at or '-'}"
    )


# ============================================================================== refresh replay
def refresh_replay(ctx: Ctx, out: Outcome) -> None:
    t, _, keys = signed_in(ctx, "Replayed")
    first_refresh = keys["refresh_token"]
    rotated = app(t, "/tokens/refresh", {"refresh_token": first_refresh})
    out.check(rotated.status == 200, f"a refresh answered {rotated.status}")
    if rotated.status != 200:
        return
    newer = rotated.body["data"]
    out.check(
        api(t, "GET", "/players/me/", key=newer["access_token"]).status == 200,
        "the rotated access key does not work",
    )
    replayed = app(ctx.address(), "/tokens/refresh", {"refresh_token": first_refresh})
    out.check(replayed.status in (400, 401), f"the replayed refresh answered {replayed.status}")
    me = api(t, "GET", "/players/me/", key=newer["access_token"])
    out.check(me.status == 401, f"after the replay the newer access key answered {me.status}")
    again = app(t, "/tokens/refresh", {"refresh_token": newer["refresh_token"]})
    out.check(again.status in (400, 401), f"the newer refresh key answered {again.status}")


# ============================================================================== revoked keys
def revoked_reuse(ctx: Ctx, out: Outcome) -> None:
    t, player, keys = signed_in(ctx, "Revoked")
    access = keys["access_token"]
    # A personal token, revoked.
    made = api(t, "POST", "/account/tokens/", {"name": "t", "scopes": ["profile:read"]}, access)
    out.check(made.status == 201, f"making a token answered {made.status}")
    if made.status == 201:
        token = made.body["token"]
        out.check(api(t, "GET", "/players/me/", key=token).status == 200, "the token never worked")
        api(t, "DELETE", f"/account/tokens/{made.body['id']}/", key=access)
        after = api(t, "GET", "/players/me/", key=token)
        out.check(after.status == 401, f"a revoked token answered {after.status}")
    # A second device's session, ended from the first.
    other = device(t, player["token"])
    ended = api(t, "DELETE", f"/account/sessions/{other['session_id']}/", key=access)
    out.check(ended.status == 204, f"ending a session answered {ended.status}")
    after = api(t, "GET", "/players/me/", key=other["access_token"])
    out.check(after.status == 401, f"an ended session's access key answered {after.status}")
    refresh = app(t, "/tokens/refresh", {"refresh_token": other["refresh_token"]})
    out.check(refresh.status in (400, 401), f"its refresh key answered {refresh.status}")
    # Signing out everywhere: every key at once.
    made = api(t, "POST", "/account/tokens/", {"name": "u", "scopes": ["play"]}, access)
    token = made.body.get("token", "") if isinstance(made.body, dict) else ""
    out.check(
        api(t, "POST", "/account/sign-out-everywhere/", {}, access).status == 204,
        "signing out everywhere failed",
    )
    for what, answer in (
        ("the guest key", t.call("GET", "/players/me/", token=player["token"])),
        ("the access key", api(t, "GET", "/players/me/", key=access)),
        ("a personal token", api(t, "GET", "/players/me/", key=token)),
        ("the refresh key", app(t, "/tokens/refresh", {"refresh_token": keys["refresh_token"]})),
    ):
        out.check(answer.status in (400, 401), f"{what} answered {answer.status} after sign-out")


# ============================================================================== scopes
def scope_escalation(ctx: Ctx, out: Outcome) -> None:
    t, player, keys = signed_in(ctx, "Scoped")
    access = keys["access_token"]
    made = api(t, "POST", "/account/tokens/", {"name": "r", "scopes": ["profile:read"]}, access)
    if made.status != 201:
        out.check(False, f"making a token answered {made.status}")
        return
    reader = made.body["token"]
    out.check(api(t, "GET", "/players/me/", key=reader).status == 200, "profile:read cannot read")
    tries = [
        ("create a game", "POST", "/games/", {"preset": "two_player"}),
        ("make a token", "POST", "/account/tokens/", {"name": "x", "scopes": ["play"]}),
        ("list sessions", "GET", "/account/sessions/", None),
        ("list tokens", "GET", "/account/tokens/", None),
        ("sign out everywhere", "POST", "/account/sign-out-everywhere/", {}),
        ("delete the account", "POST", "/account/delete/", {}),
        ("export the account", "GET", "/account/export/", None),
    ]
    for what, method, path, body in tries:
        answer = api(t, method, path, body, reader)
        out.check(answer.status == 403, f"a profile:read token could {what}: {answer.status}")
    listed = api(t, "GET", "/account/tokens/", key=access)
    out.check(
        listed.status == 200 and len(listed.body) == 1,
        f"the tokens changed: {listed.status} {listed.body}",
    )
    out.check(
        api(t, "GET", "/players/me/", key=reader).status == 200
        and t.call("GET", "/players/me/", token=player["token"]).status == 200,
        "the account or its keys were touched",
    )
    wider = api(t, "POST", "/account/tokens/", {"name": "w", "scopes": ["account:write"]}, access)
    out.check(
        wider.status == 400 and wider.code == "scope_invalid",
        f"a token asking for account:write answered {wider.status} {wider.code}",
    )


# ============================================================================== CSRF
class Browser:
    """A browser: cookies kept, the CSRF token sent only when asked."""

    def __init__(self, t: Target) -> None:
        self.t = t
        self.cookies: dict[str, str] = {}

    def call(
        self, method: str, path: str, body: Any = None, csrf: bool = True, query: str = ""
    ) -> Answer:
        headers = {"Accept": "application/json"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if csrf and "csrftoken" in self.cookies:
            headers["X-CSRFToken"] = self.cookies["csrftoken"]
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        connection = self.t.connection(TIMEOUT)
        try:
            connection.request(method, path + query, body=data, headers=headers)
            response = connection.getresponse()
            raw = response.read()
            for name, value in response.getheaders():
                if name.lower() == "set-cookie":
                    cookie, _, _ = value.partition(";")
                    key, _, val = cookie.partition("=")
                    self.cookies[key.strip()] = val.strip().strip('"')
            seen = {k.lower(): v for k, v in response.getheaders()}
        finally:
            connection.close()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode(errors="replace")[:200]
        answer = Answer(response.status, seen, parsed)
        TALLY.add(answer.status, f"{method} {path}", answer.code, "retry-after" in seen)
        return answer


def mail_code(ctx: Ctx, email: str, seconds: float = 15.0) -> str | None:
    """The code of the last e-mail the servers printed for ``email`` (console backend)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for log in ctx.mail_logs:
            text = log.read_text(errors="replace") if log.exists() else ""
            at = text.rfind(f"To: {email}")
            if at >= 0:
                found = CODE.search(text[at:].replace("\r\n", "\n"))
                if found:
                    return found.group(1)
        time.sleep(0.2)
    return None


def browser_signed_up(ctx: Ctx) -> Browser | None:
    """A browser signed in by signing up and verifying its e-mail (the code from the mail
    log), or ``None`` without the log."""
    if not ctx.mail_logs:
        return None
    b = Browser(ctx.address())
    b.call("GET", f"{BROWSER}/auth/session")
    email = new_email("browser")
    pending = b.call("POST", f"{BROWSER}/auth/signup", {"email": email, "password": PASSWORD})
    code = mail_code(ctx, email) if pending.status == 401 else None
    if code is None:
        return None
    done = b.call("POST", f"{BROWSER}/auth/email/verify", {"key": code})
    return b if done.status == 200 else None


def csrf_browser(ctx: Ctx, out: Outcome) -> None:
    b = Browser(ctx.address())
    b.call("GET", f"{BROWSER}/auth/session")  # the session and CSRF cookies
    out.check("csrftoken" in b.cookies, f"no CSRF cookie was set: {sorted(b.cookies)}")
    body = {"email": new_email("csrf"), "password": PASSWORD}
    without = b.call("POST", f"{BROWSER}/auth/login", body, csrf=False)
    out.check(without.status == 403, f"a sign-in without the CSRF token answered {without.status}")
    with_token = b.call("POST", f"{BROWSER}/auth/login", body)
    out.check(with_token.status != 403, "a sign-in with the CSRF token was refused too")

    signed = browser_signed_up(ctx)
    if signed is None:
        out.say("account endpoints not tried: no mail log to sign a browser in (use --serve)")
        return
    attempts = [
        ("make a token", "POST", "/api/v1/account/tokens/", {"name": "c", "scopes": ["play"]}),
        ("sign out everywhere", "POST", "/api/v1/account/sign-out-everywhere/", {}),
        ("change the password", "POST", f"{BROWSER}/account/password/change",
         {"current_password": PASSWORD, "new_password": PASSWORD + "!"}),
    ]  # fmt: skip
    for what, method, path, payload in attempts:
        answer = signed.call(method, path, payload, csrf=False)
        out.check(answer.status == 403, f"{what} without the CSRF token answered {answer.status}")
    session = signed.call("GET", f"{BROWSER}/auth/session")
    out.check(session.status == 200, f"the browser was signed out: {session.status}")
    listed = signed.call("GET", "/api/v1/account/tokens/")
    out.check(listed.status == 200 and listed.body == [], f"tokens changed: {listed.body}")
    made = signed.call("POST", "/api/v1/account/tokens/", attempts[0][3])
    out.check(made.status == 201, f"with the CSRF token making a token answered {made.status}")
    out.say("account endpoints tried with a signed-in browser")


# ============================================================================== enumeration
def shape(value: Any) -> Any:
    """The structure of a JSON value: keys and types, no values."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return sorted({json.dumps(shape(v), sort_keys=True) for v in value})
    return type(value).__name__


def samples_of(ctx: Ctx) -> int:
    return 6 if ctx.quick else 20


def prepare(ctx: Ctx) -> None:
    """Sign up the accounts whose e-mails ``enumeration`` probes as known, at the start of the
    run: a sign-up mails a code, and allauth sends at most one code to an address in
    ``CONFIRM_EMAIL_SECONDS`` (a second sign-up within them answers 429 whether or not the
    e-mail has an account), so the sign-up probe waits until the window has passed."""
    t = ctx.address()
    for i in range(samples_of(ctx)):
        if i and i % 8 == 0:
            t = ctx.address()
        email = new_email("known")
        if app(t, "/auth/signup", {"email": email, "password": PASSWORD}).status == 401:
            ctx.known.append(email)
    ctx.known_since = time.monotonic()


# allauth's ``confirm_email`` limit (ACCOUNT_RATE_LIMITS: one code per address in 3 minutes).
CONFIRM_EMAIL_SECONDS = 180


def enumeration(ctx: Ctx, out: Outcome) -> None:
    samples = samples_of(ctx)
    if not ctx.known:
        prepare(ctx)
    known = ctx.known
    if len(known) < samples:
        out.check(False, f"only {len(known)} of {samples} sign-ups were accepted")
        return

    kinds = {
        "reset": lambda e: ("/auth/password/request", {"email": e}),
        "sign-in": lambda e: ("/auth/login", {"email": e, "password": "wrong-" + PASSWORD}),
        "sign-up": lambda e: ("/auth/signup", {"email": e, "password": PASSWORD + "x"}),
    }
    said = []
    for kind, request in kinds.items():
        if kind == "sign-up":
            wait = ctx.known_since + CONFIRM_EMAIL_SECONDS + 2 - time.monotonic()
            if wait > 0:
                out.say(f"waited {wait:.0f} s for the code window of the known e-mails")
                time.sleep(wait)
        times: dict[str, list[float]] = {"known": [], "unknown": []}
        shapes: dict[str, set[str]] = {"known": set(), "unknown": set()}
        t = ctx.address()
        for i in range(samples):
            if i and i % 4 == 0:
                t = ctx.address()  # every address stays far inside its limits
            for which, email in (("known", known[i]), ("unknown", new_email("unknown"))):
                path, body = request(email)
                started = time.perf_counter()
                answer = app(t, path, body)
                times[which].append(time.perf_counter() - started)
                shapes[which].add(f"{answer.status} {json.dumps(shape(answer.body))}")
        out.check(
            shapes["known"] == shapes["unknown"],
            f"{kind}: known {sorted(shapes['known'])[:2]} "
            f"!= unknown {sorted(shapes['unknown'])[:2]}",
        )
        a, b = statistics.median(times["known"]), statistics.median(times["unknown"])
        slack = max(TIMING_SLACK[0], TIMING_SLACK[1] * max(a, b))
        out.check(
            abs(a - b) <= slack,
            f"{kind}: median {a * 1000:.0f} ms for a known e-mail, {b * 1000:.0f} ms unknown",
        )
        said.append(f"{kind} {a * 1000:.0f}/{b * 1000:.0f} ms")
    out.say("medians known/unknown: " + ", ".join(said))


# ============================================================================== OIDC
def _pkce() -> str:
    digest = hashlib.sha256(secrets.token_urlsafe(48).encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def oidc_redirect(ctx: Ctx, out: Outcome) -> None:
    discovery = ctx.target.call("GET", "/.well-known/openid-configuration", prefix="")
    if discovery.status != 200:
        out.skipped = f"the OpenID Connect provider is off ({discovery.status} {discovery.code})"
        return
    if ctx.manage is None:
        out.skipped = "registering a client needs --serve (manage.py oidc_client_create)"
        return
    browser = browser_signed_up(ctx)
    if browser is None:
        out.skipped = "no mail log to sign a browser in (use --serve)"
        return
    printed = ctx.manage(
        ["oidc_client_create", "--name", "Attack", "--redirect-uri", REDIRECT,
         "--scopes", "openid profile:read", "--public"]
    )  # fmt: skip
    found = re.search(r"^client_id: (\S+)$", printed, re.MULTILINE)
    if not found:
        out.check(False, f"registering a client printed {printed[-200:]!r}")
        return
    client_id = found.group(1)

    def authorize(redirect_uri: str) -> Answer:
        query = urlencode(
            {
                "response_type": "code",
                "client_id": client_id,
                "redirect_uri": redirect_uri,
                "scope": "openid profile:read",
                "state": "st4te",
                "code_challenge": _pkce(),
                "code_challenge_method": "S256",
            }
        )
        return browser.call("GET", "/identity/o/authorize", query="?" + query)

    tricks = [
        "https://scores.example.com/call",
        "https://scores.example.com/callback/more",
        "https://scores.example.com:8443/callback",
        "https://scores.example.com/callback?next=https://evil.example/",
        "http://scores.example.com/callback",
        "https://scores.example.com.evil.example/callback",
        "https://evil.example/callback",
        "https://scores.example.com@evil.example/callback",
        "https://scores.example.com/callback#x",
        "//evil.example/callback",
        "https://SCORES.example.com/callback/../callback",
    ]
    for uri in tricks:
        answer = authorize(uri)
        location = answer.headers.get("location", "")
        host = urlsplit(location).hostname or ""
        out.check(
            answer.status == 400 and not location,
            f"{uri} answered {answer.status} {('-> ' + host) if location else ''}",
        )
    exact = authorize(REDIRECT)
    out.check(exact.status == 200, f"the registered redirect URI answered {exact.status}")
    out.say(f"{len(tricks)} redirect URIs refused")


IDENTITY: dict[str, Callable[[Ctx, Outcome], None]] = {
    "credential_stuffing": credential_stuffing,
    "refresh_replay": refresh_replay,
    "revoked_reuse": revoked_reuse,
    "scope_escalation": scope_escalation,
    "csrf_browser": csrf_browser,
    "enumeration": enumeration,
    "oidc_redirect": oidc_redirect,
}
