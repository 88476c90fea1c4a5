"""The commands the READMEs show work as written, on a checkout where ``make run`` has made the
virtualenv: every make target exists and takes the variables shown, every module and option
exists, every ``manage.py`` command parses, the cheap ones run in a clean environment (no
DEBUG, no SECRET_KEY: as a new user's shell), and the client example plays a move."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.core.management import get_commands, load_command_class

from games.models import Game

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DOCS += [ROOT / "bench" / "README.md", ROOT / "web" / "README.md"]
PROGRAMS = {
    "make",
    ".venv/bin/python",
    "python",
    "python3",
    "docker",
    "docker-compose",
    "npm",
    "npx",
    "cd",
    "createdb",
    "psql",
    "curl",
    "echo",
}
VENV_PYTHON = ROOT / ".venv" / "bin" / "python"
# What a command's placeholders stand for when it is run.
GAME_ID, FILE = "GAME_ID", "FILE"
# Variables the settings read: a new user's shell has none of them.
SETTINGS_VARIABLES = (
    "DJANGO_SETTINGS_MODULE",
    "DEBUG",
    "SECRET_KEY",
    "DATABASE_URL",
    "DATABASE_CONN_MAX_AGE",
    "DATABASE_POOL_SIZE",
    "REDIS_URL",
    "CELERY_BROKER_URL",
    "CACHE_URL",
)


def _blocks(text: str) -> list[str]:
    """The shell commands of ```sh blocks, continuation lines joined."""
    commands: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        commands += [c.strip() for c in block.replace("\\\n", " ").splitlines() if c.strip()]
    return commands


def _words(command: str) -> list[str]:
    return shlex.split(command, comments=True)


def _program(words: list[str]) -> tuple[dict[str, str], list[str]]:
    """A command's leading VAR=value assignments, and the rest."""
    env: dict[str, str] = {}
    while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
        name, _, value = words[0].partition("=")
        env[name] = value
        words = words[1:]
    return env, words


@cache
def commands() -> list[tuple[str, str]]:
    """(file, command) for every command the docs show: ```sh blocks and inline code."""
    found: list[tuple[str, str]] = []
    for doc in DOCS:
        text = doc.read_text()
        name = str(doc.relative_to(ROOT))
        found += [(name, c) for c in _blocks(text)]
        for span in re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S)):
            try:
                _, words = _program(_words(span))
            except ValueError:
                continue
            if words and words[0] in PROGRAMS and len(words) > 1:
                found.append((name, span))
    return found


def of(program: str) -> list[tuple[str, dict[str, str], list[str]]]:
    """(file, assignments, arguments) of the commands running ``program``."""
    chosen = []
    for name, command in commands():
        env, words = _program(_words(command))
        if words and words[0] == program:
            chosen.append((name, env, words[1:]))
    return chosen


def test_the_docs_show_commands() -> None:
    assert len(of("make")) >= 15 and len(of(".venv/bin/python")) >= 15


def test_python_runs_from_the_virtualenv_and_manage_py_with_debug() -> None:
    """A new user's ``python`` has none of the project's packages, and the settings refuse to
    start without DEBUG or a SECRET_KEY."""
    for name, command in commands():
        env, words = _program(_words(command))
        if not words:  # assignments only (the client example's T=$(...))
            continue
        if words[0] in ("python", "python3"):
            assert words[1] == "-c" and "import secrets" in words[2], (name, command)
        if "manage.py" in words:
            assert words[:2] == [".venv/bin/python", "manage.py"], (name, command)
            assert env.get("DEBUG") == "1" or "SECRET_KEY" in env, (name, command)


@pytest.mark.parametrize("target", sorted({" ".join(a) for _, _, a in of("make")}))
def test_make_targets_exist(target: str) -> None:
    makefile = (ROOT / "Makefile").read_text()
    for _, env, arguments in of("make"):
        if " ".join(arguments) != target:
            continue
        dry = subprocess.run(
            ["make", "-n", *arguments],
            cwd=ROOT,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert dry.returncode == 0, (target, dry.stderr)
        # A make variable shown reaches the target's commands (others are the programs' own).
        shown = {**env, **dict(a.split("=", 1) for a in arguments if "=" in a)}
        for variable, value in shown.items():
            if f"$({variable})" in makefile:
                assert value in dry.stdout, (target, variable)


@cache
def _help(module: str) -> str:
    answer = subprocess.run(
        [sys.executable, "-m", module, "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert answer.returncode == 0, (module, answer.stderr)
    return answer.stdout


def test_modules_and_their_options_exist() -> None:
    modules = [(n, a) for n, _, a in of(".venv/bin/python") if a[0] == "-m"]
    assert modules
    for name, arguments in modules:
        module, options = arguments[1], [a.partition("=")[0] for a in arguments[2:]]
        assert importlib.util.find_spec(module) is not None, (name, module)
        for option in (o for o in options if o.startswith("--")):
            assert re.search(rf"{re.escape(option)}\b", _help(module)), (name, module, option)


def _manage_py() -> list[tuple[str, list[str]]]:
    return [(n, a[1:]) for n, _, a in of(".venv/bin/python") if a[0] == "manage.py"]


def test_management_commands_exist_and_their_arguments_parse() -> None:
    commands = _manage_py()
    assert {a[0] for _, a in commands} >= {"replay", "arena"}
    for name, (command, *arguments) in commands:
        app = get_commands().get(command)
        assert app is not None, (name, command)
        parser = load_command_class(app, command).create_parser("manage.py", command)
        filled = ["1" if a == GAME_ID else "game.json" if a == FILE else a for a in arguments]
        parser.parse_args(filled)  # CommandError on an unknown option or a bad value


# ------------------------------------------------------------------------- run as written
def _shell(command: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


MAKE_A_GAME = """
from games.services.lobby import BotSeatSpec, game_create, game_start
from accounts.services.players import player_create
player, _ = player_create(display_name="Ada")
game = game_create(creator=player, preset="two_player", options={"target_score": 1000},
                   bots=[BotSeatSpec(seat=0), BotSeatSpec(seat=1)], seat=None, spectate=True)
