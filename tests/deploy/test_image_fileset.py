"""The image's file set (deploy/image_fileset.py, the fast half of `make image-check`): a
Dockerfile or .dockerignore that leaves an app out gives a file set where Django fails to
start, naming the missing module."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest

from specpact.apps_list import PROJECT_APPS
from tests.deploy.fileset import image_fileset
from tests.support.launcher import REPO

DOCKERFILE = REPO / "deploy" / "Dockerfile"
DOCKERIGNORE = REPO / ".dockerignore"


def build(tmp_path: Path, *, dockerfile: Path = DOCKERFILE, dockerignore: Path | None = DOCKERIGNORE) -> Path:
    _, work = image_fileset.build_fileset(
        context=REPO, dockerfile=dockerfile, dockerignore=dockerignore, rootfs=tmp_path / "rootfs"
    )
    return work


# A Django start in a subprocess: seconds, so with the integration tests.
@pytest.mark.integration
def test_the_control_plane_file_set_starts_django_with_every_app_from_itself(tmp_path):
    work = build(tmp_path)
    result = image_fileset.import_check(work)
    assert result.returncode == 0, result.stderr
    loaded = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    for app in PROJECT_APPS:
        assert loaded[app].startswith(str(work)), (app, loaded[app])
    assert (work / "manage.py").is_file()
    assert (work / "templates" / "base.html").is_file()
    assert (work / "static" / "favicon.svg").is_file()
    assert not (work / "tests").exists()
    assert not (work / ".venv").exists()


# A Django start in a subprocess: seconds, so with the integration tests.
@pytest.mark.integration
def test_it_fails_naming_an_app_that_dockerignore_drops(tmp_path):
    ignore = tmp_path / ".dockerignore"
    ignore.write_text(DOCKERIGNORE.read_text(encoding="utf-8") + "\nworkloads_app\n", encoding="utf-8")
    result = image_fileset.import_check(build(tmp_path, dockerignore=ignore))
    assert result.returncode != 0
    assert "No module named 'workloads_app'" in result.stderr


# A Django start in a subprocess: seconds, so with the integration tests.
@pytest.mark.integration
def test_it_fails_naming_an_app_that_a_copy_list_leaves_out(tmp_path):
    # The Dockerfile as it once was: one COPY line per app, one of them forgotten.
    lines = ["FROM python:3.11-slim-bookworm", "WORKDIR /app", "COPY pyproject.toml README.md manage.py ./"]
    lines += [f"COPY {app} ./{app}" for app in PROJECT_APPS if app != "live_app"]
    lines += ["COPY templates ./templates", "COPY static ./static", "RUN pip install ."]
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = image_fileset.import_check(build(tmp_path, dockerfile=dockerfile, dockerignore=None))
    assert result.returncode != 0
    assert "No module named 'live_app'" in result.stderr


def test_a_copy_of_a_missing_path_stops_the_build(tmp_path):
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text("FROM scratch\nWORKDIR /app\nCOPY no_such_app ./no_such_app\n", encoding="utf-8")
    with pytest.raises(image_fileset.ImageError, match="no_such_app"):
        build(tmp_path, dockerfile=dockerfile)


def test_the_dockerfiles_install_their_file_set_non_editable():
    plane = image_fileset.parse_dockerfile(DOCKERFILE)
    worker = image_fileset.parse_dockerfile(REPO / "deploy" / "worker.Dockerfile")
    assert plane.local_installs == [(".", PurePosixPath("/app"))]
    assert worker.local_installs == [(".[worker]", PurePosixPath("/app"))]
    assert worker.index_installs == ["torch==2.13.0"]
    assert plane.env["DEBUG"] == "0"


def test_both_images_read_the_contexts_dockerignore():
    for name in ("Dockerfile", "worker.Dockerfile"):
        assert image_fileset.dockerignore_for(REPO, REPO / "deploy" / name) == DOCKERIGNORE


def test_dockerignore_matches_as_docker_does():
    ignore = image_fileset.DockerIgnore(
        "# a comment\n.venv\n**/__pycache__\n/var\n*.log\n!keep.log\nbuild/\n"
    )
    assert ignore.excludes(".venv/lib/site.py")
    assert ignore.excludes("kernel/api/__pycache__/views.cpython-311.pyc")
    assert ignore.excludes("var/staticfiles/x.css")
    assert ignore.excludes("build/lib/a.py")
    assert ignore.excludes("debug.log")
    assert not ignore.excludes("keep.log")
    assert not ignore.excludes("specpact/debug.log")
    assert not ignore.excludes("specpact/var.py")
    assert not ignore.excludes("live_app/models.py")


def test_continued_lines_and_comments_inside_them_are_one_instruction():
    text = "RUN pip install . \\\n    # a comment Docker drops\n    && echo done\nCOPY . .\n"
    assert image_fileset.instructions(text) == [("RUN", "pip install . && echo done"), ("COPY", ". .")]
