"""Command lines as people paste them: one string with `\\`-continued lines or a list of
words; `ENV=value` words, `sudo`/`env` before the program; the engine inside `docker run
[docker options] IMAGE …` (its own image's tag names the release); the program words
themselves (`vllm serve`, `python3 -m sglang.launch_server`, `./llama-server`, …)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..errors import FieldError
from .base import import_error

_ENV_WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")

# `docker run` options that take no value (Type `bool` in docker/cli
# docs/reference/commandline/container_run.md); every other option takes one.
DOCKER_BARE: frozenset[str] = frozenset(
    {
        "-d", "--detach", "--init", "-i", "--interactive", "--no-healthcheck", "--oom-kill-disable",
        "--privileged", "-P", "--publish-all", "-q", "--quiet", "--read-only", "--rm", "--sig-proxy",
        "-t", "--tty", "--disable-content-trust", "--use-api-socket", "--help",
    }
)  # fmt: skip
_DOCKER_SHORT_BARE = set("dPiqt")
_DOCKER_PROGRAMS = ("docker", "podman", "nvidia-docker")


@dataclass(frozen=True)
class Image:
    """An engine's own container image: its name and how its tag spells a release."""

    pattern: re.Pattern[str]
    version: re.Pattern[str]
    source: str


@dataclass
class Command:
    words: list[str]
    env: dict[str, str] = field(default_factory=dict)
    image: str | None = None
    image_version: str | None = None
    notes: list[FieldError] = field(default_factory=list)

    def note(self, message: str) -> None:
        self.notes.append(FieldError("argv", message))


def split_words(command: str | Sequence[str]) -> list[str]:
    return split_command(command)[0]


def split_command(command: str | Sequence[str]) -> tuple[list[str], list[str]]:
    """(words, notes) of a pasted command. One string (or a one-word list holding a whole
    command) is split as a shell would, after joining `\\`-continued lines; a lone `\\`
    word, as left by a command flattened onto one line, is dropped. A paste of several
    lines keeps its `NAME=value` lines (they are expanded in the command, as the shell
    would) and its first command; later commands are noted and left out."""
    if isinstance(command, str):
        text = command
    elif len(command) == 1 and (" " in command[0] or "\n" in command[0]):
        text = command[0]
    else:
        return [w for w in command if w != "\\"], []
    text = re.sub(r"\\\r?\n", " ", text)
    # A continued command flattened onto one line keeps its backslashes: ` \ --flag`.
    text = re.sub(r"(^|\s)\\(?=\s)", " ", text)
    assigned: list[str] = []
    words: list[str] | None = None
    notes: list[str] = []
    for parts in _commands(text):
        if parts[:1] == ["export"]:
            parts = parts[1:]
        if not parts:
            continue
        if words is None and all(_ENV_WORD.match(p) for p in parts):
            assigned += parts
        elif words is None:
            words = parts
        else:
            shown = shlex.join(parts)[:60]
            notes.append(f"the paste goes on after the command ({shown}): only the first command is read")
    return [*assigned, *(words or [])], notes


def _commands(text: str) -> list[list[str]]:
    """The words of each command of `text`: newlines, `;` and `&&` end a command unless
    they are inside quotes (a JSON value spread over lines stays one word)."""
    out: list[list[str]] = []
    buffer = ""
    for piece in [*re.split(r"(\r?\n|;|&&)", text), "\n"]:
        if piece in ("\n", "\r\n", ";", "&&"):
            try:
                words = shlex.split(buffer, comments=True)
            except ValueError:
                buffer += piece  # an open quote: the separator belongs to the word
                continue
            out.append([w for w in words if w != "\\"])
            buffer = ""
        else:
            buffer += piece
    if buffer.strip():
        raise import_error("the command cannot be split into words: a quotation is not closed")
    return out


