"""``specpact-worker``: one command, subcommands registered from their own modules.

Each module in ``SUBCOMMANDS`` has ``add_parser(subparsers)``, which adds its parser and
sets ``handler`` (``args -> exit code``) with ``set_defaults``.
"""

from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMANDS = ("worker.bench_cli", "worker.run_cli")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="specpact-worker", description="The SpecPact inference worker.")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for module in SUBCOMMANDS:
        importlib.import_module(module).add_parser(subparsers)
    args = parser.parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
