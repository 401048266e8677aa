"""`make image-check`: both images built as their Dockerfiles say, without Docker, and started.

For each image: the file set (deploy/image_fileset.py) under a temporary root, the Dockerfile's
`pip install` of it done non-editable into a fresh venv, then the image's processes run from its
WORKDIR with production settings. The project's code comes only from the file set; third-party
dependencies come from this interpreter's site-packages through a .pth (installing them afresh
would take minutes and need the network; they are not what the images forget to copy).

Control plane: the import check, the installed package holding every app and template, then
`check --deploy`, `migrate` and `collectstatic` against a PostgreSQL database made for the run,
and gunicorn answering the login page, a static file and the OpenAPI schema. Worker:
`specpact-worker --help` and every `worker` module imported from the installed package.
Exits 1 on the first failure, printing what failed."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
from image_fileset import (
    Image,
    ImageError,
    build_fileset,
    dockerignore_for,
    import_check,
    third_party_site_packages,
)

REPO = Path(__file__).resolve().parents[1]
HOST = "localhost"

# Appended to every Python check: fails if any module loaded was the checkout's, not the image's.
_PROVENANCE = """
import sys
repo, site = {repo!r}, {site!r}
mods = {{n: getattr(m, "__file__", None) or "" for n, m in list(sys.modules.items())}}
leaked = sorted(n for n, f in mods.items() if f.startswith(repo + "/") and not f.startswith(site))
if leaked:
    sys.exit(f"imported from the checkout, not the image: {{leaked}}")
"""


def step(name: str, action: Callable[[], str]) -> None:
    started = time.monotonic()
    try:
        detail = action()
    except (ImageError, subprocess.SubprocessError, OSError, psycopg.Error) as exc:
        print(f"FAIL {name}: {exc}", flush=True)
        raise SystemExit(1) from exc
    print(f"ok   {name} ({time.monotonic() - started:.1f} s){': ' + detail if detail else ''}", flush=True)


def run(argv: list[str], *, cwd: Path, env: dict[str, str], timeout: float = 300) -> str:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        shown = " ".join(arg if len(arg) < 200 else "<check>" for arg in argv)
        raise ImageError(f"{shown} exited {done.returncode}\n{(done.stdout + done.stderr)[-3000:]}")
    return done.stdout


class Installed:
    """A file set built under `root` and pip-installed (non-editable) into `root/venv`."""

    def __init__(self, root: Path, dockerfile: Path) -> None:
        self.root = root
        self.rootfs = root / "rootfs"
        self.venv = root / "venv"
        self.image, self.work = build_fileset(
            context=REPO,
            dockerfile=dockerfile,
            dockerignore=dockerignore_for(REPO, dockerfile),
            rootfs=self.rootfs,
        )
        self.python = self.venv / "bin" / "python"
        self.site = ""  # the venv's site-packages, once installed

    def install(self) -> str:
        if not self.image.local_installs:
            raise ImageError("the Dockerfile pip-installs nothing from its file set")
        run([sys.executable, "-m", "venv", "--without-pip", str(self.venv)], cwd=self.root, env=base_env())
        wheels, pip = self.root / "wheels", [sys.executable, "-m", "pip"]
        for target, workdir in self.image.local_installs:
            source = self.rootfs / str(workdir).lstrip("/") / target.split("[")[0]
            # What `pip install .` does in the image: a wheel built from the file set, installed.
            build = [*pip, "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(source)]
            run(build, cwd=self.root, env=base_env())
        built = sorted(str(p) for p in wheels.glob("*.whl"))
        into = ["--python", str(self.python), "install", "-q", "--no-deps", "--no-index"]
        run([*pip, *into, *built], cwd=self.root, env=base_env())
        purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
        self.site = site = run([str(self.python), "-c", purelib], cwd=self.root, env=base_env()).strip()
        Path(site, "_image_check_dependencies.pth").write_text(third_party_site_packages() + "\n")
        extra = f"; from an index, supplied by {sys.prefix}: {', '.join(self.image.index_installs)}"
        return ", ".join(Path(w).name for w in built) + (extra if self.image.index_installs else "")

    def env(self, **extra: str) -> dict[str, str]:
        env = base_env()
        env.update(self.image.env)
        env["PATH"] = f"{self.venv / 'bin'}:{env['PATH']}"
        env.update(extra)
        return env

    def python_check(self, code: str, *, cwd: Path, env: dict[str, str]) -> str:
        check = code + _PROVENANCE.format(repo=str(REPO), site=third_party_site_packages())
        return run([str(self.python), "-c", check], cwd=cwd, env=env)


def base_env() -> dict[str, str]:
    # Nothing of the caller's (DJANGO_SETTINGS_MODULE, PYTHONPATH, VIRTUAL_ENV) leaks in.
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": os.environ.get("HOME", "/root"),
        "LANG": "C.UTF-8",
    }


# The installed package (not the WORKDIR copy) holds every app, module and template: what a
# console script (`specpact`, `specpact-worker`) imports, its sys.path[0] being bin/. (manage.py,
# gunicorn and celery -A import from the WORKDIR, which is on their sys.path.)
_INSTALLED_HOLDS_ALL = """
import importlib, os, pathlib, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "specpact.settings")
import django
django.setup()
from specpact.apps_list import PROJECT_APPS
work, site = pathlib.Path({work!r}), pathlib.Path({site!r})
missing = []
for app in PROJECT_APPS:
    module = importlib.import_module(app)
    if not module.__file__.startswith(str(site)):
        sys.exit(f"{{app}} was imported from {{module.__file__}}, not the installed package")
    for path in (work / app).rglob("*"):
        shipped = path.suffix in {{".py", ".html", ".json", ".jsonl", ".yaml", ".txt"}}
        if shipped and "__pycache__" not in path.parts and not (site / path.relative_to(work)).is_file():
            missing.append(str(path.relative_to(work)))
