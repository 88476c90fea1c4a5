"""THE error catalogue: every code the API can answer, each declared once.

Each code is an ``ErrorSpec``: its HTTP status, a title (the same for every occurrence, as RFC
9457 asks), a default message, and the extension members its problem documents may carry
besides the standard ones (``current_version`` for ``stale_version``, ``errors`` for
``invalid_request``, ...; each member is declared once in ``MEMBERS``). ``CATALOGUE`` holds

- the framework's codes, declared here and answered by the central handler in
  ``core.exceptions`` (DRF's exceptions, Django's error views, the request limits of
  ``core.limits``);
- each app's codes, declared in the app's ``errors`` module: the service's refusals on their
  ``ServiceError`` subclasses (``class GameFull(ServiceError, code="game_full", status=409,
  title="Game full", message="...")``), which register their code when the class is defined; a
  code no class raises with ``CATALOGUE.register(ErrorSpec(...))`` (the rules engine's codes,
  in ``games.errors``). A class that raises a code declared elsewhere only names it
  (``class GameNotFound(ServiceError, code="not_found")``), never declares it again.

Every app's ``AppConfig.ready`` imports its ``errors`` module; and the catalogue, read whole
(iterated, counted, or asked for a code it does not know), first imports the ``errors`` module of
every installed app (Django's ``autodiscover_modules``), so it is complete whenever it is read.
It imports no app itself. Read whole before Django's app registry is loaded, it raises.

The table order (``markdown_table``, the OpenAPI ``GameProblem`` component) is the framework's
codes, then the service's, then the engine's, each in the order declared, except that a code
declared with ``after="<code>"`` follows that code (codes placed after the same one follow it
alphabetically): an app above ``games`` lists its codes beside the game's codes they belong with.

``ServiceError`` takes its code, status and title from the catalogue; a code that is not in the
catalogue is refused when the class is defined or the error is made, as is an extension member
the code does not declare. ``core.problems`` builds the OpenAPI problem responses from the
catalogue; ``markdown_table()`` (``manage.py errors``) is the error table of docs/api.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, ClassVar, Literal, TypeAlias

PROBLEM_TYPE_PREFIX = "urn:canasta:problem:"
# The members RFC 9457 defines (and ``code``): no extension member may replace them.
RESERVED_MEMBERS = frozenset({"type", "title", "status", "detail", "code", "instance"})


class UnknownErrorCode(ValueError):
    """A code that the catalogue does not declare."""


# ============================================================================== members
MemberType = Literal["integer", "string", "strings", "field_errors"]


@dataclass(frozen=True)
class Member:
    """An extension member of a problem document: its JSON type, meaning and an example."""

    name: str
    type: MemberType
    description: str
    example: Any
    nullable: bool = False


MEMBERS: dict[str, Member] = {
    m.name: m
    for m in (
        Member(
            "errors",
            "field_errors",
            "The refused values, one entry each: `{field, code, message}`, where `field` is the "
            "dotted path (`players.0.name`), null for the request as a whole.",
            [{"field": "display_name", "code": "blank", "message": "This field may not be blank."}],
        ),
        Member(
            "retry_after",
            "integer",
            "Seconds to wait before trying again.",
            12,
            nullable=True,
        ),
        Member("max_body_bytes", "integer", "The largest request body accepted, in bytes.", 65536),
        Member(
            "current_version",
            "integer",
            "The game's version now (the last event you may see).",
            12,
        ),
        Member("option", "string", "The option refused.", "target_score"),
        Member(
            "seq",
            "integer",
            "The number of the document's event at fault (null when it has none).",
            37,
            nullable=True,
        ),
        Member(
            "engine_code",
            "string",
            "The rules engine's code for the refusal (one of the engine codes).",
            "card_not_in_hand",
        ),
        Member("engine_message", "string", "The rules engine's message.", "You do not hold QH."),
        Member(
            "game_id",
            "integer",
            "The table the quick-play match seated you at (null while it is being dealt).",
            42,
            nullable=True,
        ),
        Member("rules_version", "string", "The rules version the game is pinned to.", "0"),
        Member(
            "needed",
            "strings",
            "The scopes that would let the request in (any one of them).",
            ["play", "bot:play"],
        ),
        Member(
            "unknown",
            "strings",
            "The names given that are not scopes a token may have.",
            ["account:write"],
        ),
        Member(
            "supported_rules_versions",
            "strings",
            "The rules versions this engine plays.",
            ["1"],
        ),
        Member("setting", "string", "The tournament setting refused.", "rounds"),
        Member(
            "tournament_status",
            "string",
            "The tournament's status now (draft, open, closed, running, finished, cancelled).",
            "running",
        ),
    )
}


# ============================================================================== declarations
Kind = Literal["framework", "service", "engine"]
KINDS: tuple[Kind, ...] = ("framework", "service", "engine")


@dataclass(frozen=True)
class ErrorSpec:
    """One error code of the API, declared once."""

    code: str
    status: int
    title: str
    message: str
    members: tuple[str, ...] = ()
    kind: Kind = "service"

    def __post_init__(self) -> None:
        if not self.code.isidentifier() or self.code != self.code.lower():
            raise ValueError(f"error code {self.code!r} is not snake_case")
        if not 400 <= HTTPStatus(self.status) <= 599:
            raise ValueError(f"{self.code}: {self.status} is not an error status")
        if self.kind not in KINDS:
            raise ValueError(f"{self.code}: {self.kind!r} is not a kind of code")
        for name in self.members:
            if name not in MEMBERS or name in RESERVED_MEMBERS:
                raise ValueError(f"{self.code}: extension member {name!r} is not declared")

    @property
    def type(self) -> str:
        """The problem type URI: ``urn:canasta:problem:<code>``."""
        return f"{PROBLEM_TYPE_PREFIX}{self.code}"


class Catalogue(Mapping[str, ErrorSpec]):
    """Every error code of the API, code -> ``ErrorSpec``, in table order (see the module).

    ``register`` adds a declaration (a code declared twice raises); reading the whole catalogue
    first imports every installed app's ``errors`` module, once.
    """

    def __init__(self) -> None:
        self._specs: dict[str, ErrorSpec] = {}
        self._after: dict[str, str] = {}
        self._order: tuple[str, ...] | None = None
        self._discovered = False

    def register(self, spec: ErrorSpec, *, after: str | None = None) -> ErrorSpec:
        """Declare ``spec``; listed after the code ``after`` if given (see the module)."""
        if spec.code in self._specs:
            raise ValueError(f"error code {spec.code!r} is declared twice")
        if after == spec.code:
            raise ValueError(f"{spec.code} cannot be listed after itself")
        self._specs[spec.code] = spec
        if after is not None:
            self._after[spec.code] = after
        self._order = None
        return spec

    def discover(self) -> None:
        """Import the ``errors`` module of every installed app (once): the catalogue is whole.

        Needs Django's app registry (``AppRegistryNotReady`` before ``django.setup()``).
        """
        if self._discovered:
            return
        from django.apps import apps
        from django.utils.module_loading import autodiscover_modules

        apps.check_apps_ready()
        # Set first: an errors module reading the catalogue as it is imported starts no other.
        self._discovered = True
        try:
            autodiscover_modules("errors")
        except BaseException:
            self._discovered = False
            raise

    def __getitem__(self, code: str) -> ErrorSpec:
        spec = self._specs.get(code)
        if spec is None and not self._discovered:
            from django.apps import apps

            if apps.apps_ready:  # perhaps an app's module not imported yet
                self.discover()
                spec = self._specs.get(code)
        if spec is None:
            raise KeyError(code)
        return spec

    def __iter__(self) -> Iterator[str]:
        return iter(self._ordered())

    def __len__(self) -> int:
        return len(self._ordered())

    def _ordered(self) -> tuple[str, ...]:
        self.discover()
        if self._order is None:
            self._order = self._table_order()
        return self._order

    def _table_order(self) -> tuple[str, ...]:
        followers: dict[str, list[str]] = {}
        for code, anchor in self._after.items():
            if anchor not in self._specs:
                raise UnknownErrorCode(f"{code} is listed after {anchor!r}, which is not declared")
            followers.setdefault(anchor, []).append(code)
        order: list[str] = []

        def place(code: str) -> None:
            order.append(code)
            for follower in sorted(followers.get(code, ())):
                place(follower)

        for kind in KINDS:
            for code, spec in self._specs.items():
                if spec.kind == kind and code not in self._after:
                    place(code)
        if len(order) != len(self._specs):
            stuck = sorted(set(self._specs).difference(order))
            raise ValueError(f"error codes listed after each other in a circle: {stuck}")
        return tuple(order)


CATALOGUE = Catalogue()
"""Every error code of the API, in table order: framework, service, engine."""


def spec_of(code: str) -> ErrorSpec:
    """The declaration of ``code``; ``UnknownErrorCode`` if the catalogue has none."""
    try:
        return CATALOGUE[code]
    except KeyError:
        raise UnknownErrorCode(f"{code!r} is not an error code of the catalogue") from None


def specs_of(kind: Kind) -> tuple[ErrorSpec, ...]:
    return tuple(spec for spec in CATALOGUE.values() if spec.kind == kind)


def members_check(spec: ErrorSpec, extra: Mapping[str, Any]) -> None:
    """Refuse extension members that would replace a standard member or that ``spec`` does
    not declare."""
    clash = RESERVED_MEMBERS.intersection(extra)
    if clash:
        raise ValueError(
            f"problem extension member(s) {sorted(clash)} would replace a standard one"
        )
    undeclared = set(extra).difference(spec.members)
    if undeclared:
        raise ValueError(
            f"{spec.code} declares no extension member(s) {sorted(undeclared)} "
            f"(declared: {list(spec.members)})"
        )


# ============================================================================== the framework
def _framework(code: str, status: int, title: str, message: str, *members: str) -> None:
    CATALOGUE.register(ErrorSpec(code, status, title, message, members, kind="framework"))


_framework("invalid_request", 400, "Invalid request", "The request failed validation.", "errors")
_framework("malformed_body", 400, "Malformed body", "The body is not parseable JSON.")
_framework(
    "body_too_large",
    413,
    "Body too large",
    "The request body is larger than the server accepts.",
    "max_body_bytes",
)
_framework(
    "bad_request",
    400,
    "Bad request",
    "The request could not be understood (e.g. a disallowed Host header).",
)
_framework(
    "not_authenticated",
    401,
    "Not authenticated",
    "No credentials: send `Authorization: Bearer <key>` (an access key or a token) or "
    "`Authorization: Token <guest key>`.",
)
_framework("authentication_failed", 401, "Authentication failed", "The token is wrong.")
_framework(
    "permission_denied",
    403,
    "Permission denied",
    "You do not have permission to perform this action.",
)
_framework(
    "not_found",
    404,
    "Not found",
    "No such resource: an unknown URL, or a game that does not exist or is private and you "
    "are not at its table.",
)
_framework(
    "method_not_allowed",
    405,
    "Method not allowed",
    "The resource does not support the method (see the Allow header).",
)
_framework("not_acceptable", 406, "Not acceptable", "No acceptable response media type.")
_framework(
    "length_required",
    411,
    "Length required",
    "The body has no Content-Length and this server cannot read it without one.",
)
_framework(
    "unsupported_media_type",
    415,
    "Unsupported media type",
    "The body's media type is not JSON.",
)
_framework(
    "throttled",
    429,
    "Too many requests",
    "A rate limit was hit; wait as the Retry-After header says.",
    "retry_after",
)
_framework(
    "database_unavailable",
    503,
    "Database unavailable",
    "The database failed the request (its connection was lost, or none was free in time), "
    "so it was rolled back. It is safe to send again after Retry-After seconds: a move "
    "sent with the same Idempotency-Key is applied at most once.",
    "retry_after",
)
_framework(
    "internal_error",
    500,
    "Internal error",
    "The server failed to handle the request; details are in the server log only.",
)


# ============================================================================== ServiceError
class ServiceError(Exception):
    """An expected failure of a service call, carried to the client as a problem document.

    Its code, status and title come from the catalogue. A subclass either declares its code,
    which registers it in the catalogue when the class is defined::

        class StaleVersion(ServiceError, code="stale_version", status=409,
                           title="Stale version", message="The game has moved on ...",
                           members=("current_version",)):

    (``after="<code>"``: where the table lists it, see the module), or names a code declared
    elsewhere (``class GameNotFound(ServiceError, code="not_found")``, or a class attribute
    ``code = ...``; ``status``, if given, must be the declared one). The base takes a code at
    construction (``ServiceError("...", code="stale_version", extra={"current_version": 7})``).
    An unknown code, a status other than the catalogue's or an undeclared extension member in
    ``extra`` raises. ``default_message`` may give a class a message of its own instead of the
    catalogue's. A message with variable parts is a template with named placeholders and its
    ``params`` (``ServiceError("Seat %(seat)s is taken.", params={"seat": 2})``), so that it
    is translated whole (``core.i18n``); ``message`` is the English text.
    """

    spec: ClassVar[ErrorSpec | None] = None
    code: str
    status: int
    title: str
    default_message: str | None = None

    def __init_subclass__(
        cls,
        code: str | None = None,
        *,
        status: int | None = None,
        title: str | None = None,
        message: str | None = None,
        members: tuple[str, ...] = (),
        after: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        named = code if code is not None else cls.__dict__.get("code")
        if named is None:
            if title is not None or message is not None or status is not None:
                raise TypeError(f"{cls.__name__}: a declaration needs its code")
            return  # inherits its parent's code (or takes one at construction)
        if title is not None or message is not None:
            if status is None or title is None or message is None:
                raise TypeError(f"{cls.__name__}: {named} needs a status, a title and a message")
            spec = CATALOGUE.register(
                ErrorSpec(named, status, title, message, members), after=after
            )
        else:
            if members or after is not None:
                raise TypeError(
                    f"{cls.__name__}: members and place belong to {named}'s declaration"
                )
            spec = spec_of(named)
            status = status if status is not None else cls.__dict__.get("status")
            if status is not None and status != spec.status:
                raise ValueError(f"{cls.__name__}: {spec.code} is {spec.status}, not {status}")
        cls.spec = spec
        cls.code, cls.status, cls.title = spec.code, spec.status, spec.title

    def __init__(
        self,
        message: str | None = None,
        *,
        code: str | None = None,
        status: int | None = None,
        extra: Mapping[str, Any] | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        spec = type(self).spec
        if code is not None:
            if spec is not None and code != spec.code:
                raise ValueError(f"{type(self).__name__} is {spec.code}, not {code}")
            spec = spec_of(code)
        if spec is None:
            raise UnknownErrorCode(f"{type(self).__name__} needs a code from the catalogue")
        if status is not None and status != spec.status:
            raise ValueError(f"{spec.code} is {spec.status}, not {status}")
        self.extra: dict[str, Any] = dict(extra or {})
        members_check(spec, self.extra)
        self.code, self.status, self.title = spec.code, spec.status, spec.title
        self.template = message or self.default_message or spec.message
        self.params: dict[str, Any] | None = dict(params) if params is not None else None
        self.message = self.template if self.params is None else self.template % self.params
        super().__init__(self.message)

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"


# ============================================================================== documentation
Codes: TypeAlias = "str | type[ServiceError] | Iterable[Codes]"
"""Codes as ``codes`` reads them: a code, a ``ServiceError`` subclass, or a group of them."""


def codes(*items: Codes) -> list[str]:
    """Codes named by strings, ``ServiceError`` subclasses or iterables of them, each checked
    against the catalogue, without repeats, in the order given."""
    out: list[str] = []
    for item in items:
        if isinstance(item, str):
            found = [spec_of(item).code]
        elif isinstance(item, type):
            if item.spec is None:
                raise UnknownErrorCode(f"{item.__name__} has no code of its own")
            found = [item.spec.code]
        else:
            found = codes(*item)
        out.extend(code for code in found if code not in out)
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(specs: Iterable[ErrorSpec] | None = None) -> str:
    """The error table (Markdown): code, status, title, meaning and extension members."""
    rows = [
        "| code | status | title | meaning | extension members |",
        "| --- | --- | --- | --- | --- |",
    ]
    for spec in CATALOGUE.values() if specs is None else specs:
        members = ", ".join(f"`{name}`" for name in spec.members)
        rows.append(
            f"| `{spec.code}` | {spec.status} | {_cell(spec.title)} | {_cell(spec.message)} "
            f"| {members} |"
        )
    return "\n".join(rows)
