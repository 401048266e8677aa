"""`specpact render` says each finding once and only true ones; `specpact import` takes a
command as pasted (one string, standard input, `--engine-version`) (issue 10)."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest
import yaml

from specpact.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "contracts/examples").glob("*.yaml"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_render_says_each_warning_and_note_once(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "render", str(path))
    assert code == 0 and out.strip()
    lines = [line for line in err.splitlines() if line]
    assert lines, "every example renders with notes"
    assert [line for line, n in Counter(lines).items() if n > 1] == []
    code, _, validated = run(capsys, "validate", str(path))
    warnings = [line for line in validated.splitlines() if line.startswith("warning: ")]
    # The render shows the same warnings validate does, once each.
    assert [line for line in lines if line.startswith("warning: ")] == warnings


def test_the_lane_warning_is_said_once_and_only_where_a_lane_has_no_workload(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, _, err = run(capsys, "render", str(ROOT / "contracts/examples/local-gemma-prompt-lookup.yaml"))
    assert err.count("allowed lane summarization has no workload") == 1
    # contract-summaries-ngram.yaml measures summarization: nothing to say about it.
    summaries = str(ROOT / "contracts/examples/contract-summaries-ngram.yaml")
    for command in ("render", "validate"):
        _, _, err = run(capsys, command, summaries)
        assert "has no workload" not in err


def test_a_render_note_that_repeats_a_warning_is_printed_as_the_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = yaml.safe_load((ROOT / "contracts/examples/support-chat-eagle3.yaml").read_text())
    doc["target"].pop("engine_version")  # read for the newest release: a warning
    path = tmp_path / "no-version.yaml"
    path.write_text(yaml.safe_dump(doc))
    code, _, err = run(capsys, "render", str(path))
    assert code == 0
    version = [line for line in err.splitlines() if "target.engine_version" in line or "newest" in line]
    assert len(version) == 1 and version[0].startswith("warning: "), err


def test_import_takes_one_pasted_string_with_docker_words(capsys: pytest.CaptureFixture[str]) -> None:
    pasted = (
        "docker run --gpus all --shm-size 1g -p 8080:80 -v $PWD/data:/data \\\n"
        "    ghcr.io/huggingface/text-generation-inference:3.3.4 \\\n"
        "    --model-id meta-llama/Llama-3.1-8B-Instruct --speculate 3"
    )
    code, out, err = run(capsys, "import", "--engine", "tgi", "--", pasted)
    assert code == 0, err
    doc = yaml.safe_load(out)
    assert doc["target"]["engine_version"] == "3.3.4"
    assert doc["speculation"] == {"method": "ngram", "num_speculative_tokens": 3}
    assert "unexpected argument" not in err


def test_import_reads_standard_input_and_takes_the_release(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pasted = (
        "python -m vllm.entrypoints.openai.api_server --model meta-llama/Llama-3.1-8B-Instruct \\\n"
        '  --speculative_config \'{"method": "ngram", "num_speculative_tokens": 4, '
        '"prompt_lookup_max": 4}\'\n'
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(pasted))
    code, out, err = run(capsys, "import", "--engine", "vllm", "--engine-version", "0.11.0", "--", "-")
    assert code == 0, err
    doc = yaml.safe_load(out)
    assert doc["target"]["engine_version"] == "0.11.0"
    assert doc["speculation"]["method"] == "ngram"
    assert "unresolved: target.engine_version" not in err


def test_import_of_a_renamed_flag_warns_with_the_new_spelling(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys,
        "import",
        "--engine",
        "llamacpp",
        "--",
        "llama-server -m t.gguf -md d.gguf --draft-max 8 --draft-min 2",
    )
    assert code == 0, err
    assert "--spec-draft-n-max" in err and "b8942" in err and "read by the rules of llama.cpp b7895" in err
    assert yaml.safe_load(out)["speculation"]["num_speculative_tokens"] == 8


def test_import_of_an_empty_paste_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("  \n"))
    code, _, err = run(capsys, "import", "--engine", "vllm", "--", "-")
    assert code == 2 and "give the engine command" in err
