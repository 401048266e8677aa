"""Entry point: `specpact COMMAND …`. Each module in COMMAND_MODULES exposes
`register(subparsers)`, which adds its subcommands with `set_defaults(handler=fn)`;
a handler takes the parsed arguments and returns the exit code."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from . import exit_codes

# Server commands (submit/status/approve/rollback/wait) go in their own module, listed here.
COMMAND_MODULES: tuple[str, ...] = ("specpact.cli.offline",)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="specpact",
        description="Speculative-decoding route contracts: validate, render, import; "
        "exit codes 0 ok, 1 gate fail or rejected, 2 invalid input or usage, 3 timeout or unreachable.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
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
