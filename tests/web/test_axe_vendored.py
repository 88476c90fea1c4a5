"""The axe-core the browser tests inject (tests/web/vendor/axe-core) is the one web/package.json
pins, with its licence beside it (no browser needed)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.web.conftest import AXE_JS

WEB = Path(__file__).resolve().parents[2] / "web"


def vendored_version() -> str:
    match = re.match(r"/\*! axe v(\S+)", AXE_JS.read_text(encoding="utf-8")[:100])
    assert match, "the vendored axe.min.js has no version banner"
    return match.group(1)


def test_the_vendored_axe_is_the_pinned_one() -> None:
    pinned = json.loads((WEB / "package.json").read_text())["devDependencies"]["axe-core"]
    assert pinned == vendored_version(), "copy web/node_modules/axe-core/axe.min.js anew"
    locked = json.loads((WEB / "package-lock.json").read_text())
    assert locked["packages"]["node_modules/axe-core"]["version"] == pinned


def test_it_ships_with_its_licence() -> None:
    licence = (AXE_JS.parent / "LICENSE").read_text(encoding="utf-8")
    assert "Mozilla Public License, version 2.0" in licence
    assert (AXE_JS.parent / "LICENSE-3RD-PARTY.txt").exists()


def test_it_matches_the_installed_package() -> None:
    installed = WEB / "node_modules" / "axe-core" / "axe.min.js"
    if not installed.exists():
        pytest.skip("web/node_modules is not installed (make web)")
    assert installed.read_bytes() == AXE_JS.read_bytes()
