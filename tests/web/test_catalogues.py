"""The web client's translations (no browser): every string the client marks with
``gettext("...")`` / ``ngettext`` / ``gettext_noop`` in ``web/src/*.ts`` is translated in each
catalogue (``locale/<lang>/LC_MESSAGES/djangojs.po``) with the same placeholders, the ``.mo``
files are compiled from the ``.po`` files, and ``GET /api/v1/i18n/catalog/`` serves them as
Django's JSON catalogue."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import polib
import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from games.management.commands import webmessages
from games.management.commands.webmessages import LANGUAGES, PLACEHOLDER, extract, merge, po_path

TRANSLATED = sorted(LANGUAGES)


def catalogue(language: str) -> polib.POFile:
    return polib.pofile(str(po_path(language)))


def placeholders(text: str) -> Counter[str]:
    return Counter(PLACEHOLDER.findall(text))


def test_the_client_marks_its_strings() -> None:
    messages = extract()
    assert len(messages) > 250
    # The lobby, the table, cards in words and counts with their plural.
    for msgid in ("Create and play", "Take pile", "%(rank)s of %(suit)s", "Your hand"):
        assert msgid in messages
    assert messages["%(count)s card"].plural == "%(count)s cards"


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_string_is_translated_with_its_placeholders(language: str) -> None:
    po = {entry.msgid: entry for entry in catalogue(language) if not entry.obsolete}
    missing, empty, fuzzy, wrong = [], [], [], []
    for msgid, message in extract().items():
        entry = po.get(msgid)
        if entry is None:
            missing.append(msgid)
            continue
        if "fuzzy" in entry.flags:
            fuzzy.append(msgid)
        if message.plural is not None:
            forms = [entry.msgstr_plural.get(i, "") for i in range(2)]
            if entry.msgid_plural != message.plural or not all(forms):
                empty.append(msgid)
            # Each form says what the singular says and nothing the plural does not ("a card"
            # may leave out its %(count)s).
            wrong += [
                msgid
                for form in forms
                if not set(placeholders(msgid))
                <= set(placeholders(form))
                <= set(placeholders(message.plural))
            ]
        else:
            if not entry.msgstr:
                empty.append(msgid)
            elif placeholders(entry.msgstr) != placeholders(msgid):
                wrong.append(msgid)
    assert missing == [], f"{language}: not in the catalogue (manage.py webmessages)"
    assert empty == [], f"{language}: untranslated"
    assert fuzzy == [], f"{language}: fuzzy"
    assert wrong == [], f"{language}: placeholders differ"


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_catalogue_is_up_to_date_and_compiled(language: str) -> None:
    path = po_path(language)
    expected = merge(language, extract())
    assert path.read_text(encoding="utf-8").rstrip() == str(expected).rstrip(), (
        f"{path} is stale: run manage.py webmessages"
    )
    assert path.with_suffix(".mo").read_bytes() == webmessages.mo_bytes(expected)
    assert expected.metadata["Plural-Forms"] == LANGUAGES[language]


def test_the_check_fails_on_a_string_missing_from_the_catalogues(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "page.ts").write_text('const a = gettext("A string no catalogue has");\n')
    monkeypatch.setattr(webmessages, "web_source", lambda: source)
    with pytest.raises(CommandError, match="A string no catalogue has"):
        call_command("webmessages", "--check")


def test_the_check_passes_on_the_real_sources() -> None:
    call_command("webmessages", "--check")


def test_a_call_without_a_literal_cannot_be_extracted(tmp_path: Path) -> None:
    (tmp_path / "page.ts").write_text("const a = gettext(name);\n")
    with pytest.raises(CommandError, match=r"page.ts:1: gettext\(\) needs string literals"):
        extract(tmp_path)


def test_extraction_reads_escapes_and_plurals(tmp_path: Path) -> None:
    (tmp_path / "page.ts").write_text(
        'gettext("Say \\"hi\\"");\nngettext("%(count)s cat", "%(count)s cats", n);\n'
        'gettext_noop("Later");\n'
    )
    found = extract(tmp_path)
    assert list(found) == ['Say "hi"', "%(count)s cat", "Later"]
    assert found["%(count)s cat"].plural == "%(count)s cats"


# ----------------------------------------------------------------------------- the endpoint
URL = "/api/v1/i18n/catalog/"


def test_the_catalogue_is_served_in_the_language_asked_for(client: Client) -> None:
    answer = client.get(URL, {"lang": "es"})
    assert answer.status_code == 200
    body = answer.json()
    assert set(body) == {"catalog", "formats", "plural"}
    assert body["catalog"]["Your hand"] == "Tu mano"
    assert body["catalog"]["%(count)s card"] == ["%(count)s carta", "%(count)s cartas"]
    assert body["plural"] == "(n != 1)"
    assert answer["Content-Language"] == "es"
    assert "Accept-Language" in answer["Vary"]
    assert "public" in answer["Cache-Control"]
    # The admin's JavaScript strings are not the client's.
    assert "Available %s" not in body["catalog"]


def test_portuguese_has_its_plural_rule(client: Client) -> None:
    answer = client.get(URL, {"lang": "pt-br"})
    assert answer["Content-Language"] == "pt-BR"
    body = answer.json()
    assert body["plural"] == "(n > 1)"
    assert body["catalog"]["Discard pile"] == "Monte de descarte"


def test_accept_language_chooses_without_a_parameter(client: Client) -> None:
    answer = client.get(URL, headers={"accept-language": "de-DE,de;q=0.9"})
    assert answer.json()["catalog"]["Your hand"] == "Deine Hand"
    italian = client.get(URL, headers={"accept-language": "it"}).json()
    assert italian["catalog"]["Discard pile"] == "Pozzo"


@pytest.mark.parametrize("asked", ["en", "fr", "xx-nope"])
def test_english_or_an_unknown_language_gets_an_empty_catalogue(client: Client, asked: str) -> None:
    answer = client.get(URL, {"lang": asked})
    assert answer.status_code == 200
    assert answer.json()["catalog"] == {}


def test_every_catalogue_string_comes_from_the_client() -> None:
    """No stale translation lingers in the served catalogue."""
    known = set(extract())
    for language in TRANSLATED:
        stale = [e.msgid for e in catalogue(language) if e.msgid not in known]
        assert stale == []


def test_placeholders_are_python_and_javascript_style_only() -> None:
    odd = [msgid for msgid in extract() if re.search(r"%(?!\([a-zA-Z_][a-zA-Z0-9_]*\)s|s)", msgid)]
    assert odd == []