print(game_start(game_id=game.pk, player=player).pk)
"""


def test_manage_py_commands_run_as_written_in_a_new_shell(tmp_path: Path) -> None:
    """The replay commands (not the benchmarks, not the arena's long matches), as a new user
    runs them after ``make run``: no variable set but the database's (a file of this test's)."""
    if not VENV_PYTHON.exists():
        pytest.skip("no .venv (make install)")
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARIABLES}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    migrate = _shell("DEBUG=1 .venv/bin/python manage.py migrate --noinput", env)
    assert migrate.returncode == 0, migrate.stderr
    made = _shell(f"DEBUG=1 .venv/bin/python manage.py shell -c '{MAKE_A_GAME}'", env)
    assert made.returncode == 0, made.stderr
    game_id = made.stdout.split()[-1]
    ran = 0
    for name, command in commands():
        _, words = _program(_words(command))
        if "manage.py" not in words or "--bench" in words:
            continue
        if words[words.index("manage.py") + 1 :][:1] != ["replay"]:
            continue
        filled = command.replace(GAME_ID, game_id).replace(FILE, str(tmp_path / "game.json"))
        answer = _shell(filled, env)
        assert answer.returncode == 0, (name, command, answer.stdout[-500:], answer.stderr[-2000:])
        assert "mismatch" not in answer.stdout.replace("0 mismatched", ""), answer.stdout
        ran += 1
    assert ran >= 3


def _client_example() -> str:
    (block,) = [
        b
        for b in re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
        if "/api/v1/players/" in b
    ]
    return block


@pytest.mark.django_db(transaction=True)
def test_the_client_example_plays_a_move(live_server: Any) -> None:
    if not (shutil.which("curl") and shutil.which("jq")):
        pytest.skip("needs curl and jq")
    block = _client_example()
    assert block.count("localhost:8000") >= 4
    script = block.replace("localhost:8000", urlsplit(live_server.url).netloc)
    answer = _shell(f"set -euo pipefail\n{script}", dict(os.environ))
    assert answer.returncode == 0, answer.stderr
    game = Game.objects.get()
    assert game.version == 2  # the human's draw, applied at version 1
    assert list(game.events.values_list("seq", "seat", "type")) == [
        (1, None, "game_started"),
        (2, 0, "draw"),
    ]
