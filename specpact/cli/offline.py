"""Commands that work with no server: validate, render, import, schema."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import yaml

from contracts_app.document import (
    ENGINES,
    MAX_DOCUMENT_BYTES,
    ContractDocument,
    ContractError,
    contract_json_schema,
    document_digest,
    guess_format,
    import_command,
    parse_document,
    render,
    validate_document,
    validation_warnings,
)
from kernel.errors import FieldError

from . import exit_codes
from .output import wants_json


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("validate", help="validate a contract file (YAML or JSON); prints ok <digest>")
    p.add_argument("file", help="contract file, or - for standard input")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=cmd_validate)

    p = subparsers.add_parser("render", help="print the engine command for a contract")
    p.add_argument("file", help="contract file, or - for standard input")
    p.add_argument("--engine", choices=ENGINES, help="engine to render for (default: the contract's)")
    p.add_argument("--json", action="store_true", help="print argv, shell, config and notes as JSON")
    p.set_defaults(handler=cmd_render)

    p = subparsers.add_parser(
        "import",
        help="turn an engine command line into a contract",
        usage="specpact import --engine E -- COMMAND…",
    )
    p.add_argument("--engine", choices=ENGINES, required=True)
    p.add_argument(
        "--engine-version",
        help="the release the command runs on (read from an engine image's tag otherwise)",
    )
    p.add_argument(
        "--config-file",
        action="append",
        default=[],
        metavar="PATH",
        help="a file the command names (TensorRT-LLM's --config YAML), read under that name; "
        "repeatable. Without it, a file the command names that exists here is read",
    )
    p.add_argument(
        "argv",
        nargs=argparse.REMAINDER,
        help="the engine command after --, as words or as one pasted string; - reads it from standard input",
    )
    p.set_defaults(handler=cmd_import)

    p = subparsers.add_parser("schema", help="print the contract JSON Schema")
    p.set_defaults(handler=cmd_schema)


def _err(line: str) -> None:
    print(line, file=sys.stderr)


def _print_errors(errors: list[FieldError], prefix: str = "") -> None:
    for e in errors:
        _err(f"{prefix}{e.path or '(document)'}: {e.message}")


class _Unreadable(Exception):
    pass


def _read(name: str) -> bytes:
    try:
        if name == "-":
            raw = sys.stdin.buffer.read(MAX_DOCUMENT_BYTES + 1)
        else:
            with Path(name).open("rb") as fh:
                raw = fh.read(MAX_DOCUMENT_BYTES + 1)  # enough to see that it is too large
    except OSError as exc:
        raise _Unreadable(f"specpact: cannot read {name}: {exc.strerror or exc}") from exc
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise _Unreadable(
            f"specpact: {name} is larger than the {MAX_DOCUMENT_BYTES}-byte limit of a contract"
        )
    return raw


def _load(name: str) -> ContractDocument:
    raw = _read(name)
    return validate_document(parse_document(raw, guess_format(name, raw)))


def cmd_validate(args: argparse.Namespace) -> int:
    try:
        doc = _load(args.file)
    except _Unreadable as exc:
        _err(str(exc))
        return exit_codes.INVALID
    except ContractError as exc:
        if wants_json(args):
            print(
                json.dumps(
                    {"valid": False, "detail": exc.detail, "errors": [e.as_dict() for e in exc.errors]}
                )
            )
        else:
            _print_errors(exc.errors)
        return exit_codes.INVALID
    digest, warnings = document_digest(doc), validation_warnings(doc)
    if wants_json(args):
        print(json.dumps({"valid": True, "digest": digest, "warnings": [w.as_dict() for w in warnings]}))
    else:
        print(f"ok {digest}")
        _print_errors(warnings, prefix="warning: ")
    return exit_codes.OK


def cmd_render(args: argparse.Namespace) -> int:
    try:
        doc = _load(args.file)
        result = render(doc, args.engine)
    except _Unreadable as exc:
        _err(str(exc))
        return exit_codes.INVALID
    except ContractError as exc:
        _print_errors(exc.errors)
        return exit_codes.INVALID
    if wants_json(args):
        print(json.dumps(result.as_dict(), indent=2))
        return exit_codes.OK
    print(result.shell)
    # Each finding once: a validation warning a render note repeats is printed as the warning.
    warnings = _unique(
        validation_warnings(doc) if not args.engine or args.engine == doc.target.engine else []
    )
    _print_errors(warnings, prefix="warning: ")
    said = {w.message for w in warnings}
    for note in dict.fromkeys(result.notes):
        if note not in said:
            _err(f"note: {note}")
    return exit_codes.OK


def _unique(errors: list[FieldError]) -> list[FieldError]:
    return list(dict.fromkeys(errors))


# Options through which a command names a settings file (trtllm-serve, tensorrt_llm/commands/serve.py).
_FILE_OPTIONS = ("--config", "--extra_llm_api_options")


def _config_files(given: list[str], command: list[str] | str) -> dict[str, str]:
    """`--config-file` paths, read; else the file a command's config option names, when it
    exists here (a command pasted from this machine's shell)."""
    files = {path: Path(path).read_text(encoding="utf-8") for path in given}
    if files:
        return files
    try:
        words = shlex.split(command) if isinstance(command, str) else list(command)
    except ValueError:
        return {}
    for i, word in enumerate(words):
        name, eq, value = word.partition("=")
        if name in _FILE_OPTIONS:
            path = value if eq else (words[i + 1] if i + 1 < len(words) else "")
            if path and Path(path).is_file():
                files[path] = Path(path).read_text(encoding="utf-8")
    return files


def cmd_import(args: argparse.Namespace) -> int:
    argv = list(args.argv)
    if argv[:1] == ["--"]:
        argv = argv[1:]
    command: list[str] | str = argv
    if argv == ["-"]:
        command = sys.stdin.read()
    elif len(argv) == 1:
        command = argv[0]  # one pasted string: continuation lines, docker run, Python
    if not command or (isinstance(command, str) and not command.strip()):
        _err("specpact import: give the engine command after --, e.g. --engine vllm -- vllm serve MODEL")
        return exit_codes.INVALID
    try:
        files = _config_files(args.config_file, command)
    except OSError as exc:
        _err(f"specpact import: {exc}")
        return exit_codes.INVALID
    try:
        result = import_command(
            args.engine, command, engine_version=args.engine_version, files=files if files else None
        )
    except ContractError as exc:
        _print_errors(exc.errors)
        return exit_codes.INVALID
    invalid: list[FieldError] = []
    try:
        validate_document(result.document)
    except ContractError as exc:
        invalid = list(exc.errors)
    if wants_json(args):
        print(
            json.dumps(
                {
                    "document": result.document,
                    "unresolved": [e.as_dict() for e in result.unresolved],
                    "invalid_until_fixed": [e.as_dict() for e in invalid],
                },
                indent=2,
            )
        )
        return exit_codes.OK
    print(f"# Imported by specpact from a {args.engine} command line: review the fields listed on stderr.")
    print(yaml.safe_dump(result.document, sort_keys=False, allow_unicode=True), end="")
    _print_errors(result.unresolved, prefix="unresolved: ")
    _print_errors(invalid, prefix="invalid until fixed: ")
    return exit_codes.OK


def cmd_schema(args: argparse.Namespace) -> int:
    print(json.dumps(contract_json_schema(), indent=2))
    return exit_codes.OK
