"""``python manage.py arena --a heuristic --b random --games 200 --preset classic``."""

from __future__ import annotations

from argparse import ArgumentParser, Namespace
from typing import Any

from django.core.management.base import BaseCommand

from bots.arena import build_parser, run_from_args


class Command(BaseCommand):
    help = "Play two bot policies against each other and print the win rate with a 95% CI."

    def add_arguments(self, parser: ArgumentParser) -> None:
        for action in build_parser()._actions:
            if action.dest == "help":
                continue
            parser._add_action(action)
        parser.set_defaults(full=False)

    def handle(self, *args: Any, **opts: Any) -> None:
        for report in run_from_args(Namespace(**opts)):
            self.stdout.write(report)