if missing:
    sys.exit("the installed package lacks: " + ", ".join(sorted(missing)[:20]))
print(len(PROJECT_APPS), "apps")
"""


def control_plane(installed: Installed, database_url: str, var: Path) -> None:
    env = installed.env(
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(48),
        ALLOWED_HOSTS=HOST,
        DATABASE_URL=database_url,
        # The Dockerfile's /var/lib/specpact, here under the temporary root.
        SPECPACT_VAR_DIR=str(var),
    )
    work, manage = installed.work, [str(installed.python), "manage.py"]
    elsewhere = installed.root / "elsewhere"
    elsewhere.mkdir()
    code = _INSTALLED_HOLDS_ALL.format(work=str(work), site=installed.site)
    step(
        "installed package holds every app",
        lambda: installed.python_check(code, cwd=elsewhere, env=env).strip(),
    )
    deploy = [*manage, "check", "--deploy", "--fail-level", "WARNING"]
    step("check --deploy", lambda: run(deploy, cwd=work, env=env).strip())
    step("migrate", lambda: run([*manage, "migrate", "--noinput", "-v", "0"], cwd=work, env=env))
    step("collectstatic", lambda: run([*manage, "collectstatic", "--noinput"], cwd=work, env=env).strip())
    step("gunicorn answers", lambda: gunicorn_answers(installed, env))


def gunicorn_answers(installed: Installed, env: dict[str, str]) -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    bind = f"127.0.0.1:{port}"
    argv = [
        str(installed.python),
        "-m",
        "gunicorn",
        "specpact.wsgi:application",
        "--bind",
        bind,
        "--workers",
        "1",
    ]
    log_path = installed.root / "gunicorn.log"
    log = log_path.open("w")
    server = subprocess.Popen(argv, cwd=installed.work, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(base + "/login/", server, log_path)
        status, body = get(base + "/login/")
        if status != 200 or b"<form" not in body:
            raise ImageError(f"/login/ answered {status}")
        status, _ = get(base + "/static/favicon.svg")
        if status != 200:
            raise ImageError(f"/static/favicon.svg answered {status} (collectstatic, WhiteNoise)")
        status, body = get(base + "/api/v1/schema/", accept="application/vnd.oai.openapi+json")
        schema = json.loads(body) if status == 200 else {}
        if "openapi" not in schema or not schema.get("paths"):
            raise ImageError(f"/api/v1/schema/ answered {status}: {body[:300]!r}")
        return f"/login/, /static/favicon.svg, /api/v1/schema/ ({len(schema['paths'])} paths): 200"
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def wait_for(url: str, server: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise ImageError(f"gunicorn exited {server.returncode}:\n{log_path.read_text()[-3000:]}")
        try:
            get(url)
            return
        except OSError:
            time.sleep(0.3)
    raise ImageError(f"gunicorn did not answer {url} within 60 s")


def get(url: str, accept: str = "text/html") -> tuple[int, bytes]:
    # As the TLS-ending proxy in front sends it (SECURE_PROXY_SSL_HEADER): no HTTPS redirect.
    headers = {"Host": HOST, "Accept": accept, "X-Forwarded-Proto": "https"}
    request = urllib.request.Request(url, headers=headers)  # noqa: S310 (always http://127.0.0.1)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


_WORKER_IMPORTS = """
import importlib, pkgutil, worker
names = [m.name for m in pkgutil.walk_packages(worker.__path__, "worker.")]
for name in names:
    importlib.import_module(name)
