"""The worker resolves a live endpoint's token only from a route's secret binding, within
its own fences, and sends it only to a host the binding names: a spec can't have it send
the worker's other secrets, or a bound one, anywhere else."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from worker.harness.endpoint_auth import DIRS_VARIABLE, EndpointAuthError, bearer_token
from worker.harness.plan import BoundSecret, OpenAIEngine

BASE = "http://10.0.0.5:8000"


def _bound(reference: str, kind: str = "env", hosts: tuple[str, ...] = ("10.0.0.5:8000",)) -> BoundSecret:
    return BoundSecret(route="contract-summaries", name="prod-key", kind=kind, reference=reference,
                       hosts=list(hosts))  # fmt: skip


def _token(binding: BoundSecret | None, base_url: str = BASE, api_key: str | None = None) -> str | None:
    return bearer_token(base_url=base_url, api_key=api_key, auth_binding=binding)


def test_a_binding_named_for_endpoints_gives_the_token(monkeypatch: Any) -> None:
    monkeypatch.setenv("SPECPACT_ENDPOINT_PROD_EU", "tok-1")
    assert _token(_bound("SPECPACT_ENDPOINT_PROD_EU")) == "tok-1"
    assert _token(None) is None
    assert _token(_bound("SPECPACT_ENDPOINT_PROD_EU"), api_key="by-hand") == "by-hand"  # bench --api-key


@pytest.mark.parametrize(
    ("hosts", "url", "sent"),
    [
        (("10.0.0.5:8000",), "http://10.0.0.5:8000/v1", True),
        (("10.0.0.5",), "http://10.0.0.5:9999", True),  # a host without a port: any port
        (("10.0.0.5:8000",), "http://10.0.0.5:9999", False),
        (("10.0.0.5:8000",), "http://10.0.0.6:8000", False),
        (("vllm.internal",), "http://VLLM.Internal:8000", True),
        (("vllm.internal:443",), "https://vllm.internal/v1", True),  # the scheme's port
        (("[fd00::5]:8000",), "http://[fd00:0::5]:8000", True),
        (("vllm.internal",), "http://vllm.internal.evil.example:8000", False),
    ],
)
def test_the_token_goes_only_to_a_host_the_binding_names(
    monkeypatch: Any, hosts: tuple[str, ...], url: str, sent: bool
) -> None:
    monkeypatch.setenv("SPECPACT_ENDPOINT_PROD_EU", "tok-1")
    binding = _bound("SPECPACT_ENDPOINT_PROD_EU", hosts=hosts)
    if sent:
        assert _token(binding, base_url=url) == "tok-1"
    else:
        with pytest.raises(EndpointAuthError, match="is sent only to") as refused:
            _token(binding, base_url=url)
        assert "tok-1" not in str(refused.value)


def test_a_spec_for_another_host_or_naming_a_secret_outside_a_binding_is_refused(monkeypatch: Any) -> None:
    monkeypatch.setenv("SPECPACT_ENDPOINT_PROD_EU", "tok-1")
    engine = {"kind": "openai", "base_url": "http://10.9.9.9:8000", "model": "m"}
    with pytest.raises(ValidationError, match=r"sent only to 10\.0\.0\.5:8000"):
        OpenAIEngine.model_validate(
            {**engine, "auth_binding": _bound("SPECPACT_ENDPOINT_PROD_EU").model_dump()}
        )
    for field in ("api_key_env", "api_key_file"):
        with pytest.raises(ValidationError, match="not a route's secret binding"):
            OpenAIEngine.model_validate({**engine, field: "SPECPACT_ENDPOINT_PROD_EU"})
    assert OpenAIEngine.model_validate(engine).auth_binding is None


@pytest.mark.parametrize(
    "name", ["SPECPACT_WORKER_TOKEN", "AWS_SECRET_ACCESS_KEY", "specpact_endpoint_x", "X=Y"]
)
def test_other_variables_are_refused_even_when_bound(monkeypatch: Any, name: str) -> None:
    monkeypatch.setenv("SPECPACT_WORKER_TOKEN", "the-workers-own")
    with pytest.raises(EndpointAuthError, match="reads only variables named SPECPACT_ENDPOINT_"):
        _token(_bound(name))


def test_an_unset_variable_says_what_to_set() -> None:
    with pytest.raises(EndpointAuthError, match="set SPECPACT_ENDPOINT_NOT_THERE"):
        _token(_bound("SPECPACT_ENDPOINT_NOT_THERE"))


def test_files_only_under_the_workers_secret_dirs(tmp_path: Path, monkeypatch: Any) -> None:
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "canary").write_text("tok-file\n")
    outside = tmp_path / "credentials.json"
    outside.write_text('{"token": "the-workers-own"}')
    with pytest.raises(EndpointAuthError, match=f"only under {DIRS_VARIABLE} \\(not set\\)"):
        _token(_bound(str(secrets / "canary"), kind="file"))
    monkeypatch.setenv(DIRS_VARIABLE, str(secrets))
    assert _token(_bound(str(secrets / "canary"), kind="file")) == "tok-file"
    for path in (str(outside), str(secrets / ".." / "credentials.json"), "canary", str(secrets)):
        with pytest.raises(EndpointAuthError, match="reads secret files only under"):
            _token(_bound(path, kind="file"))
    with pytest.raises(EndpointAuthError, match="can't be read"):
        _token(_bound(str(secrets / "missing"), kind="file"))


@pytest.mark.parametrize("where", ["out", "in", "in-a-folder", "folder-out"])
def test_a_link_inside_the_secret_dir_is_never_followed(tmp_path: Path, monkeypatch: Any, where: str) -> None:
    secrets = tmp_path / "secrets"
    (secrets / "real").mkdir(parents=True)
    (secrets / "real" / "token").write_text("tok-in-dir\n")
    (tmp_path / "outside").write_text("the-workers-own\n")
    monkeypatch.setenv(DIRS_VARIABLE, str(secrets))
    if where == "out":  # a link to a file outside: the realpath leaves the directory
        (secrets / "link").symlink_to(tmp_path / "outside")
        path = secrets / "link"
    elif where == "in":  # even one pointing inside is refused (O_NOFOLLOW)
        (secrets / "link").symlink_to(secrets / "real" / "token")
        path = secrets / "link"
    elif where == "in-a-folder":  # a linked folder on the way, pointing inside
        (secrets / "folder").symlink_to(secrets / "real")
        path = secrets / "folder" / "token"
    else:  # a linked folder on the way, pointing out
        (tmp_path / "elsewhere").mkdir()
        (tmp_path / "elsewhere" / "token").write_text("the-workers-own\n")
        (secrets / "folder").symlink_to(tmp_path / "elsewhere")
        path = secrets / "folder" / "token"
    with pytest.raises(EndpointAuthError, match="can't be read") as refused:
        _token(_bound(str(path), kind="file"))
    assert "the-workers-own" not in str(refused.value) and "tok-in-dir" not in str(refused.value)
    assert _token(_bound(str(secrets / "real" / "token"), kind="file")) == "tok-in-dir"


def test_a_fifo_in_the_secret_dir_is_refused_without_hanging(tmp_path: Path, monkeypatch: Any) -> None:
    os.mkfifo(tmp_path / "pipe")
    monkeypatch.setenv(DIRS_VARIABLE, str(tmp_path))
    with pytest.raises(EndpointAuthError, match="can't be read"):
        _token(_bound(str(tmp_path / "pipe"), kind="file"))


def test_a_token_with_a_line_break_is_refused(monkeypatch: Any) -> None:
    monkeypatch.setenv("SPECPACT_ENDPOINT_BAD", "tok\r\nX-Injected: 1")
    with pytest.raises(EndpointAuthError, match="line break"):
        _token(_bound("SPECPACT_ENDPOINT_BAD"))
