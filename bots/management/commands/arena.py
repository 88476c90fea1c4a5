"""``python manage.py arena --a heuristic --b random --games 200 --preset classic``."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand

from bots.arena import build_parser, format_report, load_log, run_arena, summarise


class Command(BaseCommand):
    help = "Play two bot policies against each other and print the win rate with a 95% CI."

    def add_arguments(self, parser: ArgumentParser) -> None:
        for action in build_parser()._actions:
            if action.dest == "help":
                continue
            parser._add_action(action)
        parser.set_defaults(full=False)

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["from_log"]:
            report = summarise(
                load_log(opts["from_log"]), opts["a"], opts["b"], opts["preset"], opts["full"]
            )
            self.stdout.write(format_report(report))
            return
        report = run_arena(
            opts["a"],
            opts["b"],
            opts["games"],
            preset=opts["preset"],
            full=opts["full"],
            seed=opts["seed"],
            jobs=opts["jobs"],
            budget=opts["budget"],
            progress=not opts["quiet"],
            log_path=opts["log"],
        )
        self.stdout.write(format_report(report))