print(len(names), "modules from", worker.__file__)
"""


def worker(installed: Installed) -> None:
    env = installed.env(SPECPACT_WORKER_HOME=str(installed.root / "worker-home"))
    cli = str(installed.venv / "bin" / "specpact-worker")
    step("specpact-worker --help", lambda: run([cli, "--help"], cwd=installed.work, env=env).splitlines()[0])
    # A console script, as the image's ENTRYPOINT: sys.path[0] is bin/, not the WORKDIR.
    step(
        "every worker module imports from the installed package",
        lambda: installed.python_check(_WORKER_IMPORTS, cwd=installed.root, env=env).strip(),
    )


@contextmanager
def temporary_database(base_url: str) -> Iterator[str]:
    """A database of the run's own on the server `base_url` names, dropped afterwards."""
    parts = urlsplit(base_url)
    name = f"specpact_image_{os.getpid()}"
    admin = urlunsplit(parts._replace(path="/postgres"))
    try:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.Error as exc:
        print(f"FAIL a database for the run on {parts.hostname}:{parts.port}: {exc}", flush=True)
        raise SystemExit(1) from exc
    try:
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def check_image(label: str, dockerfile: Path, root: Path) -> Installed:
    holder: list[Installed] = []

    def build() -> str:
        holder.append(Installed(root, dockerfile))
        return describe(holder[0].image, holder[0].work)

    step(f"{label}: file set from {dockerfile.relative_to(REPO)}", build)
    installed = holder[0]
    if label == "control plane":
        step("import check (django.setup(), URLconf) in the file set", lambda: imports(installed.work))
    step(f"{label}: pip install (non-editable) into a fresh venv", installed.install)
    return installed


def describe(image: Image, work: Path) -> str:
    count = sum(1 for p in work.rglob("*") if p.is_file())
    return f"{count} files in {image.workdir}"


def imports(work: Path) -> str:
    result = import_check(work)
    if result.returncode != 0:
        raise ImageError(result.stderr[-3000:])
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database-url",
        default="postgres://postgres@127.0.0.1:5432/specpact",
        help="a PostgreSQL server to make the run's database on (its name is replaced)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary root and say where it is")
    args = parser.parse_args(argv)
    started = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="specpact-image-check-"))
    try:
        plane = check_image("control plane", REPO / "deploy" / "Dockerfile", root / "control-plane")
        with temporary_database(args.database_url) as database_url:
            control_plane(plane, database_url, root / "control-plane" / "var")
        worker(check_image("worker", REPO / "deploy" / "worker.Dockerfile", root / "worker"))
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    print(f"image-check: both images start ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
