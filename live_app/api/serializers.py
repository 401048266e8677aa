from __future__ import annotations

from typing import Any

from rest_framework import serializers

from live_app.choices import EndpointEngine, SecretKind
from live_app.models import Endpoint, Probe, ProbeRequest, SecretBinding
from live_app.secrets import shown_auth


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
        help_text='{"binding": NAME}: one of the route\'s secret bindings (routes/{slug}/secret-bindings/), '
        "never the secret; sent as Authorization: Bearer <secret>, only to the binding's hosts",
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
    auth = serializers.JSONField(
        required=False, allow_null=True, help_text='{"binding": NAME} of the route, or null'
    )


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
                  "coverage", "facts", "evidence"]  # fmt: skip
        extra_kwargs = {
            "coverage": {
                "help_text": 'the coverage in words, e.g. "3 of 4 fields verified; llama.cpp b11434 does not '
                'report speculation.params.prompt_lookup_max"; empty on probes stored before it was kept'
            },
            "facts": {
                "help_text": "per contract field held against the engine: field, state (verified, differs, "
                "speculates: it says only that it speculates, not_reported: that engine release does not say "
                "it, not_reached), expected, observed, source (the reads that answered)"
            },
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
    auth = serializers.SerializerMethodField(
        help_text='{"binding": NAME, "env"|"file": where it reads from}; never the secret'
    )
    auth_dropped = serializers.SerializerMethodField(
        help_text="why the endpoint has no auth any more (a URL moved outside its binding's hosts), "
        "until it is given auth again; null otherwise"
    )
    last_probe = serializers.SerializerMethodField()

    class Meta:
        model = Endpoint
        fields = ["name", "base_url", "metrics_url", "metrics_host_allowed", "engine", "expects", "auth",
                  "auth_dropped", "state", "last_probe", "created_at"]  # fmt: skip

    def get_auth(self, endpoint: Endpoint) -> dict[str, str] | None:
        return shown_auth(endpoint)

    def get_auth_dropped(self, endpoint: Endpoint) -> str | None:
        return endpoint.auth_dropped or None

    def get_last_probe(self, endpoint: Endpoint) -> dict[str, Any] | None:
        if endpoint.last_probe is None:
            return None
        data = ProbeSerializer(endpoint.last_probe).data
        data.pop("evidence", None)  # the list stays small; the detail and probe carry them
        data.pop("facts", None)
        return dict(data)


class SecretBindingSerializer(serializers.ModelSerializer[SecretBinding]):
    """What anyone on the route sees of a binding: never the secret, which SpecPact never holds."""

    endpoints = serializers.SerializerMethodField(help_text="the route's endpoints that send it")

    class Meta:
        model = SecretBinding
        fields = ["name", "kind", "reference", "hosts", "endpoints", "created_at", "updated_at"]

    def get_endpoints(self, binding: SecretBinding) -> list[str]:
        return sorted(e.name for e in binding.endpoints.all())


class SecretBindingIn(serializers.Serializer[Any]):
    """Shape only; the service holds the reference to the fences and normalises the hosts."""

    name = serializers.CharField(
        max_length=40, help_text="e.g. prod-key: 1-40 lowercase letters, digits, hyphens"
    )
    kind = serializers.ChoiceField(choices=SecretKind.choices)
    reference = serializers.CharField(
        max_length=4096,
        help_text="env: a variable named ENDPOINT_SECRET_ENV_PREFIX… on the control plane (and "
        "SPECPACT_ENDPOINT_… on workers); file: a path under ENDPOINT_SECRET_DIRS (and "
        "SPECPACT_WORKER_SECRET_DIRS). Where the secret is, never the secret",
    )
    hosts = serializers.ListField(
        child=serializers.CharField(max_length=300),
        help_text='host or host:port the secret may be sent to, e.g. ["vllm.internal:8000"]',
    )


class SecretBindingPatchIn(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=SecretKind.choices, required=False)
    reference = serializers.CharField(max_length=4096, required=False)
    hosts = serializers.ListField(child=serializers.CharField(max_length=300), required=False)