def _expand(cmd: Command, assigned: dict[str, str]) -> None:
    """`$NAME` and `${NAME}` of variables the paste sets, as the shell would expand them."""
    used: set[str] = set()

    def sub(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        if name in assigned:
            used.add(name)
            return assigned[name]
        return m.group(0)

    cmd.words = [re.sub(r"\$\{(\w+)\}|\$(\w+)", sub, w) for w in cmd.words]
    for name in used:
        cmd.env.pop(name, None)
        cmd.note(f"${name} is {assigned[name]!r}, as the paste sets it")


def unwrap(
    command: str | Sequence[str],
    programs: Iterable[Sequence[str]],
    image: Image | None,
    engine_name: str,
    engine_version: str | None = None,
    program_version: re.Pattern[str] | None = None,
) -> Command:
    """The engine's own words, with what surrounded them recorded. A release the caller
    names wins over an image tag or an install path that names one (`program_version`),
    and a disagreement is noted."""
    words, notes = split_command(command)
    cmd = Command(words=list(words))
    for note in notes:
        cmd.note(note)
    _leading(cmd)
    _expand(cmd, dict(cmd.env))
    if cmd.words and cmd.words[0].rsplit("/", 1)[-1] in _DOCKER_PROGRAMS:
        _docker(cmd, image, engine_name)
        _leading(cmd)
    found = program_version.search(cmd.words[0]) if program_version and cmd.words else None
    if found and not cmd.image_version:
        cmd.image_version = found.group(1)
        cmd.note(f"the install path {cmd.words[0]} names the release: {found.group(1)}")
    cmd.words = strip_program(cmd.words, programs)
    if engine_version:
        if cmd.image_version and cmd.image_version.lstrip("vb") != engine_version.lstrip("vb"):
            cmd.note(f"the image tag says {cmd.image_version}; read as {engine_version}, the release given")
        cmd.image_version = engine_version
    return cmd


def _leading(cmd: Command) -> None:
    """`ENV=value` words, `env`, `sudo [-u USER] [-H] [-E]`, `exec`, `nohup` before the program."""
    words = cmd.words
    while words:
        head = words[0]
        if _ENV_WORD.match(head):
            key, _, value = head.partition("=")
            cmd.env[key] = value
            words.pop(0)
        elif head in ("env", "exec", "nohup", "time"):
            words.pop(0)
        elif head == "sudo":
            words.pop(0)
            while words and words[0].startswith("-"):
                flag = words.pop(0)
                if flag in ("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U") and words:
                    words.pop(0)
        else:
            break


def _docker(cmd: Command, image: Image | None, engine_name: str) -> None:
    words = cmd.words
    words.pop(0)
    while words and words[0] in ("container", "run", "create"):
        words.pop(0)
    entrypoint: str | None = None
    while words and words[0].startswith("-"):
        word = words.pop(0)
        name, eq, value = word.partition("=")
        if not eq and _short_bare_group(name):
            continue  # -it, -dit, -d
        if not eq and name not in DOCKER_BARE:
            if len(name) > 2 and not name.startswith("--"):  # -p8080:80, -eKEY=value
                name, value = name[:2], name[2:]
            elif words:
                value = words.pop(0)
        if name in ("-e", "--env"):
            key, has, val = value.partition("=")
            if has:
                cmd.env[key] = val
            else:
                cmd.note(
                    f"docker {name} {value} takes {value} from the host environment: its value is not known"
                )
        elif name == "--entrypoint":
            entrypoint = value
        elif name == "--env-file":
            cmd.note(f"docker --env-file {value}: the variables in that file are not read")
    if not words:
        raise import_error("docker run names no image")
    name = words.pop(0)
    cmd.image = name
    if entrypoint:
        words.insert(0, entrypoint)
    repo, _, tag = name.rpartition(":") if ":" in name.rsplit("/", 1)[-1] else (name, "", "")
    if image is None or not image.pattern.search(repo):
        cmd.note(f"image {name} is not {engine_name}'s own image: its tag does not say the release")
        return
    m = image.version.match(tag) if tag else None
    if m:
        cmd.image_version = m.group(1)
    else:
        cmd.note(f"image tag {tag or '(none, latest)'} of {repo} is not a release number ({image.source})")


def _short_bare_group(name: str) -> bool:
    return (
        len(name) >= 2
        and name[0] == "-"
        and name[1] != "-"
        and all(c in _DOCKER_SHORT_BARE for c in name[1:])
    )


def strip_program(argv: list[str], programs: Iterable[Sequence[str]]) -> list[str]:
    """Drop the leading program words: the longest spelling in `programs` that matches,
    each word compared by its last path part (`./llama-server`, `/usr/bin/python3`)."""
    rest = list(argv)
    best = 0
    for spelling in programs:
        n = len(spelling)
        if n <= len(rest) and all(_base(w) == s for w, s in zip(rest, spelling, strict=False)):
            best = max(best, n)
    return rest[best:]


def _base(word: str) -> str:
    return word.rsplit("/", 1)[-1].removesuffix(".exe")


def python_programs(module: str) -> list[tuple[str, ...]]:
    return [(py, "-m", module) for py in ("python", "python3", "python3.10", "python3.11", "python3.12")]
