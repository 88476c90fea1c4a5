"""``python manage.py errors``: the table of every error code the API answers (Markdown).

It is generated from the one catalogue (``core.errors``), once every installed app has
registered its codes; docs/api.md holds a copy between ``<!-- errors:start -->`` and
``<!-- errors:end -->`` (``tests/core/test_errors.py`` fails when the copy differs).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from core.errors import markdown_table


class Command(BaseCommand):
    help = "Print the table of every error code the API answers (docs/api.md's error table)."
    requires_system_checks: list[str] = []

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(markdown_table())
