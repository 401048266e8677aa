"""A throwaway PostgreSQL cluster for the chaos step's restart fault, so that the shared one
is never restarted: `python tests/chaos/throwaway_postgres.py -- CMD...` makes a cluster in
a temporary folder (initdb, trust on loopback; as the `postgres` OS user when run as root,
since PostgreSQL refuses to run as root), starts it on a free loopback port, runs CMD with
DATABASE_URL pointing at it and CHAOS_PG_DATA / CHAOS_PG_BIN naming it (the test restarts it
with `pg_ctl restart -m fast`, tests/chaos/test_postgres_restart.py), then stops it and
removes the folder. CMD's exit status is this script's."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path


def pg_bin() -> Path:
    """The server binaries (Debian keeps them out of PATH, under /usr/lib/postgresql/N/bin)."""
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    if not versions:
        raise SystemExit("no pg_ctl: install PostgreSQL's server package")
    return versions[-1].parent


def as_owner(argv: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


def pg_ctl(data: Path, *args: str) -> list[str]:
    return as_owner([str(pg_bin() / "pg_ctl"), "-D", str(data), "-w", "-t", "60", *args])


def main(command: list[str]) -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = Path(tempfile.mkdtemp(prefix="specpact-chaos-pg-"))
    data = root / "data"
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    subprocess.run(
        as_owner([str(pg_bin() / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"]),
        check=True,
        stdout=subprocess.DEVNULL,
    )
    options = f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={root} -c fsync=off"
    subprocess.run(pg_ctl(data, "-o", options, "-l", str(root / "server.log"), "start"), check=True)
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{port}/specpact_chaos",
        "CHAOS_PG_DATA": str(data),
        "CHAOS_PG_BIN": str(pg_bin()),
    }
    try:
        return subprocess.run(command, env=env).returncode
    finally:
        subprocess.run(pg_ctl(data, "-m", "immediate", "stop"), stdout=subprocess.DEVNULL)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    argv = sys.argv[1:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        raise SystemExit(__doc__)
    sys.exit(main(argv))
