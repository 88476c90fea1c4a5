"""``manage.py servermessages``: the server's catalogues (the ``django`` domain).

The server's texts are English msgids of ``locale/<lang>/LC_MESSAGES/django.po``; this command
gathers every one of them (``server_messages``):

- every error code's title and default message (the whole catalogue of ``core.errors``, the
  rules engine's codes included) and every ``ServiceError`` class's own default message;
- the rule book of ``GET /api/v1/rules/``: each preset's and each option's explanation (the
  rules engine's English texts, translated at the API layer);
- the quick-chat phrases (notifications quote them);
- every string literal marked in the server's Python code: ``gettext("...")``,
  ``gettext_noop("...")``, ``gettext_lazy("...")`` (message templates with named
  placeholders, ``"Seat %(seat)s"``, the notification texts, the problem details).

It merges them into each translated language's ``django.po`` (new strings untranslated,
strings gone dropped, translations kept) and compiles each to its ``.mo`` with polib (pure
Python: no GNU gettext needed). ``--check`` changes nothing and fails when a catalogue is not
complete (a string missing, a translation empty or fuzzy, placeholders that differ) or a
``.mo`` is stale. To add a string: mark it (``gettext_noop``) or declare it (an error code),
run this command, translate the new empty entries of each ``django.po``, run it again.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import polib
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import CATALOGUE, ServiceError
from games.engine import PRESET_DESCRIPTIONS, describe_options
from games.management import catalogues
from games.management.catalogues import LANGUAGE_NAMES, LANGUAGES, catalogue_new
from games.selectors.table import QUICK_CHAT

DOMAIN = "django"
# The server's packages whose marked strings are msgids (the engine marks none: it imports no
# framework; its texts are gathered from its tables above).
PACKAGES = ("core", "accounts", "games", "competition", "notifications", "bots", "canasta_service")
MARKERS = frozenset({"gettext", "gettext_noop", "gettext_lazy"})
PLACEHOLDER = re.compile(r"%\(([a-zA-Z_][a-zA-Z0-9_]*)\)[sd]")


def placeholders(text: str) -> list[str]:
    """The named placeholders of a message, sorted (``%(seat)s`` -> ``seat``)."""
    return sorted(PLACEHOLDER.findall(text))


def _service_error_classes() -> list[type[ServiceError]]:
    found: list[type[ServiceError]] = []
    pending = list(ServiceError.__subclasses__())
    while pending:
        cls = pending.pop(0)
        found.append(cls)
        pending.extend(cls.__subclasses__())
    return found


def marked_strings(base: Path | None = None) -> dict[str, list[str]]:
    """msgid -> where it is marked (``path:line``), for every ``gettext``, ``gettext_noop``
    and ``gettext_lazy`` call with a string literal in the server's packages."""
    root = base or Path(settings.BASE_DIR)
    found: dict[str, list[str]] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).parts
            if "migrations" in parts or parts[:2] == ("games", "engine"):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call) or not node.args:
                    continue
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                first = node.args[0]
                if (
                    name in MARKERS
                    and isinstance(first, ast.Constant)
                    and isinstance(first.value, str)
                    and first.value
                ):
                    place = f"{'/'.join(parts)}:{node.lineno}"
                    found.setdefault(first.value, []).append(place)
    return found


def server_messages() -> dict[str, list[str]]:
    """Every msgid of the server (see the module), in a stable order, with where it is from."""
    found: dict[str, list[str]] = {}

    def add(text: Any, place: str) -> None:
        if isinstance(text, str) and text.strip():
            found.setdefault(text, []).append(place)

    for spec in CATALOGUE.values():
        add(spec.title, f"error {spec.code}: title")
        add(spec.message, f"error {spec.code}: message")
    for cls in _service_error_classes():
        if cls.__module__.split(".")[0] in PACKAGES:  # not a class a test defines
            add(cls.default_message, f"{cls.__module__}.{cls.__name__}")
    for name, text in PRESET_DESCRIPTIONS.items():
        add(text, f"rules: preset {name}")
    for name, option in describe_options().items():
        add(option["description"], f"rules: option {name}")
    for phrase, text in QUICK_CHAT.items():
        if re.search(r"[A-Za-z]", text):
            add(text, f"quick chat: {phrase}")
    for text, places in marked_strings().items():
        for place in places:
            add(text, place)
    return found


