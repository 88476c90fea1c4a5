# The service image: the REST API (gunicorn, WSGI), the live endpoints (gunicorn with uvicorn
# workers, ASGI; docker-compose's `live`), the Celery worker and beat all run from it.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DEBUG=0

WORKDIR /app

RUN useradd --create-home --uid 1000 canasta

# Dependencies first, so that a code change does not reinstall them.
COPY pyproject.toml README.md ./
RUN mkdir canasta_service core accounts games competition notifications bots \
    && python -c "import tomllib; d = tomllib.load(open('pyproject.toml', 'rb')); print('\n'.join(d['project']['dependencies']))" > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt

COPY manage.py ./
COPY canasta_service ./canasta_service
COPY core ./core
COPY accounts ./accounts
COPY games ./games
COPY competition ./competition
COPY notifications ./notifications
COPY bots ./bots
RUN pip install --no-deps . \
    && SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput

USER canasta
EXPOSE 8000

# The REST API (docker-compose's `api`); nginx sends the live endpoints to the ASGI server.
CMD ["gunicorn", "canasta_service.wsgi:application", "-k", "gthread", "--threads", "4", "--bind", "0.0.0.0:8000", "--workers", "3", "--keep-alive", "75", "--access-logfile", "-"]
