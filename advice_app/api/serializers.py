"""What the advice endpoints take and give. The input's shape is checked here; what it
means (methods the engine release runs, lanes the contract measures, the budget the
advisor needs) by the service, each problem a field error."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from advice_app.candidates import MAX_CANDIDATES
from advice_app.models import AdviceRun
from advice_app.selectors import advice_runs, gpu_minutes_spent, spent_per_lane
from advice_app.services.runs import MAX_BUDGET, MAX_GPU_MINUTES, MAX_SEED


class AdviceCreateIn(serializers.Serializer[Any]):
    lanes = serializers.ListField(
        child=serializers.CharField(max_length=64), min_length=1, max_length=16,
        help_text="Lanes of the active version's measurement.workloads.",
    )  # fmt: skip
    candidates = serializers.ListField(
        child=serializers.DictField(),
        min_length=1,
        max_length=MAX_CANDIDATES,
        help_text="Each {method, tokens, name?, params? (speculation.params), assets? (asset entries), "
        "memory_gib?}; the baseline (speculation off) is always measured.",
    )
    budget = serializers.IntegerField(
        min_value=1, max_value=MAX_BUDGET, help_text="Requests per lane, both arms together."
    )
    budget_gpu_minutes = serializers.FloatField(
        min_value=0.001, max_value=MAX_GPU_MINUTES, required=False, allow_null=True, default=None,
        help_text="Optional: at most this many minutes of worker time, all lanes together "
        "(checked between rounds).",
    )  # fmt: skip
    seed = serializers.IntegerField(min_value=0, max_value=MAX_SEED, required=False, default=0)
    options = serializers.DictField(
        required=False, default=dict, help_text="{looks, n_start, n_boot, pool (the runs' pool, e.g. cpu)}"
    )


def _candidate(c: dict[str, Any]) -> dict[str, Any]:
    keys = ("name", "method", "tokens", "assets", "memory_gib", "schedulable", "params", "asset_entries")
    return {k: c.get(k) for k in keys}


class AdviceOut(serializers.ModelSerializer[AdviceRun]):
    route = serializers.CharField(source="route.slug")
    based_on = serializers.IntegerField(source="based_on.number")
    candidates = serializers.SerializerMethodField()
    verdicts = serializers.SerializerMethodField()
    draft_version = serializers.IntegerField(source="draft_version.number", allow_null=True, default=None)
    release = serializers.IntegerField(source="release_id", allow_null=True)
    created_by = serializers.CharField(source="created_by.username", allow_null=True, default=None)

    class Meta:
        model = AdviceRun
        fields = [
            "id", "route", "state", "based_on", "engine", "engine_release", "lanes", "candidates", "budget",
            "budget_gpu_minutes", "seed", "verdicts", "draft_version", "release", "last_error", "created_by",
            "created_at", "finished_at",
        ]  # fmt: skip

    def get_candidates(self, obj: AdviceRun) -> list[dict[str, Any]]:
        return [_candidate(c) for c in obj.candidates]

    def get_verdicts(self, obj: AdviceRun) -> dict[str, str]:
        """Per finished lane: candidate, cant_tell or speculation_off."""
        return {lane: rec["verdict"] for lane, rec in obj.recommendations.items()}


class AdviceDetailOut(AdviceOut):
    recommendations = serializers.JSONField()
    options = serializers.JSONField()
    spent = serializers.SerializerMethodField()
    gpu_minutes_spent = serializers.SerializerMethodField()
    runs = serializers.SerializerMethodField()

    class Meta(AdviceOut.Meta):
        fields = [*AdviceOut.Meta.fields, "recommendations", "options", "spent", "gpu_minutes_spent", "runs"]

    def get_spent(self, obj: AdviceRun) -> dict[str, int]:
        return spent_per_lane(obj)

    def get_gpu_minutes_spent(self, obj: AdviceRun) -> float:
        """Minutes its runs have held a worker (what `budget_gpu_minutes` counts)."""
        return round(gpu_minutes_spent(obj), 3)

    def get_runs(self, obj: AdviceRun) -> list[dict[str, Any]]:
        """Its benchmark runs (GET runs/{id}/), each with what it measures."""
        out = []
        for run in advice_runs(obj):
            entry = obj.dispatched.get(str(run.pk)) or {}
            out.append(
                {
                    "id": run.pk,
                    "state": run.state,
                    "lane": run.lane,
                    "candidate": entry.get("candidate"),
                    "levels": entry.get("levels"),
                    "requests_per_level": entry.get("n"),
                    "round": entry.get("round"),
                    "retry": entry.get("retry"),
                    "recorded": entry.get("status") == "recorded",
                    "last_error": run.last_error,
                }
            )
        return out


class DraftOut(serializers.Serializer[Any]):
    advice = serializers.IntegerField()
    version = serializers.IntegerField()
    digest = serializers.CharField()
    diff_from_active = serializers.ListField(child=serializers.DictField())
    notes = serializers.ListField(child=serializers.CharField(), help_text="What the draft could not say.")
