from __future__ import annotations

from typing import Any

from rest_framework import serializers

from live_app.choices import EndpointEngine
from live_app.models import Endpoint, Probe, ProbeRequest
from live_app.secrets import shown_reference


class LiveEndpointIn(serializers.Serializer[Any]):
    """Shape only; the service checks the values (URLs against the allowed networks)."""

    name = serializers.CharField(max_length=40, help_text="e.g. prod-eu, canary")
    base_url = serializers.CharField(max_length=2048, help_text="the OpenAI-compatible server, http(s)")
    engine = serializers.ChoiceField(choices=EndpointEngine.choices)
    expects = serializers.CharField(max_length=40, default="active", help_text="active, or release:<id>")
    metrics_url = serializers.CharField(
        max_length=2048,
        required=False,
        allow_blank=True,
        help_text="default: <base_url>/metrics; on base_url's host (any port) unless an admin allows another",
    )
    metrics_host_allowed = serializers.BooleanField(
        required=False, default=False, help_text="admins only: metrics_url may be on another host"
    )
    auth = serializers.JSONField(
        required=False,
        allow_null=True,
        help_text='a secret reference, never the secret: {"env": "SPECPACT_ENDPOINT_…"} or '
        '{"file": "/path"}; sent as Authorization: Bearer <secret>',
    )


class LiveEndpointPatchIn(serializers.Serializer[Any]):
    """Only the fields given change; the name and the route stay."""

    base_url = serializers.CharField(max_length=2048, required=False)
    engine = serializers.ChoiceField(choices=EndpointEngine.choices, required=False)
    expects = serializers.CharField(max_length=40, required=False, help_text="active, or release:<id>")
    metrics_url = serializers.CharField(max_length=2048, required=False, allow_blank=True)
    metrics_host_allowed = serializers.BooleanField(
        required=False, help_text="admins only; cleared when a non-admin moves base_url or metrics_url"
    )
    auth = serializers.JSONField(required=False, allow_null=True, help_text="a secret reference, or null")


class EndpointBenchmarkIn(serializers.Serializer[Any]):
    baseline = serializers.CharField(
        max_length=40, help_text="the endpoint serving the baseline, e.g. prod-eu"
    )
    candidate = serializers.CharField(
        max_length=40, help_text="the endpoint serving the candidate, e.g. canary"
    )
    lane = serializers.CharField(
        max_length=64, required=False, help_text="needed when the candidate has several"
    )


class DeleteIn(serializers.Serializer[Any]):
    reason = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")


class ProbeSerializer(serializers.ModelSerializer[Probe]):
    version = serializers.SerializerMethodField()

    class Meta:
        model = Probe
        fields = ["state", "version", "differences", "unknown", "reason", "reached", "probed_at", "actor",
                  "evidence"]  # fmt: skip
        extra_kwargs = {
            "actor": {"help_text": "who asked: user:<name>, token:<prefix>, or beat (the scheduled probes)"},
            "evidence": {"help_text": "per path read: url, status, failure (ours), fields compared, absent"},
        }

    def get_version(self, probe: Probe) -> int | None:
        return probe.version.number if probe.version else None


class ProbeRequestSerializer(serializers.ModelSerializer[ProbeRequest]):
    """A requested probe: queued, running, done (with the probe) or failed (with the reason)."""

    probe = ProbeSerializer(allow_null=True, read_only=True)

    class Meta:
        model = ProbeRequest
        fields = ["id", "state", "actor", "requested_at", "started_at", "finished_at", "reason", "probe"]


class EndpointSerializer(serializers.ModelSerializer[Endpoint]):
    auth = serializers.SerializerMethodField(help_text="the reference's kind and name; never the secret")
    last_probe = serializers.SerializerMethodField()

    class Meta:
        model = Endpoint
        fields = ["name", "base_url", "metrics_url", "metrics_host_allowed", "engine", "expects", "auth",
                  "state", "last_probe", "created_at"]  # fmt: skip

    def get_auth(self, endpoint: Endpoint) -> dict[str, str] | None:
        return shown_reference(endpoint.auth_ref)

    def get_last_probe(self, endpoint: Endpoint) -> dict[str, Any] | None:
        if endpoint.last_probe is None:
            return None
        data = ProbeSerializer(endpoint.last_probe).data
        data.pop("evidence", None)  # the list stays small; the detail and probe carry it
        return dict(data)
