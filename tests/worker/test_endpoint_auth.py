"""The worker resolves a live endpoint's token from a reference, within its own fences: a
spec can't have it send the worker's other secrets anywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from worker.harness.endpoint_auth import DIRS_VARIABLE, EndpointAuthError, bearer_token


def test_a_variable_named_for_endpoints_gives_the_token(monkeypatch: Any) -> None:
    monkeypatch.setenv("SPECPACT_ENDPOINT_PROD_EU", "tok-1")
    assert bearer_token(api_key=None, api_key_env="SPECPACT_ENDPOINT_PROD_EU", api_key_file=None) == "tok-1"
    assert bearer_token(api_key=None, api_key_env=None, api_key_file=None) is None
    assert (
        bearer_token(api_key="by-hand", api_key_env="SPECPACT_ENDPOINT_PROD_EU", api_key_file=None)
        == "by-hand"
    )


@pytest.mark.parametrize(
    "name", ["SPECPACT_WORKER_TOKEN", "AWS_SECRET_ACCESS_KEY", "specpact_endpoint_x", "X=Y"]
)
def test_other_variables_are_refused_even_when_set(monkeypatch: Any, name: str) -> None:
    monkeypatch.setenv("SPECPACT_WORKER_TOKEN", "the-workers-own")
    with pytest.raises(EndpointAuthError, match="reads only variables named SPECPACT_ENDPOINT_"):
        bearer_token(api_key=None, api_key_env=name, api_key_file=None)


def test_an_unset_variable_says_what_to_set() -> None:
    with pytest.raises(EndpointAuthError, match="set SPECPACT_ENDPOINT_NOT_THERE"):
        bearer_token(api_key=None, api_key_env="SPECPACT_ENDPOINT_NOT_THERE", api_key_file=None)


def test_files_only_under_the_workers_secret_dirs(tmp_path: Path, monkeypatch: Any) -> None:
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "canary").write_text("tok-file\n")
    outside = tmp_path / "credentials.json"
    outside.write_text('{"token": "the-workers-own"}')
    with pytest.raises(EndpointAuthError, match=f"only under {DIRS_VARIABLE} \\(not set\\)"):
        bearer_token(api_key=None, api_key_env=None, api_key_file=str(secrets / "canary"))
    monkeypatch.setenv(DIRS_VARIABLE, str(secrets))
    assert bearer_token(api_key=None, api_key_env=None, api_key_file=str(secrets / "canary")) == "tok-file"
    for path in (str(outside), str(secrets / ".." / "credentials.json"), "canary"):
        with pytest.raises(EndpointAuthError, match="reads secret files only under"):
            bearer_token(api_key=None, api_key_env=None, api_key_file=path)
    with pytest.raises(EndpointAuthError, match="can't be read"):
        bearer_token(api_key=None, api_key_env=None, api_key_file=str(secrets / "missing"))


def test_a_token_with_a_line_break_is_refused(monkeypatch: Any) -> None:
    monkeypatch.setenv("SPECPACT_ENDPOINT_BAD", "tok\r\nX-Injected: 1")
    with pytest.raises(EndpointAuthError, match="line break"):
        bearer_token(api_key=None, api_key_env="SPECPACT_ENDPOINT_BAD", api_key_file=None)
