"""An image's file set without Docker: the Dockerfile's WORKDIR, ENV, COPY and `RUN pip install`
lines read as Docker reads them, the build context filtered by `.dockerignore`, and the files
the image would hold written under a directory. `deploy/image_check.py` installs and starts what
this builds; tests/deploy/ checks that a file set missing an app fails to start.

Only what the project's Dockerfiles use is understood: a COPY from another stage or an ADD of a
URL stops the build with an error rather than being skipped."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from glob import glob
from pathlib import Path, PurePosixPath


class ImageError(Exception):
    """The file set can't be built as the Dockerfile says, or what it holds does not start."""


@dataclass
class Image:
    """The parts of a Dockerfile that decide which files the image holds and what it installs."""

    workdir: PurePosixPath = field(default_factory=lambda: PurePosixPath("/"))
    env: dict[str, str] = field(default_factory=dict)
    # (source patterns relative to the context, destination as written, WORKDIR at that line)
    copies: list[tuple[list[str], str, PurePosixPath]] = field(default_factory=list)
    # `pip install` targets that are paths in the image (`.`, `.[worker]`), WORKDIR-relative.
    local_installs: list[tuple[str, PurePosixPath]] = field(default_factory=list)
    # Everything else pip installs from an index (`torch==2.13.0`).
    index_installs: list[str] = field(default_factory=list)


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per instruction: continuation lines joined, comments dropped
    (Docker drops comment lines inside a continued RUN too)."""
    result: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        line, pending = pending + line, ""
        keyword, _, rest = line.partition(" ")
        result.append((keyword.upper(), rest.strip()))
    if pending:
        raise ImageError("the Dockerfile ends inside a continued line")
    return result


def parse_dockerfile(path: Path) -> Image:
    image = Image()
    for keyword, rest in instructions(path.read_text(encoding="utf-8")):
        if keyword == "WORKDIR":
            image.workdir = image.workdir / rest
        elif keyword == "ENV":
            for item in shlex.split(rest):
                name, sep, value = item.partition("=")
                if not sep:
                    raise ImageError(f"ENV {rest!r}: only the NAME=value form is understood")
                image.env[name] = value
        elif keyword in {"COPY", "ADD"}:
            words = shlex.split(rest)
            flags = [w for w in words if w.startswith("--")]
            if any(f.startswith("--from") for f in flags):
                raise ImageError(f"{keyword} {rest!r}: copies from another stage are not understood")
            args = [w for w in words if not w.startswith("--")]
            if len(args) < 2 or any("://" in a for a in args):
                raise ImageError(f"{keyword} {rest!r}: expected local sources and a destination")
            image.copies.append((args[:-1], args[-1], image.workdir))
        elif keyword == "RUN":
            _read_pip_installs(rest, image)
    return image


# pip options that take a value: the value is not a requirement.
_PIP_VALUE_OPTIONS = {"-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-c", "-r"}


def _read_pip_installs(command: str, image: Image) -> None:
    for part in re.split(r"&&|;|\|\|", command):
        words = shlex.split(part)
        if "install" not in words or not any(w == "pip" or w.endswith("/pip") for w in words):
            continue
        args = words[words.index("install") + 1 :]
        skip = False
        for word in args:
            if skip:
                skip = False
            elif word in _PIP_VALUE_OPTIONS:
                skip = True
            elif word.startswith("-"):
                continue
            elif word.startswith((".", "/")):
                image.local_installs.append((word, image.workdir))
            else:
                image.index_installs.append(word)


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern (Go's filepath.Match plus `**`) as a regex over a posix path."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.index("]", i)
            body = pattern[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith(("!", "^")) else body) + "]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out) + r"\Z")


class DockerIgnore:
    """Docker's rules: the last matching pattern wins, `!` re-includes, and a path is matched
    when it or any directory above it matches."""

    def __init__(self, text: str) -> None:
        self.rules: list[tuple[re.Pattern[str], bool]] = []
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            negated = line.startswith("!")
            cleaned = os.path.normpath(line.lstrip("!").strip()).lstrip("/")
            self.rules.append((_pattern_regex(cleaned), negated))
        self.has_exceptions = any(negated for _, negated in self.rules)

    def excludes(self, relative: str) -> bool:
        parts = relative.split("/")
        prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
        excluded = False
        for regex, negated in self.rules:
            if any(regex.match(prefix) for prefix in prefixes):
                excluded = not negated
        return excluded


def dockerignore_for(context: Path, dockerfile: Path) -> Path | None:
    """BuildKit's choice: `<Dockerfile>.dockerignore` beside the Dockerfile, else the context's."""
    for candidate in (dockerfile.with_name(dockerfile.name + ".dockerignore"), context / ".dockerignore"):
        if candidate.is_file():
            return candidate
    return None


def context_files(context: Path, ignore: DockerIgnore) -> list[str]:
    """The build context as Docker sends it: every path (posix, relative) not ignored."""
    kept: list[str] = []
    for top, dirs, files in os.walk(context):
        relative_top = Path(top).relative_to(context).as_posix()
        prefix = "" if relative_top == "." else relative_top + "/"
        if not ignore.has_exceptions:
            # Nothing under an ignored directory can come back: don't walk .venv or .git.
            dirs[:] = [d for d in dirs if not ignore.excludes(prefix + d)]
        kept.extend(prefix + name for name in files if not ignore.excludes(prefix + name))
        kept.extend(prefix + d for d in dirs if os.path.islink(os.path.join(top, d)))
    return sorted(kept)


def build_fileset(
    *, context: Path, dockerfile: Path, dockerignore: Path | None, rootfs: Path
) -> tuple[Image, Path]:
    """Write the files the image's COPY lines would put in it under `rootfs`; returns the parsed
    Dockerfile and the WORKDIR under rootfs."""
    image = parse_dockerfile(dockerfile)
    ignore = DockerIgnore(dockerignore.read_text(encoding="utf-8") if dockerignore else "")
    available = context_files(context, ignore)
    for sources, dest, workdir in image.copies:
        target = PurePosixPath(workdir) / dest
        many = len(sources) > 1 or any(ch in s for s in sources for ch in "*?[")
        for source in sources:
            matched = _matched(source, available, context)
            if not matched:
                raise ImageError(f"COPY {source}: not in the build context (or .dockerignore drops it)")
            for relative, inside in matched:
                # A directory's contents go into the destination; a file goes into it when
                # it is a directory (a trailing slash, or several sources), else becomes it.
                if inside:
                    where = target / inside
                elif dest.endswith("/") or many:
                    where = target / PurePosixPath(relative).name
                else:
                    where = target
                _copy(context / relative, rootfs / str(where).lstrip("/"))
    work = rootfs / str(image.workdir).lstrip("/")
    work.mkdir(parents=True, exist_ok=True)
    return image, work


def _matched(source: str, available: list[str], context: Path) -> list[tuple[str, str]]:
    """(context path, path inside the copied directory, "" for a file copied itself)."""
    pattern = os.path.normpath(source).lstrip("/")
    roots = [Path(p).relative_to(context).as_posix() for p in glob(str(context / pattern))]
    if pattern == ".":
        roots = ["."]
    found: list[tuple[str, str]] = []
    for root in roots:
        if root in available:
            found.append((root, ""))
            continue
        under = "" if root == "." else root + "/"
        found.extend((path, path[len(under) :]) for path in available if path.startswith(under))
    return found


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_symlink():
        target.symlink_to(os.readlink(source))
    else:
        shutil.copy2(source, target)


def third_party_site_packages() -> str:
    """This interpreter's site-packages: where the file set's third-party dependencies come
    from (the project's own code never does: its editable-install hook is not loaded)."""
    return sysconfig.get_path("purelib")


# django.setup() and the URLconf in the file set: every app and every view module imported.
# Run with -S and an explicit sys.path, so that no .pth (the checkout's editable install)
# can supply a module the file set lacks.
_IMPORT_CHECK = """
import sys
sys.path[:0] = [{work!r}, {site!r}]
import django
django.setup()
from django.urls import get_resolver
get_resolver().url_patterns
from django.conf import settings
for name in settings.INSTALLED_APPS:
    module = sys.modules[name.split(".")[0]]
    print(name, getattr(module, "__file__", None) or list(module.__path__))
"""


def import_check(work: Path) -> subprocess.CompletedProcess[str]:
    """Import the project from the file set's WORKDIR, as `manage.py` in the image does."""
    code = _IMPORT_CHECK.format(work=str(work), site=third_party_site_packages())
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DJANGO_SETTINGS_MODULE": "specpact.settings",
        "SPECPACT_VAR_DIR": str(work.parent / "import-check-var"),
    }
    return subprocess.run(
        [sys.executable, "-S", "-c", code], cwd=work, env=env, capture_output=True, text=True, timeout=120
    )
