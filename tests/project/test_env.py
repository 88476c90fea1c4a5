"""The environment readers: good values parse, bad values fail naming the variable."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from canasta_service.env import (
    env_bool,
    env_database,
    env_int,
    env_list,
    env_origins,
    env_str,
    env_url,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1", True),
        ("true", True),
        ("YES", True),
        (" on ", True),
        ("0", False),
        ("False", False),
        ("no", False),
        ("off", False),
    ],
)
def test_env_bool_accepts_common_spellings(raw: str, expected: bool) -> None:
    assert env_bool("DEBUG", default=not expected, environ={"DEBUG": raw}) is expected


@pytest.mark.parametrize("environ", [{}, {"DEBUG": ""}, {"DEBUG": "   "}])
def test_unset_or_empty_means_default(environ: dict[str, str]) -> None:
    assert env_bool("DEBUG", default=True, environ=environ) is True
    assert env_str("DEBUG", default="x", environ=environ) == "x"


def test_env_bool_rejects_other_values_naming_the_variable() -> None:
    with pytest.raises(ImproperlyConfigured, match=r"DEBUG='maybe'.*1/0, true/false"):
        env_bool("DEBUG", default=False, environ={"DEBUG": "maybe"})


def test_env_int_parses_and_checks_bounds() -> None:
    assert env_int("N", default=5, environ={}) == 5
    assert env_int("N", default=5, minimum=0, environ={"N": "60"}) == 60
    with pytest.raises(ImproperlyConfigured, match=r"N='sixty'.*integer"):
        env_int("N", default=5, environ={"N": "sixty"})
    with pytest.raises(ImproperlyConfigured, match=r"N='-1'.*>= 0"):
        env_int("N", default=5, minimum=0, environ={"N": "-1"})
    with pytest.raises(ImproperlyConfigured, match=r"N='11'.*<= 10"):
        env_int("N", default=5, maximum=10, environ={"N": "11"})


def test_env_list_splits_on_commas_and_drops_blanks() -> None:
    assert env_list("H", default=["a"], environ={}) == ["a"]
    assert env_list("H", environ={"H": " a.example , ,b.example,"}) == ["a.example", "b.example"]


def test_env_url_checks_the_scheme() -> None:
    assert env_url("REDIS_URL", schemes=("redis",), environ={}) is None
    url = "redis://127.0.0.1:6379/3"
    assert env_url("REDIS_URL", schemes=("redis",), environ={"REDIS_URL": url}) == url
    with pytest.raises(ImproperlyConfigured, match=r"REDIS_URL='http://x'.*scheme redis"):
        env_url("REDIS_URL", schemes=("redis",), environ={"REDIS_URL": "http://x"})
    with pytest.raises(ImproperlyConfigured, match="REDIS_URL='localhost:6379'"):
        env_url("REDIS_URL", schemes=("redis",), environ={"REDIS_URL": "localhost:6379"})


def test_env_origins_accepts_origins() -> None:
    environ = {"CORS": "https://app.example.org, http://localhost:5173"}
    assert env_origins("CORS", environ=environ) == [
        "https://app.example.org",
        "http://localhost:5173",
    ]
    assert env_origins("CORS", environ={}) == []


@pytest.mark.parametrize(
    "bad",
    [
        "app.example.org",  # no scheme
        "https://app.example.org/",  # trailing slash: a path, not an origin
        "https://app.example.org/play",
        "ftp://app.example.org",
        "https://user@app.example.org",
        "https://app.example.org:notaport",
        "https://",
    ],
)
def test_env_origins_rejects_non_origins(bad: str) -> None:
    with pytest.raises(ImproperlyConfigured, match="CORS="):
        env_origins("CORS", environ={"CORS": f"https://ok.example.org,{bad}"})


def test_env_database_parses_urls() -> None:
    config = env_database(
        "DATABASE_URL",
        default="sqlite:////tmp/unused.sqlite3",
        environ={"DATABASE_URL": "postgres://u:p%40ss@db.internal:5433/canasta"},
    )
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["USER"], config["PASSWORD"]) == ("u", "p@ss")
    assert (config["HOST"], config["PORT"], config["NAME"]) == ("db.internal", 5433, "canasta")
    default = env_database("DATABASE_URL", default="sqlite:////tmp/x.sqlite3", environ={})
    assert default["ENGINE"] == "django.db.backends.sqlite3"
    assert default["NAME"] == "/tmp/x.sqlite3"


@pytest.mark.parametrize("bad", ["nonsense", "foo://bar/baz", "postgres://db.internal:5432"])
def test_env_database_rejects_bad_urls_naming_the_variable(bad: str) -> None:
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL="):
        env_database("DATABASE_URL", default="sqlite:////tmp/x", environ={"DATABASE_URL": bad})
