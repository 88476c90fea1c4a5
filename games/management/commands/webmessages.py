"""``manage.py webmessages``: the web client's catalogues (the ``djangojs`` domain).

Extracts every ``gettext("...")``, ``gettext_noop("...")`` and ``ngettext("...", "...", n)`` of
``web/src/*.ts`` (GNU xgettext does not read TypeScript), merges them into
``locale/<lang>/LC_MESSAGES/djangojs.po`` for each translated language (new strings untranslated,
strings gone from the source dropped, translations kept) and compiles each ``.po`` to its
``.mo`` with polib (pure Python: no gettext tools needed). ``--check`` changes nothing and fails
when a catalogue is out of date (a string missing, a translation empty or fuzzy, a stale
``.mo``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polib
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.management import catalogues
from games.management.catalogues import LANGUAGE_NAMES, LANGUAGES, catalogue_new

DOMAIN = "djangojs"
SOURCE_SKIP = {"api-types.ts", "i18n.ts"}

_STRING = r'"((?:[^"\\\n]|\\.)*)"'
_CALL = re.compile(r"\b(gettext|gettext_noop|ngettext)\(")
_SINGLE = re.compile(r"\b(?:gettext|gettext_noop)\(\s*" + _STRING + r"\s*\)")
_PLURAL = re.compile(r"\bngettext\(\s*" + _STRING + r"\s*,\s*" + _STRING + r"\s*,")
PLACEHOLDER = re.compile(r"%\([a-zA-Z_][a-zA-Z0-9_]*\)s|%s")


def web_source() -> Path:
    return Path(settings.BASE_DIR) / "web" / "src"


def _literal(text: str) -> str:
    decoded: str = json.loads('"' + text.replace("\\'", "'") + '"')
    return decoded


@dataclass
class Message:
    msgid: str
    plural: str | None = None
    places: list[tuple[str, int]] = field(default_factory=list)


def extract(source: Path | None = None) -> dict[str, Message]:
    """Every marked string of the client's sources, in order of first appearance. A call whose
    arguments are not string literals is an error (its text could not be translated)."""
    found: dict[str, Message] = {}
    problems: list[str] = []
    for path in sorted((source or web_source()).glob("*.ts")):
        if path.name in SOURCE_SKIP:
            continue
        text = path.read_text(encoding="utf-8")
        for call in _CALL.finditer(text):
            line = text.count("\n", 0, call.start()) + 1
            pattern = _PLURAL if call.group(1) == "ngettext" else _SINGLE
            match = pattern.match(text, call.start())
            if match is None:
                problems.append(f"{path.name}:{line}: {call.group(1)}() needs string literals")
                continue
            msgid = _literal(match.group(1))
            plural = _literal(match.group(2)) if call.group(1) == "ngettext" else None
            message = found.setdefault(msgid, Message(msgid, plural))
            if plural is not None and message.plural not in (None, plural):
                problems.append(f"{path.name}:{line}: {msgid!r} has two plural forms")
            message.plural = message.plural or plural
            message.places.append((path.name, line))
    if problems:
        raise CommandError("\n".join(problems))
    return found


def po_path(language: str) -> Path:
    return catalogues.po_path(DOMAIN, language)


def _new_catalogue(language: str) -> polib.POFile:
    return catalogue_new(language, "canasta web client")


def merge(language: str, messages: dict[str, Message]) -> polib.POFile:
    """The language's catalogue with exactly the source's strings (translations kept)."""
    path = po_path(language)
    old = polib.pofile(str(path), wrapwidth=100) if path.exists() else _new_catalogue(language)
    known = {entry.msgid: entry for entry in old if not entry.obsolete}
    po = _new_catalogue(language)
    po.header = f"The web client's strings in {LANGUAGE_NAMES[language]} (manage.py webmessages)."
    for message in messages.values():
        previous = known.get(message.msgid)
        entry = polib.POEntry(
            msgid=message.msgid,
            occurrences=[(name, "") for name in dict.fromkeys(name for name, _ in message.places)],
        )
        if message.plural is not None:
            entry.msgid_plural = message.plural
            forms = previous.msgstr_plural if previous is not None and previous.msgid_plural else {}
            entry.msgstr_plural = {0: forms.get(0, ""), 1: forms.get(1, "")}
        else:
            entry.msgstr = (
                previous.msgstr if previous is not None and not previous.msgid_plural else ""
            )
        if previous is not None and "fuzzy" in previous.flags:
            entry.flags.append("fuzzy")
        if PLACEHOLDER.search(message.msgid) or (
            message.plural and PLACEHOLDER.search(message.plural)
        ):
            entry.flags.append("javascript-format")
        po.append(entry)
    return po


def untranslated(po: polib.POFile) -> list[str]:
    out = []
    for entry in po:
        if entry.obsolete:
            continue
        forms = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
        if "fuzzy" in entry.flags or not all(forms):
            out.append(entry.msgid)
    return out


def mo_bytes(po: polib.POFile) -> bytes:
    data: Any = po.to_binary()
    return bytes(data)


class Command(BaseCommand):
    help = "Extract the web client's strings into locale/*/djangojs.po and compile the .mo files."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--check", action="store_true", help="change nothing; fail if a catalogue is stale"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        messages = extract()
        stale: list[str] = []
        for language in LANGUAGES:
            po = merge(language, messages)
            path = po_path(language)
            text = str(po)
            missing = untranslated(po)
            if options["check"]:
                if not path.exists() or path.read_text(encoding="utf-8").rstrip() != text.rstrip():
                    stale.append(f"{path} differs from the source's strings")
                mo = path.with_suffix(".mo")
                if not mo.exists() or mo.read_bytes() != mo_bytes(po):
                    stale.append(f"{mo} is not compiled from its .po")
                stale += [f"{language}: untranslated {msgid!r}" for msgid in missing]
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            po.save(str(path))
            path.with_suffix(".mo").write_bytes(mo_bytes(po))
            self.stdout.write(f"{path}: {len(po)} strings, {len(missing)} untranslated")
        if stale:
            raise CommandError("\n".join(stale))
