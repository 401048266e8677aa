"""Every operation of the API has a summary: the docs' list of operations reads as
sentences (drf-spectacular `extend_schema(summary=...)`), not bare paths."""

from __future__ import annotations

from drf_spectacular.generators import SchemaGenerator

METHODS = ("get", "post", "put", "patch", "delete")


def test_every_api_operation_has_a_summary() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    operations = [
        (method.upper(), path, op)
        for path, item in schema["paths"].items()
        for method, op in item.items()
        if method in METHODS
    ]
    assert len(operations) > 50
    missing = sorted(
        f"{method} {path}" for method, path, op in operations if not op.get("summary", "").strip()
    )
    assert missing == [], f"{len(missing)} operations without a summary:\n" + "\n".join(missing)
