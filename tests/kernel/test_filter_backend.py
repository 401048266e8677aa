"""The API's filter backend (kernel/api/filters.py) skips a FilterSet the request names
no parameter of: that must be what the FilterSet would have answered. Held here for every
FilterSet of the project: none marks a filter required or overrides `filter_queryset`, and
with no data each leaves its queryset's SQL as it was; through the API, a filter given
still filters and a bad value is still refused."""

from __future__ import annotations

import importlib
from typing import Any

import django_filters
import pytest
from django.apps import apps
from django.http import QueryDict
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def _project_filtersets() -> list[type[django_filters.FilterSet]]:
    found = []
    for config in apps.get_app_configs():
        try:
            module = importlib.import_module(f"{config.name}.filtersets")
        except ModuleNotFoundError:
            continue
        found += [
            v
            for v in vars(module).values()
            if isinstance(v, type)
            and issubclass(v, django_filters.FilterSet)
            and v.__module__ == module.__name__
        ]
    return found


def test_every_filterset_answers_its_queryset_unchanged_when_given_nothing() -> None:
    filtersets = _project_filtersets()
    assert len(filtersets) >= 7  # runs, workers, releases, routes, versions, audit, tokens
    for filterset_class in filtersets:
        assert "filter_queryset" not in vars(filterset_class), filterset_class
        assert not [n for n, f in filterset_class.base_filters.items() if f.extra.get("required")], (
            filterset_class
        )
        model = filterset_class._meta.model
        given = model._default_manager.order_by("pk")
        filterset = filterset_class(QueryDict(""), queryset=given)
        assert filterset.is_valid(), (filterset_class, filterset.errors)
        assert str(filterset.qs.query) == str(given.query), filterset_class


def test_the_runs_list_still_filters_and_refuses_a_bad_value(viewer: Any) -> None:
    client = APIClient()
    client.force_login(viewer)
    assert client.get("/api/v1/runs/").status_code == 200
    assert client.get("/api/v1/runs/?state=queued").json()["results"] == []
    refused = client.get("/api/v1/runs/?state=nonsense")
    assert refused.status_code == 400 and "state" in refused.content.decode()
