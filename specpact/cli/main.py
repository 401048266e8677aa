"""Entry point: `specpact COMMAND …`. Each module in COMMAND_MODULES exposes
`register(subparsers)`, which adds its subcommands with `set_defaults(handler=fn)`;
a handler takes the parsed arguments and returns the exit code."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

from . import exit_codes
from .output import add_output_option

# Each module registers its own subcommands. The server commands (submit, status, approve,
# rollback, wait) live in `online`; the offline ones work without it.
COMMAND_MODULES: tuple[str, ...] = (
    "specpact.cli.offline",
    "specpact.cli.online",
    "specpact.cli.browse",
    "specpact.cli.endpoints",
    "specpact.cli.advise",
)
OPTIONAL_MODULES: frozenset[str] = frozenset({"specpact.cli.online", "specpact.cli.browse"})


def _load(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name and name in OPTIONAL_MODULES:
            return None  # not installed in this checkout; only its own absence is tolerated
        raise


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="specpact",
        description="Speculative-decoding route contracts: validate, render, import; "
        "exit codes 0 ok, 1 gate fail or rejected, 2 invalid input or usage, 3 timeout or unreachable, "
        "4 gate marginal (0 with --allow-marginal).",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        module = _load(name)
        if module is not None:
            module.register(subparsers)
    # Every command answers `--output json`, whichever module registered it.
    for command in dict.fromkeys(subparsers.choices.values()):
        add_output_option(command)
        for nested in command._subparsers._group_actions if command._subparsers else []:
            for sub in dict.fromkeys(getattr(nested, "choices", {}).values()):
                add_output_option(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: 0 for --help, 2 for a usage error
        return exc.code if isinstance(exc.code, int) else exit_codes.INVALID
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
