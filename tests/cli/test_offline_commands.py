"""The offline CLI: `specpact validate|render|import|schema`, run as a user runs them,
checked by exit code (DESIGN §8: 0 success, 2 invalid input or usage) and output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from specpact.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = (ROOT / "../shared/contracts/examples").resolve()
EAGLE3 = EXAMPLES / "support-chat-eagle3.yaml"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_prints_ok_and_the_digest(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "validate", str(EAGLE3))
    assert code == 0
    assert out.startswith("ok sha256:") and len(out.split()[1]) == 71
    assert err == ""


def test_validate_prints_warnings_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "validate", str(EXAMPLES / "local-gemma-prompt-lookup.yaml"))
    assert code == 0 and out.startswith("ok ")
    assert "warning: measurement.workloads: allowed lane summarization has no workload" in err


def test_validate_reads_json_by_extension_and_yaml_and_json_agree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = yaml.safe_load(EAGLE3.read_text())
    as_json = tmp_path / "contract.json"
    as_json.write_text(json.dumps(data))
    no_extension = tmp_path / "contract"
    no_extension.write_text(json.dumps(data))  # JSON by content
    outputs = {run(capsys, "validate", str(p))[1] for p in (EAGLE3, as_json, no_extension)}
    assert len(outputs) == 1


def test_validate_lists_every_error_as_path_colon_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = yaml.safe_load(EAGLE3.read_text())
    data["route"] = "Support Chat"
    data["lanes"]["excluded"].append("chat")
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    code, out, err = run(capsys, "validate", str(bad))
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert (
        "route: a route is a slug: 1-64 lowercase letters, digits and dashes, "
        "starting and ending with a letter or digit" in lines
    )
    assert "lanes.excluded[2]: lane chat is both allowed and excluded" in lines
    assert "measurement.workloads.chat: lane chat is excluded: a workload cannot be measured on it" in lines


def test_validate_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "--json", str(EAGLE3))
    assert code == 0 and json.loads(out)["valid"] is True
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: specpact/v9\n")
    code, out, _ = run(capsys, "validate", "--json", str(bad))
    assert code == 2
    assert json.loads(out)["errors"] == [
        {"path": "apiVersion", "message": "unknown apiVersion 'specpact/v9'; this server reads specpact/v1"}
    ]


def test_validate_reports_parse_errors_and_missing_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "dup.yaml"
    broken.write_text("route: a\nroute: b\n")
    code, _, err = run(capsys, "validate", str(broken))
    assert code == 2 and "duplicate key 'route'" in err and "line 2" in err
    code, _, err = run(capsys, "validate", str(tmp_path / "missing.yaml"))
    assert code == 2 and "cannot read" in err
    huge = tmp_path / "huge.yaml"
    huge.write_bytes(b"# " + b"x" * 2_000_000)
    code, _, err = run(capsys, "validate", str(huge))
    assert code == 2 and "larger than the 262144-byte limit" in err


def test_render_prints_the_command_and_notes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "render", str(EAGLE3), "--engine", "vllm")
    assert code == 0
    assert out.startswith("vllm serve meta-llama/Llama-3.1-8B-Instruct --revision ")
    assert '--speculative-config \'{"method": "eagle3"' in out
    assert "note: " in err


def test_render_defaults_to_the_contracts_engine_and_has_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "render", str(EXAMPLES / "local-gemma-prompt-lookup.yaml"), "--json")
    assert code == 0
    result = json.loads(out)
    assert result["engine"] == "transformers"
    assert result["config"] == {"prompt_lookup_num_tokens": 10, "do_sample": False}
    assert result["argv"][0] == "transformers-generate" and result["notes"]


def test_render_for_an_engine_that_cannot_run_the_method_is_invalid_input(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "render", str(EAGLE3), "--engine", "tgi")
    assert code == 2 and out == ""
    assert err.startswith("speculation.method: TGI cannot run method eagle3")


def test_render_for_another_engine_translates_and_names_what_it_drops(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(
        capsys, "render", str(EXAMPLES / "contract-summaries-ngram.yaml"), "--engine", "sglang"
    )
    assert code == 0 and out.startswith("python -m sglang.launch_server ")
    assert "note: translated from a contract written for vLLM" in err
    assert "dropped speculation.params.prompt_lookup_min (2)" in err  # SGLang has no lookup window now


def test_import_prints_yaml_and_names_the_fields_left(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys,
        "import",
        "--engine",
        "vllm",
        "--",
        "vllm",
        "serve",
        "meta-llama/Llama-3.1-8B-Instruct",
        "--speculative-config",
        '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4}',
    )
    assert code == 0
    document = yaml.safe_load(out)
    assert document["speculation"] == {
        "method": "ngram",
        "num_speculative_tokens": 4,
        "params": {"prompt_lookup_max": 4},
    }
    assert out.startswith("# Imported by specpact")
    for path in ("lanes", "measurement", "rollback", "target.engine_version", "target.revision"):
        assert f"unresolved: {path}: " in err


def test_an_imported_document_validates_after_saving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys,
        "import",
        "--engine",
        "tgi",
        "--",
        "text-generation-launcher",
        "--model-id",
        "m/x",
        "--speculate",
        "3",
    )
    assert code == 0
    saved = tmp_path / "imported.yaml"
    saved.write_text(out)
    code, out, _ = run(capsys, "validate", str(saved))
    assert code == 0 and out.startswith("ok sha256:")


def test_import_errors_and_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "import", "--engine", "vllm", "--", "vllm", "serve")[0] == 2
    assert run(capsys, "import", "--engine", "vllm")[0] == 2
    assert run(capsys, "import", "--engine", "triton", "--", "x")[0] == 2
    assert run(capsys, "frobnicate")[0] == 2
    assert run(capsys)[0] == 2
    assert run(capsys, "validate")[0] == 2


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "validate" in out and "import" in out


def test_schema_prints_the_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema")
    assert code == 0 and json.loads(out)["$id"] == "https://specpact.dev/schema/contract/v1.json"


def test_the_installed_entry_point_runs_as_a_process(tmp_path: Path) -> None:
    """The real process: exit codes as a shell sees them, stdin as the file."""
    ok = subprocess.run(
        [sys.executable, "-m", "specpact.cli.main", "validate", "-"],
        input=EAGLE3.read_bytes(),
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.decode().startswith("ok sha256:")
    bad = subprocess.run(
        [sys.executable, "-m", "specpact.cli.main", "validate", "-"],
        input=b"\xff\xfe not utf-8",
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert bad.returncode == 2
    assert b"not valid UTF-8: bad byte at byte offset 0" in bad.stderr
