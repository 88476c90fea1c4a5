"""What the two gettext catalogues share (``manage.py servermessages``: the server's texts,
domain ``django``; ``manage.py webmessages``: the web client's, domain ``djangojs``): the
translated languages, where a catalogue lives, and a new catalogue's header."""

from __future__ import annotations

from pathlib import Path

import polib
from django.conf import settings

# The translated languages (locale directory -> Plural-Forms); English is the source.
LANGUAGES: dict[str, str] = {
    "es": "nplurals=2; plural=(n != 1);",
    "pt_BR": "nplurals=2; plural=(n > 1);",
    "it": "nplurals=2; plural=(n != 1);",
    "de": "nplurals=2; plural=(n != 1);",
}
LANGUAGE_NAMES = {"es": "Spanish", "pt_BR": "Portuguese (Brazil)", "it": "Italian", "de": "German"}


def locale_dir() -> Path:
    return Path(settings.LOCALE_PATHS[0])


def po_path(domain: str, language: str) -> Path:
    return locale_dir() / language / "LC_MESSAGES" / f"{domain}.po"


def catalogue_new(language: str, project: str) -> polib.POFile:
    """An empty catalogue for ``language`` with the metadata both domains write."""
    po = polib.POFile(wrapwidth=100)
    po.metadata = {
        "Project-Id-Version": project,
        "Language": language,
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
        "Plural-Forms": LANGUAGES[language],
    }
    return po
