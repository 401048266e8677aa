"""Managed engines: launch a server from its rendered argv, wait for health, stop it.

The server listens on a loopback port this worker picks free at launch, in place of the one
the specification names (`--port`): the control plane cannot know which ports are free on
the host a run lands on, and two workers on one host (or a second program holding 18080)
would otherwise share one port, the second engine failing to bind while the first one
answered its health check and was measured in its place.

The server's output goes to a temporary file, not a pipe: a chatty server can't block on
a full pipe, and the tail is at hand when it fails to start.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import IO
from urllib.parse import urlsplit, urlunsplit

from worker.engines.builtin import resolve_builtin
from worker.engines.llamacpp import resolve_argv0
from worker.hardware import gpu_facts
from worker.harness.plan import ManagedEngine

_TAIL_BYTES = 4000
# Servers that run on an NVIDIA GPU only: refused up front on a machine without one.
_GPU_ONLY = {"trtllm": "TensorRT-LLM (trtllm-serve) runs on NVIDIA GPUs only"}


class EngineStartError(RuntimeError):
    """The server exited or never became healthy; the message ends with its output tail."""


def _free_loopback_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def on_free_port(argv: list[str], base_url: str) -> tuple[list[str], str]:
    """(argv, base_url) moved to a free loopback port, where the argv says `--port N` (or
    `--port=N`: every engine we launch takes that flag) and the base URL is that port on
    loopback; otherwise as given (a server told no port of ours is not ours to move)."""
    url = urlsplit(base_url)
    if url.hostname not in {"127.0.0.1", "localhost", "::1"} or url.port is None:
        return argv, base_url
    told = str(url.port)
    at = [i for i, word in enumerate(argv) if word in {"--port", f"--port={told}"}]
    if len(at) != 1 or (argv[at[0]] == "--port" and argv[at[0] + 1 : at[0] + 2] != [told]):
        return argv, base_url
    port = str(_free_loopback_port())
    moved = list(argv)
    if moved[at[0]] == "--port":
        moved[at[0] + 1] = port
    else:
        moved[at[0]] = f"--port={port}"
    host = f"[{url.hostname}]" if ":" in url.hostname else url.hostname
    return moved, urlunsplit(url._replace(netloc=f"{host}:{port}"))


def _http_get(url: str, timeout: float = 5.0) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310 (http to our own server)
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, b""
    except (urllib.error.URLError, OSError, TimeoutError):
        return 0, b""


class ManagedServer:
    """``with ManagedServer(cfg) as srv:`` the server is healthy inside the block."""

    def __init__(self, cfg: ManagedEngine) -> None:
        self.cfg = cfg
        self.base_url = cfg.base_url  # where it listens once launched (on_free_port)
        self.root = cfg.base_url.rstrip("/").removesuffix("/v1")
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self.version: str | None = None
        self.argv: list[str] = list(cfg.argv)  # as launched (argv[0] resolved)
        self._files_dir: tempfile.TemporaryDirectory[str] | None = None

    @property
    def engine(self) -> ManagedEngine:
        """The configuration as launched: its base URL the port the server was given."""
        return self.cfg.model_copy(update={"base_url": self.base_url})

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def output_tail(self) -> str:
        if self._log is None:
            return ""
        path = Path(self._log.name)
        data = path.read_bytes()[-_TAIL_BYTES:] if path.exists() else b""
        return data.decode("utf-8", "replace")

    def _write_files(self, argv: list[str]) -> list[str]:
        """The files the argv names (TensorRT-LLM's YAML config), written to a private
        directory; each argv word that is such a name becomes the file's path."""
        if not self.cfg.files:
            return argv
        self._files_dir = tempfile.TemporaryDirectory(prefix="specpact-engine-files-")
        paths: dict[str, str] = {}
        for name, text in self.cfg.files.items():
            path = Path(self._files_dir.name) / Path(name).name
            path.write_text(text, encoding="utf-8")
            paths[name] = str(path)
        return [paths.get(word, word) for word in argv]

    def __enter__(self) -> ManagedServer:
        if self.cfg.server in _GPU_ONLY and not gpu_facts():
            raise EngineStartError(f"{_GPU_ONLY[self.cfg.server]}: this worker has no GPU (NVML found none)")
        self._log = tempfile.NamedTemporaryFile(prefix="specpact-engine-", suffix=".log", delete=False)
        env = {**os.environ, **self.cfg.env}
        argv, self.base_url = on_free_port(list(self.cfg.argv), self.cfg.base_url)
        self.root = self.base_url.rstrip("/").removesuffix("/v1")
        self.argv = self._write_files(resolve_builtin(resolve_argv0(argv)))
        try:
            self.proc = subprocess.Popen(
                self.argv, stdout=self._log, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
        except OSError as exc:
            self.stop()
            raise EngineStartError(f"could not launch {self.cfg.argv[0]!r}: {exc}") from exc
        try:
            self._wait_healthy()
            self.version = self._engine_version()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _wait_healthy(self) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + self.cfg.startup_timeout_s
        while time.monotonic() < deadline:
            code = self.proc.poll()
            if code is not None:
                raise EngineStartError(
                    f"the engine exited with code {code} before it was healthy; "
                    f"its output ends:\n{self.output_tail()}"
                )
            status, _ = _http_get(self.root + self.cfg.health_path, timeout=2)
            if status == 200 and self.proc.poll() is None:  # and ours still runs
                return
            time.sleep(0.5)
        raise EngineStartError(
            f"the engine was not healthy at {self.root}{self.cfg.health_path} after "
            f"{self.cfg.startup_timeout_s:g} s; its output ends:\n{self.output_tail()}"
        )

    def _engine_version(self) -> str | None:
        """From the server itself where it says (vLLM /version, TGI /info, SGLang server info,
        llama-server /props), else from ``argv[0] --version``."""
        for path, keys in (
            ("/version", ("version",)),
            ("/info", ("version",)),
            ("/get_server_info", ("version",)),
            ("/props", ("build_info",)),
        ):
            status, body = _http_get(self.root + path)
            if status != 200:
                continue
            try:
                data = json.loads(body)
            except ValueError:
                continue
            for key in keys:
                if isinstance(data, dict) and isinstance(data.get(key), str):
                    return data[key]
        try:
            out = subprocess.run(
                [self.argv[0], "--version"],
                capture_output=True,
                timeout=30,
                env={**os.environ, **self.cfg.env},
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        text = (out.stdout + out.stderr).decode("utf-8", "replace").strip()
        return text.splitlines()[-1][:200] if text else None

    def stop(self) -> None:
        """SIGTERM to the server's process group, SIGKILL after ``stop_timeout_s``."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=self.cfg.stop_timeout_s)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            except ProcessLookupError:
                pass
        self._cleanup_log()
        if self._files_dir is not None:
            self._files_dir.cleanup()
            self._files_dir = None

    def _cleanup_log(self) -> None:
        if self._log is not None:
            self._log.close()
            Path(self._log.name).unlink(missing_ok=True)
            self._log = None
