# Two commands matter: `make run` (serve the API) and `make test` (run the whole suite).
# Both create .venv with the system's python3 (3.11+) and install the project into it when
# pyproject.toml has changed since the last install.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PORT ?= 8000
# WebSocket compression (permessage-deflate) of `make run`: off, as in production
# (canasta_service/live_worker.py; `make run WS_DEFLATE=true` to try it).
WS_DEFLATE ?= false
PYTEST_ARGS ?=

# Developer tooling runs with DEBUG on unless the caller says otherwise (no SECRET_KEY needed).
DEV_ENV := DEBUG=$${DEBUG:-1}

.PHONY: help install run test lint format typecheck imports schema check-schema ci clean
.PHONY: web check-web browser-deps screenshots bench-live

help:
	@echo "make run           serve the API on http://localhost:$(PORT)/ (docs at /api/docs/), the"
	@echo "                   ASGI app under uvicorn (WebSocket, streams and long-polls included)"
	@echo "make test          run the test suite on every core (PYTEST_ARGS='...' to pass options,"
	@echo "                   e.g. PYTEST_ARGS='-n 0' for one process)"
	@echo "make lint          ruff check + ruff format --check + import-linter contracts"
	@echo "make format        ruff format + ruff check --fix"
	@echo "make typecheck     mypy"
	@echo "make schema        regenerate openapi.yaml"
	@echo "make check-schema  fail if openapi.yaml is not what the code generates"
	@echo "make lint-schema   lint openapi.yaml with Redocly's recommended-strict rules (npx)"
	@echo "make check-migrations  no model change without its migration, and every migration"
	@echo "                   safe beside the previous release (DATABASE_URL=postgres://... for"
	@echo "                   PostgreSQL's rules; docs/operations.md, Deploys without downtime)"
	@echo "make ci            the full CI run (.ci/run): SQLite, PostgreSQL + Redis + worker, checks"
	@echo "make web           rebuild the web client (web/ -> games/static/client/; needs npm)"
	@echo "make check-web     rebuild it and fail if the committed assets differ"
	@echo "make browser-deps  install Debian's chromium for the browser tests (tests/web) if missing"
	@echo "make screenshots   run the browser tests, keeping screenshots in docs/screenshots/"
	@echo "make bench-live    python -m bench.live --small: live updates through nginx + WSGI +"
	@echo "                   ASGI (needs nginx, PostgreSQL and Redis; BENCH_ARGS='...' for more)"

$(BIN)/python:
	$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "Python 3.11+ is required")'
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# The ASGI app, as the live server serves it (static files by its WhiteNoise middleware), so
# that the WebSocket and the streams work in development too; --reload restarts on a change.
run: $(STAMP)
	$(DEV_ENV) $(BIN)/python manage.py migrate --noinput
	$(DEV_ENV) $(BIN)/uvicorn canasta_service.asgi:application --host 0.0.0.0 --port $(PORT) \
		--ws-per-message-deflate $(WS_DEFLATE) --ws-max-size 65536 --no-proxy-headers --reload --reload-dir canasta_service --reload-dir core --reload-dir accounts \
		--reload-dir games --reload-dir competition --reload-dir notifications --reload-dir bots

test: $(STAMP)
	$(BIN)/pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

typecheck: $(STAMP)
	$(BIN)/mypy

imports: $(STAMP)
	$(BIN)/lint-imports

schema: $(STAMP)
	$(DEV_ENV) $(BIN)/python manage.py spectacular --validate --fail-on-warn --file openapi.yaml

check-schema: $(STAMP)
	@tmp=$$(mktemp --suffix=.yaml) && trap 'rm -f "$$tmp"' EXIT && \
	$(DEV_ENV) $(BIN)/python manage.py spectacular --validate --fail-on-warn --file "$$tmp" && \
	if diff -u openapi.yaml "$$tmp"; then echo "openapi.yaml is up to date"; \
	else echo "openapi.yaml is stale: run 'make schema' and commit it" >&2; exit 1; fi

# openapi.yaml as strict code generators read it (redocly.yaml: recommended-strict); needs npx.
# The CLI's version is pinned; it sends no telemetry and looks for no update.
REDOCLY_CLI := @redocly/cli@2.77.0
.PHONY: lint-schema
lint-schema:
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
		npx --yes $(REDOCLY_CLI) lint openapi.yaml

# Migrations: none missing (makemigrations --check), and every one not accepted in
# canasta_service/migration_baseline.toml safe to apply while the previous release serves
# (django-migration-linter on the SQL for the configured database; CI runs it on PostgreSQL).
.PHONY: check-migrations
check-migrations: $(STAMP)
	$(DEV_ENV) $(BIN)/python manage.py makemigrations --check --dry-run
	$(DEV_ENV) $(BIN)/python -m canasta_service.migration_safety

ci:
	bash .ci/run

# The web client: typed from openapi.yaml (openapi-typescript), type-checked, built by Vite into
# games/static/client/ (committed, so `make run` needs no npm). `npm install` from the lockfile,
# not `npm ci`: the lockfile holds only this platform's optional packages, which `npm ci` refuses.
web:
	cd web && npm install --no-audit --no-fund --no-save && npm run build

check-web: web
	@if git status --porcelain -- games/static/client | grep -q .; then \
	git status --short -- games/static/client; \
	echo "games/static/client is stale: run 'make web' and commit it" >&2; exit 1; \
	else echo "games/static/client is up to date"; fi

browser-deps:
	@if command -v chromium >/dev/null 2>&1; then echo "chromium: $$(command -v chromium)"; \
	else apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; fi

screenshots: $(STAMP)
	SCREENSHOTS_DIR=docs/screenshots $(BIN)/pytest tests/web -m browser $(PYTEST_ARGS)

BENCH_ARGS ?= --small
bench-live: $(STAMP)
	$(BIN)/python -m bench.live $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache staticfiles
