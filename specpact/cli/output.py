"""How every command answers: lines for people by default, one JSON document on stdout
with `--output json` (main.py gives every command the option). Progress and warnings go
to stderr in both modes, so stdout stays parseable."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import Any

CHOICES = ("text", "json")


def add_output_option(parser: argparse.ArgumentParser) -> None:
    if "--output" not in parser._option_string_actions:  # a command may declare its own
        parser.add_argument(
            "--output",
            choices=CHOICES,
            default="text",
            help="text (default) or json: one JSON document on stdout",
        )


def wants_json(args: argparse.Namespace) -> bool:
    return getattr(args, "output", "text") == "json" or bool(getattr(args, "json", False))


def emit(args: argparse.Namespace, data: Any, lines: Iterable[str]) -> None:
    """`data` as JSON, or `lines` as text, on stdout."""
    if wants_json(args):
        print(json.dumps(data, indent=2, default=str))
    else:
        for line in lines:
            print(line)


def note(line: str) -> None:
    """A line for the person watching (progress, hints): stderr, whatever the output."""
    print(line, file=sys.stderr, flush=True)