def po_path(language: str) -> Path:
    return catalogues.po_path(DOMAIN, language)


def catalogue_problems(language: str, messages: dict[str, list[str]]) -> list[str]:
    """What keeps ``language``'s catalogue from being complete and current."""
    path = po_path(language)
    if not path.exists():
        return [f"{path} is missing"]
    po = polib.pofile(str(path))
    entries = {e.msgid: e for e in po if not e.obsolete}
    problems: list[str] = []
    for msgid in messages:
        entry = entries.get(msgid)
        if entry is None:
            problems.append(f"{language}: missing {msgid!r}")
        elif not entry.msgstr.strip() or "fuzzy" in entry.flags:
            problems.append(f"{language}: untranslated {msgid!r}")
        elif placeholders(entry.msgstr) != placeholders(msgid):
            problems.append(f"{language}: placeholders differ in {msgid!r}")
    for msgid in entries.keys() - messages.keys():
        problems.append(f"{language}: stale entry {msgid!r}")
    mo = path.with_suffix(".mo")
    if not mo.exists():
        problems.append(f"{mo} is missing")
    else:
        compiled = {e.msgid: e.msgstr for e in polib.mofile(str(mo)) if e.msgid}
        wanted = {e.msgid: e.msgstr for e in po.translated_entries()}
        if compiled != wanted:
            problems.append(f"{mo} is stale: run manage.py servermessages")
    return problems


def catalogue_write(language: str, messages: dict[str, list[str]]) -> int:
    """Merge ``messages`` into ``language``'s ``django.po`` and compile its ``.mo``; returns
    how many entries are untranslated."""
    path = po_path(language)
    old: dict[str, polib.POEntry] = {}
    if path.exists():
        old = {e.msgid: e for e in polib.pofile(str(path)) if not e.obsolete}
    po = catalogue_new(language, "canasta-service")
    po.header = (
        f"The Canasta service's server texts in {LANGUAGE_NAMES[language]} (domain django).\n"
        "Generated and merged by manage.py servermessages; translate the empty entries."
    )
    untranslated = 0
    for msgid, places in messages.items():
        kept = old.get(msgid)
        entry = polib.POEntry(
            msgid=msgid,
            msgstr=kept.msgstr if kept is not None else "",
            occurrences=[(place, "") for place in places[:3]],
        )
        if placeholders(msgid):
            entry.flags.append("python-format")
        if kept is not None and "fuzzy" in kept.flags:
            entry.flags.append("fuzzy")
        if not entry.msgstr or "fuzzy" in entry.flags:
            untranslated += 1
        po.append(entry)
    path.parent.mkdir(parents=True, exist_ok=True)
    po.save(str(path))
    po.save_as_mofile(str(path.with_suffix(".mo")))
    return untranslated


class Command(BaseCommand):
    help = "Gather the server's texts into locale/*/LC_MESSAGES/django.po and compile the .mo."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--check",
            action="store_true",
            help="Change nothing; fail if a catalogue is incomplete or a .mo is stale.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        messages = server_messages()
        if options["check"]:
            problems = [p for lang in LANGUAGES for p in catalogue_problems(lang, messages)]
            if problems:
                raise CommandError("\n".join(problems[:50]) + f"\n({len(problems)} in all)")
            self.stdout.write(f"{len(messages)} messages, every catalogue complete")
            return
        for language in LANGUAGES:
            missing = catalogue_write(language, messages)
            self.stdout.write(f"{po_path(language)}: {len(messages)} messages, {missing} to do")
