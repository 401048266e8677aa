"""The managed engine for `trtllm-serve` (issue 23): the YAML its argv names is written before
launch and the argv given its path; without an NVIDIA GPU it is refused before anything starts."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import worker.engines.managed as managed
from contracts_app.document import render, validate_document
from worker.engines.managed import EngineStartError, ManagedServer
from worker.harness.plan import ManagedEngine


def test_the_yaml_the_argv_names_is_written_and_its_path_given(tmp_path: Path) -> None:
    # A stand-in server: prints the file its --config names, then exits (no GPU needed: generic).
    out = tmp_path / "seen.txt"
    script = (
        f"import sys; a=sys.argv; p=a[a.index('--config')+1]; "
        f"open({str(out)!r},'w').write(open(p).read()); sys.exit(3)"
    )
    cfg = ManagedEngine(
        argv=[sys.executable, "-c", script, "--config", "speculative.yaml"],
        files={"speculative.yaml": "speculative_config:\n  decoding_type: MTP\n"},
        base_url="http://127.0.0.1:9",
        model="m",
        startup_timeout_s=30,
    )
    server = ManagedServer(cfg)
    with pytest.raises(EngineStartError, match="exited with code 3"):
        server.__enter__()
    assert out.read_text() == "speculative_config:\n  decoding_type: MTP\n"
    written = server.argv[server.argv.index("--config") + 1]
    assert written != "speculative.yaml" and not Path(written).exists()  # removed when stopped


def test_trtllm_serve_is_refused_without_a_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(managed, "gpu_facts", lambda: [])
    doc = validate_document(_contract())
    rendered = render(doc)
    cfg = ManagedEngine(argv=rendered.argv, files=rendered.files, base_url="http://127.0.0.1:9", model="m",
                        server="trtllm")  # fmt: skip
    server = ManagedServer(cfg)
    with pytest.raises(EngineStartError, match="NVIDIA GPUs only: this worker has no GPU"):
        server.__enter__()
    assert server.proc is None


def _contract() -> dict:
    import yaml

    return yaml.safe_load(Path("docs/examples/support-chat-eagle3-trtllm.yaml").read_text(encoding="utf-8"))
