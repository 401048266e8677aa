"""deploy/image_fileset.py for the tests: deploy/ holds scripts, not a package."""

from __future__ import annotations

import importlib.util
import sys

from tests.support.launcher import REPO

_spec = importlib.util.spec_from_file_location("image_fileset", REPO / "deploy" / "image_fileset.py")
assert _spec and _spec.loader
image_fileset = importlib.util.module_from_spec(_spec)
sys.modules["image_fileset"] = image_fileset
_spec.loader.exec_module(image_fileset)
