"""The published schema file stays the model's schema."""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings

from worker.spec import spec_json_schema


def test_the_schema_in_docs_is_the_models_schema() -> None:
    published = json.loads((Path(settings.BASE_DIR) / "docs" / "run-spec.schema.json").read_text())
    assert published == spec_json_schema(), "regenerate docs/run-spec.schema.json from worker.spec"
