"""`manage.py demo` (what `make demo` runs): the whole product on one machine, embedded.

It migrates the SQLite database, seeds the example routes through the real services,
then starts three processes and serves until Ctrl-C:
- the web app (runserver) on --addr,
- the control plane's Celery worker with beat (outbox relay, lost-run sweep),
- a local inference worker (`specpact-worker run`) that registers over the REST API with a
  bootstrap token and benchmarks the pending release with a real model on the CPU, then
  the advice runs (llama-server's too where it is installed: the worker launches it).
All three share the embedded filesystem broker under var/; nothing needs a server.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandParser

from audit_app.actors import Actor
from benchmarks_app.services.workers import bootstrap_token_create
from kernel.commands import ContextCommand
from specpact.demo.seed import (
    benchmark_release,
    seed_advice,
    seed_llamacpp_advice,
    seed_people,
    seed_routes,
    time_to_verdict_words,
)


class Command(ContextCommand):
    help = "Seed the example routes and serve the dashboard with a real CPU benchmark running."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--addr", default="127.0.0.1:8000", help="host:port to serve on")
        parser.add_argument("--seed-only", action="store_true", help="seed the data, then exit")

    def handle(self, *args: Any, **options: Any) -> None:
        call_command("migrate", interactive=False, verbosity=0)
        logins = seed_people()
        seed_routes()
        advice = seed_advice()
        llamacpp = seed_llamacpp_advice()
        # The first signed checkpoint of the audit chain (beat signs the next ones hourly).
        call_command("audit_checkpoint")
        if options["seed_only"]:
            self.stdout.write("Seeded. Logins: " + ", ".join(f"{x.username}/{x.password}" for x in logins))
            return
        addr = options["addr"]
        _, bootstrap = bootstrap_token_create(actor=Actor.system("system:demo"), note="demo CPU worker")
        processes = self._start(addr, bootstrap)
        self._banner(addr, logins, advice.pk, llamacpp.pk if llamacpp else None)
        self._supervise(processes)

    def _start(self, addr: str, bootstrap: str) -> dict[str, subprocess.Popen[bytes]]:
        var = Path(settings.VAR_DIR)
        logs = var / "log"
        logs.mkdir(parents=True, exist_ok=True)
        bin_dir = Path(sys.executable).parent
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        commands = {
            "web": [sys.executable, "manage.py", "runserver", addr, "--noreload"],
            "control": [
                str(bin_dir / "celery"), "-A", "specpact.celery", "worker", "--beat",
                "--pool", "solo", "--loglevel", "INFO",
                "--schedule", str(var / "celerybeat-schedule"),
            ],
            "worker": [
                str(bin_dir / "specpact-worker"), "run", "--url", f"http://{addr}",
                "--bootstrap-token", bootstrap, "--name", "demo-cpu",
                "--home", str(var / "demo-worker"), "--reregister",
            ],
        }  # fmt: skip
        processes = {}
        for name, argv in commands.items():
            log = open(logs / f"{name}.log", "ab")  # noqa: SIM115 - held for the child's lifetime
            processes[name] = subprocess.Popen(
                argv, cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT
            )
        return processes

    def _banner(self, addr: str, logins: list[Any], advice_id: int, llamacpp_id: int | None) -> None:
        release = benchmark_release()
        width = min(shutil.get_terminal_size().columns, 88)
        lines = [
            "=" * width,
            f"SpecPact demo: http://{addr}/",
            "",
            "Sign in as (passwords are new on every start):",
            *[f"  {x.username:<6} {x.role:<9} {x.password}" for x in logins],
            "",
            f"A real benchmark runs now on release {release.pk if release else '?'} (local-extraction):",
            "Gemma 3 270M on this CPU, prompt lookup vs. speculation off:",
            f"{time_to_verdict_words()}.",
            "The release page says what it is doing (model loading, benchmarking), then the verdict.",
            "Then an advice run: which prompt-lookup token count local-advice should run, on the same",
            f"worker: http://{addr}/advice/{advice_id}/ (a few minutes after the release's benchmark).",
            (
                f"And llama-server's n-gram types on local-advice-llamacpp: http://{addr}/advice/{llamacpp_id}/."
                if llamacpp_id is not None
                else "llama-server's n-gram types are not tried: it is not installed (make .venv/.llamacpp)."
            ),
            f"Logs: {Path(settings.VAR_DIR) / 'log'}/{{web,control,worker}}.log. Ctrl-C stops everything.",
            "=" * width,
        ]
        self.stdout.write("\n".join(lines))

    def _supervise(self, processes: dict[str, subprocess.Popen[bytes]]) -> None:
        stopping = False

        def stop(*_: Any) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGTERM, stop)
        try:
            while not stopping:
                for name, process in processes.items():
                    if process.poll() is not None:
                        self.stderr.write(f"{name} exited with {process.returncode}; see var/log/{name}.log")
                        stopping = True
                time.sleep(1)
        except KeyboardInterrupt:
            pass
        finally:
            for process in processes.values():
                if process.poll() is None:
                    process.terminate()
            deadline = time.monotonic() + 15
            for process in processes.values():
                try:
                    process.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    process.kill()
