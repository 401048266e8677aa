"""worker/secrets.py, the one reader of a secret reference, used by the worker and the
control plane with their own fences."""

from __future__ import annotations

from pathlib import Path

import pytest

from worker.secrets import SecretUnavailable, normalise_host, read_bound_secret, read_secret


def _read(ref: dict[str, str], dirs: list[Path] | None = None, environ: dict[str, str] | None = None) -> str:
    return read_secret(
        ref,
        env_prefix="ACME_",
        secret_dirs=dirs or [],
        environ=environ or {},
        reader="the reader",
        dirs_setting="ACME_DIRS",
    )


def test_a_variable_is_read_only_with_the_prefix() -> None:
    environ = {"ACME_TOKEN": "tok", "SECRET_KEY": "own"}
    assert _read({"env": "ACME_TOKEN"}, environ=environ) == "tok"
    with pytest.raises(SecretUnavailable, match="the reader reads only variables named ACME_"):
        _read({"env": "SECRET_KEY"}, environ=environ)
    with pytest.raises(SecretUnavailable, match="ACME_GONE is not set on the reader: set ACME_GONE"):
        _read({"env": "ACME_GONE"}, environ=environ)


def test_a_file_is_read_only_under_the_directories_and_up_to_4_kib(tmp_path: Path) -> None:
    (tmp_path / "ok").write_text("tok-file\n")
    (tmp_path / "big").write_text("x" * 4097)
    (tmp_path / "two").write_text("tok\nX-Injected: 1")
    dirs = [tmp_path]
    assert _read({"file": str(tmp_path / "ok")}, dirs) == "tok-file"
    with pytest.raises(SecretUnavailable, match="only under ACME_DIRS \\(not set\\)"):
        _read({"file": str(tmp_path / "ok")})
    with pytest.raises(SecretUnavailable, match="only under ACME_DIRS"):
        _read({"file": str(tmp_path / ".." / "ok")}, dirs)
    with pytest.raises(SecretUnavailable, match="empty or longer than 4 KiB"):
        _read({"file": str(tmp_path / "big")}, dirs)
    with pytest.raises(SecretUnavailable, match="line break"):
        _read({"file": str(tmp_path / "two")}, dirs)


def test_a_reference_of_another_kind_is_refused() -> None:
    with pytest.raises(SecretUnavailable, match='"env": NAME'):
        _read({"vault": "x"})


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("VLLM.Internal", "vllm.internal"),
        ("vllm.internal:8000", "vllm.internal:8000"),
        ("10.0.0.5:08000", "10.0.0.5:8000"),
        ("::1", "[::1]"),
        ("[FD00:0::5]:8000", "[fd00::5]:8000"),
    ],
)
def test_a_bound_host_is_stored_in_one_spelling(given: str, stored: str) -> None:
    assert normalise_host(given) == stored


@pytest.mark.parametrize(
    "given", ["", "http://h", "h/path", "user@h", "h:0", "h:70000", "[10.0.0.5]", "[::1", "a b", " h"]
)
def test_what_is_not_a_host_is_refused(given: str) -> None:
    with pytest.raises(ValueError):
        normalise_host(given)


def test_a_url_whose_host_is_not_bound_gets_no_secret() -> None:
    environ = {"ACME_TOKEN": "tok"}
    kwargs = {
        "name": "k",
        "kind": "env",
        "reference": "ACME_TOKEN",
        "hosts": ["10.0.0.5:8000"],
        "env_prefix": "ACME_",
        "secret_dirs": [],
        "environ": environ,
        "reader": "the reader",
        "dirs_setting": "ACME_DIRS",
    }
    assert (
        read_bound_secret(urls=["http://10.0.0.5:8000/v1", "http://10.0.0.5:8000/metrics"], **kwargs) == "tok"
    )
    with pytest.raises(SecretUnavailable, match=r"not to 10\.0\.0\.5:9000") as refused:
        read_bound_secret(urls=["http://10.0.0.5:8000/v1", "http://10.0.0.5:9000/metrics"], **kwargs)
    assert "tok" not in str(refused.value).replace("ACME_TOKEN", "")
