"""`specpact-worker bench` end to end, and managed engines: launch, health, stop."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.support.launcher import REFERENCE, REPO, emulator_argv, reserved_port
from tests.support.prompts import write_prompts
from worker.engines.managed import EngineStartError, ManagedServer, on_free_port
from worker.harness.plan import BenchPlan, ManagedEngine
from worker.harness.results.result import BenchResult
from worker.harness.runner import run_benchmark

LEVEL_KEYS = {"ttft_ms", "tpot_ms", "itl_chunk_ms", "e2e_ms", "tokens_per_chunk", "output_tokens_per_s",
              "requests_per_s", "errors", "requests"}  # fmt: skip


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "worker.cli", *args], cwd=REPO, capture_output=True, text=True, timeout=120
    )


def test_bench_writes_one_entry_per_level_and_a_table(reference_server, tmp_path: Path) -> None:
    server = reference_server("--ttft-ms", "5", "--step-ms", "2")
    out = tmp_path / "r.json"
    done = _cli(
        "bench", "--base-url", server.base_url, "--model", "ref", "--concurrency", "1,4",
        "--requests", "6", "--max-tokens", "32", "--workload", "extraction", "--api", "chat",
        "--server", "vllm", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    BenchResult.model_validate(data)
    assert [lv["concurrency"] for lv in data["levels"]] == [1, 4]
    assert all(set(lv) >= LEVEL_KEYS for lv in data["levels"])
    assert len(data["levels"][1]["requests"]) == 6
    assert "TTFT p50" in done.stdout and "c=4" in done.stdout
    assert "[concurrency=4]" in done.stderr  # the live progress line


def test_bench_refuses_bad_input_with_exit_code_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": 3}\n')
    done = _cli("bench", "--base-url", "http://127.0.0.1:9", "--model", "m", "--requests", "1",
                "--workload", str(bad), "--out", str(tmp_path / "o.json"))  # fmt: skip
    assert done.returncode == 2 and "bad.jsonl line 1: prompt" in done.stderr
    done = _cli("bench", "--base-url", "http://127.0.0.1:9", "--model", "m", "--requests", "0",
                "--out", str(tmp_path / "o.json"))  # fmt: skip
    assert done.returncode == 2 and "requests_per_level" in done.stderr


def test_every_request_failing_exits_1(tmp_path: Path) -> None:
    with reserved_port() as port:  # bound, never listening: connections are refused
        done = _cli("bench", "--base-url", f"http://127.0.0.1:{port}", "--model", "m", "--requests", "2",
                    "--warmup", "0", "--out", str(tmp_path / "o.json"))  # fmt: skip
    assert done.returncode == 1
    assert json.loads((tmp_path / "o.json").read_text())["levels"][0]["errors"] == 2


def test_a_managed_engine_is_launched_on_a_free_port_benchmarked_and_stopped(tmp_path: Path) -> None:
    # The specification's port is held by another server (as when two workers share a host):
    # the worker launches its engine on a free port of its own and measures that one.
    with socket.socket() as neighbour:
        neighbour.bind(("127.0.0.1", 0))
        neighbour.listen()
        _launch_benchmark_and_stop(tmp_path, neighbour.getsockname()[1])


def test_only_a_loopback_port_the_argv_names_is_moved() -> None:
    argv = ["vllm", "serve", "m", "--port", "18080"]
    moved, url = on_free_port(argv, "http://127.0.0.1:18080/v1")
    port = int(moved[moved.index("--port") + 1])
    assert port != 18080 and url == f"http://127.0.0.1:{port}/v1" and moved[:3] == argv[:3]
    moved, url = on_free_port(["llama-server", "--port=18080"], "http://localhost:18080")
    assert moved[1] == f"--port={urlsplit(url).port}" and urlsplit(url).port != 18080
    for argv, base_url in (
        (["srv", "--port", "9000"], "http://127.0.0.1:18080"),  # not the port the URL names
        (["srv"], "http://127.0.0.1:18080"),  # no --port: the server's own default
        (["srv", "--port", "18080"], "http://gpu-7.internal:18080"),  # not on this host
    ):
        assert on_free_port(argv, base_url) == (argv, base_url)


def _launch_benchmark_and_stop(tmp_path: Path, port: int) -> None:
    argv = emulator_argv(*REFERENCE, "--ttft-ms", "5", port=port)
    plan = BenchPlan.model_validate(
        {
            "engine": {"kind": "managed", "argv": argv, "base_url": f"http://127.0.0.1:{port}",
                       "model": "ref", "server": "vllm", "startup_timeout_s": 60,
                       "env": {"PYTHONPATH": str(REPO)}},
            "workload": str(write_prompts(tmp_path / "p.jsonl", 6)),
            "concurrency": [2],
            "requests_per_level": 4,
            "max_tokens": 16,
        }
    )  # fmt: skip
    phases: list[str] = []
    result = run_benchmark(plan, progress=lambda p: phases.append(p.phase) if p.phase not in phases else None)
    launched = urlsplit(result.engine.base_url).port
    assert launched is not None and launched != port
    assert result.engine.command == [
        *argv[: argv.index("--port") + 1],
        str(launched),
        *argv[argv.index("--port") + 2 :],
    ]
    assert result.levels[0].errors == 0
    # The harness says what it is doing, as soon as it changes: the server starting, then the benchmark.
    assert phases == ["engine_starting", "benchmarking"]
    assert result.memory.peak_gib is not None and result.memory.peak_gib > 0  # the server's RSS, sampled
    with socket.socket() as s:  # stopped: nothing listens there any more
        assert s.connect_ex(("127.0.0.1", launched)) != 0


def test_an_engine_that_dies_on_start_reports_its_output(tmp_path: Path) -> None:
    cfg = ManagedEngine(
        argv=[sys.executable, "-c", "import sys; print('CUDA out of memory while loading'); sys.exit(3)"],
        base_url="http://127.0.0.1:9",
        model="m",
        startup_timeout_s=30,
    )
    with (
        pytest.raises(EngineStartError, match=r"exited with code 3(.|\n)*CUDA out of memory"),
        ManagedServer(cfg),
    ):
        pass


def test_an_engine_that_never_gets_healthy_is_stopped_after_the_timeout() -> None:
    with reserved_port() as port:
        cfg = ManagedEngine(
            argv=[sys.executable, "-c", "import time; print('loading weights', flush=True); time.sleep(60)"],
            base_url=f"http://127.0.0.1:{port}",
            model="m",
            startup_timeout_s=2,
            stop_timeout_s=5,
        )
        server = ManagedServer(cfg)
        with pytest.raises(EngineStartError, match=r"not healthy(.|\n)*loading weights"):
            server.__enter__()
    assert server.proc is None  # stopped
