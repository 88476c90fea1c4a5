"""The server's catalogues (``manage.py servermessages``): every text the server shows a person
has a translation in every language offered, with the same placeholders, and each compiled
``.mo`` is what its ``.po`` says (the ``.mo`` files are committed: nothing compiles them on a
fresh machine, and GNU gettext is not needed)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import polib
import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.utils import translation

from core.errors import CATALOGUE
from games.engine import ERROR_CODES, PRESET_DESCRIPTIONS, describe_options
from games.management.commands.servermessages import (
    LANGUAGES,
    catalogue_problems,
    marked_strings,
    placeholders,
    po_path,
    server_messages,
)
from notifications.services.notifications import DEFAULT_TEXTS

# Django's code of each catalogue's language (LANGUAGES: the locale directories).
DJANGO_CODES = {"es": "es", "pt_BR": "pt-br", "it": "it", "de": "de"}


def test_the_languages_offered_are_english_and_the_four_catalogues() -> None:
    assert [code for code, _ in settings.LANGUAGES] == ["en", *DJANGO_CODES.values()]
    assert set(LANGUAGES) == set(DJANGO_CODES)
    assert [Path(p) for p in settings.LOCALE_PATHS] == [Path(settings.BASE_DIR) / "locale"]


def test_every_text_the_server_shows_is_gathered() -> None:
    """The gathering misses nothing the server translates: the error catalogue, the rule book,
    the notifications' texts, the marked templates."""
    messages = server_messages()
    for spec in CATALOGUE.values():
        assert spec.title in messages and spec.message in messages, spec.code
    assert set(ERROR_CODES.values()) <= messages.keys()
    assert set(PRESET_DESCRIPTIONS.values()) <= messages.keys()
    assert {o["description"] for o in describe_options().values()} <= messages.keys()
    for title, text in DEFAULT_TEXTS.values():
        assert title in messages and text in messages
    marked = marked_strings()
    for template in (
        "Seat %(seat)s",
        "It is your turn in game #%(game)s.",
        "The request has %(count)s problems; see errors.",
        "Step %(at)s is not in the log: choose 1 to %(current_version)s.",
        "There is nothing at this URL.",
    ):
        assert template in marked and template in messages


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_catalogue_is_complete_and_compiled(language: str) -> None:
    messages = server_messages()
    assert catalogue_problems(language, messages) == []
    po = polib.pofile(str(po_path(language)))
    entries = {e.msgid: e for e in po}
    with translation.override(DJANGO_CODES[language]):
        for msgid in messages:
            entry = entries[msgid]
            assert entry.msgstr.strip() and "fuzzy" not in entry.flags, msgid
            assert placeholders(entry.msgstr) == placeholders(msgid), msgid
            # Django reads the committed .mo: the translation is what a request gets.
            assert translation.gettext(msgid) == entry.msgstr, msgid


def test_the_check_finds_a_missing_translation_and_a_stale_mo(
    tmp_path: Path, settings: Any
) -> None:
    locale = tmp_path / "locale"
    shutil.copytree(Path(settings.LOCALE_PATHS[0]), locale)
    settings.LOCALE_PATHS = [locale]
    call_command("servermessages", "--check")  # the copy is complete
    po_file = locale / "it" / "LC_MESSAGES" / "django.po"
    po = polib.pofile(str(po_file))
    entry = po.find("Seat %(seat)s")
    assert entry is not None
    entry.msgstr = "Posto"  # the placeholder lost
    po.save(str(po_file))
    with pytest.raises(CommandError) as failed:
        call_command("servermessages", "--check")
    assert "placeholders differ" in str(failed.value) and "stale" in str(failed.value)
    entry.msgstr = ""
    po.save(str(po_file))
    call_command("servermessages")  # merges and compiles: the entry is left to translate
    with pytest.raises(CommandError, match="untranslated 'Seat %\\(seat\\)s'"):
        call_command("servermessages", "--check")
