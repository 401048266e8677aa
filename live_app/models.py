"""A route's live endpoints, their conformance probes and acceptance samples, and alerts.

An endpoint names what it should serve (`expects`, grammar in `live_app.expects`): `active`
(the route's active version, whatever it is when probed) or `release:<id>` (that release's
candidate, stored with it as `expected_version` by releases_app, which owns the rule that
an endpoint may expect only an open release of its route). Its auth header
comes from one of its route's *secret bindings*: an admin binds a secret (an environment
variable or a file of the reader) to the route and to the hosts it may be sent to, and an
operator picks a binding; the secret is read only when a request to one of those hosts is
sent (live_app/secrets.py, worker/secrets.py) and is never stored or shown.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models

from live_app.choices import AlertState, EndpointEngine, ProbeRequestState, ProbeState, SecretKind
from live_app.expects import Expects

ENDPOINT_NAME_PATTERN = r"^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$"
ENDPOINT_NAME_VALIDATOR = RegexValidator(
    ENDPOINT_NAME_PATTERN, "an endpoint name is 1-40 lowercase letters, digits and inner hyphens"
)


class SecretBinding(models.Model):
    """A secret an admin bound to a route: where it is read (`kind` + `reference`, held to
    the readers' fences) and the hosts (`host` or `host:port`, normalised) it may be sent
    to. Operators of the route pick among its bindings; they can't name a secret."""

    route = models.ForeignKey("contracts_app.Route", on_delete=models.CASCADE, related_name="secret_bindings")
    name = models.CharField(max_length=40, validators=[ENDPOINT_NAME_VALIDATOR])
    kind = models.CharField(max_length=8, choices=SecretKind.choices)
    reference = models.CharField(max_length=4096, help_text="the variable's name or the file's path")
    hosts = models.JSONField(default=list)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["route_id", "name"]
        constraints = [
            models.UniqueConstraint(fields=["route", "name"], name="secret_binding_name_per_route")
        ]

    def __str__(self) -> str:
        return f"{self.route_id}/{self.name}"


class Endpoint(models.Model):
    route = models.ForeignKey("contracts_app.Route", on_delete=models.CASCADE, related_name="endpoints")
    name = models.CharField(max_length=40, validators=[ENDPOINT_NAME_VALIDATOR])
    base_url = models.CharField(max_length=2048)
    metrics_url = models.CharField(max_length=2048, blank=True)
    # An admin allowed `metrics_url` on another host than `base_url`'s (live_app.metrics_host):
    # cleared when someone else moves either URL.
    metrics_host_allowed = models.BooleanField(default=False)
    engine = models.CharField(max_length=16, choices=EndpointEngine.choices)
    expects = models.CharField(max_length=40, help_text="active, or release:<id>")
    # For `release:<id>`, the release's candidate (what a probe holds the engine against);
    # None for `active`, which is read from the route when probed.
    expected_version = models.ForeignKey(
        "contracts_app.ContractVersion", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # One of the route's secret bindings, sent as Authorization: Bearer to the binding's hosts.
    # PROTECT: a binding in use is re-bound or cleared on its endpoints before it goes.
    auth_binding = models.ForeignKey(
        SecretBinding, null=True, blank=True, on_delete=models.PROTECT, related_name="endpoints"
    )
    # Why the endpoint's auth was dropped (a URL moved outside the binding's hosts), until re-bound.
    auth_dropped = models.CharField(max_length=500, blank=True)
    state = models.CharField(max_length=16, choices=ProbeState.choices, default=ProbeState.UNKNOWN)
    last_probe = models.ForeignKey(
        "live_app.Probe", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["route_id", "name"]
        constraints = [models.UniqueConstraint(fields=["route", "name"], name="endpoint_name_per_route")]

    def __str__(self) -> str:
        return f"{self.route_id}/{self.name}"

    @property
    def expectation(self) -> Expects:
        return Expects.parse(self.expects) or Expects()

    @property
    def expected_release_id(self) -> int | None:
        """The release whose candidate it should serve (`release:<id>`), or None (`active`)."""
        return self.expectation.release_id


class Probe(models.Model):
    """One conformance probe: what the engine said, held against the expected version."""

    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="probes")
    state = models.CharField(max_length=16, choices=ProbeState.choices)
    version = models.ForeignKey(
        "contracts_app.ContractVersion", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    differences = models.JSONField(default=list)
    unknown = models.JSONField(default=list)
    reason = models.TextField(blank=True)
    evidence = models.JSONField(default=dict)
    # False: nothing the engine answered could be read (unreachable, refused, timed out).
    reached = models.BooleanField(default=True)
    # One fact per contract field held against the engine (live_app/conformance/coverage.py:
    # field, state verified|differs|speculates|not_reported|not_reached, expected, observed,
    # source) and the coverage in words. Empty on probes stored before they were kept.
    facts = models.JSONField(default=list)
    coverage = models.TextField(blank=True)
    probed_at = models.DateTimeField()
    # Who asked: `user:<name>`, `token:<prefix>`, or the scheduled probes' `beat`.
    actor = models.CharField(max_length=150, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-probed_at", "-id"]
        indexes = [models.Index(fields=["endpoint", "-probed_at"])]

    def __str__(self) -> str:
        return f"probe of {self.endpoint_id} at {self.probed_at}: {self.state}"


class ProbeRequest(models.Model):
    """A probe someone asked for (API, page), run by the control-plane worker: where the
    asker reads the outcome (`…/endpoints/{name}/probes/{id}`) when it did not come within
    the API's short wait. The permission was checked when it was asked."""

    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="probe_requests")
    state = models.CharField(
        max_length=16, choices=ProbeRequestState.choices, default=ProbeRequestState.QUEUED
    )
    actor = models.CharField(max_length=150)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    probe = models.ForeignKey(Probe, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    reason = models.TextField(blank=True)  # why it failed (not the probe's own reason)
    requested_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at", "-id"]
        indexes = [models.Index(fields=["endpoint", "state"])]

    def __str__(self) -> str:
        return f"probe request {self.pk} of {self.endpoint_id}: {self.state}"


class AcceptanceSample(models.Model):
    """The endpoint's cumulative speculation counters at one scrape, and the window since the
    previous scrape (deltas). A counter that went down is a restart: the sample opens a new
    series (`reset`) and carries no window."""

    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="samples")
    taken_at = models.DateTimeField()
    source = models.CharField(max_length=100)
    draft_tokens = models.FloatField(null=True)
    accepted_tokens = models.FloatField(null=True)
    drafts = models.FloatField(null=True)
    reset = models.BooleanField(default=False)
    # The window since the previous sample: None when there is no previous one, after a
    # reset, or when nothing was drafted in between.
    window_draft_tokens = models.FloatField(null=True)
    window_acceptance_rate = models.FloatField(null=True)
    window_mean_acceptance_length = models.FloatField(null=True)
    below_floor = models.BooleanField(default=False)
    # Tokens generated since the engine started, where it says (TensorRT-LLM); and whether
    # in this window tokens were generated but none drafted: the engine is serving with
    # speculation switched off (its own acceptance cutoff, or a batch cut-off), issue 23 point 5.
    generated_tokens = models.FloatField(null=True)
    engine_off = models.BooleanField(default=False)

    class Meta:
        ordering = ["-taken_at", "-id"]
        # The whole ordering after the endpoint: the route page's newest samples per endpoint
        # are read off it and stop after the last one kept (live_app.selectors.latest_samples).
        indexes = [models.Index(fields=["endpoint", "-taken_at", "-id"], name="sample_endpoint_newest")]

    def __str__(self) -> str:
        return f"sample of {self.endpoint_id} at {self.taken_at}"


class AcceptanceAlert(models.Model):
    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="alerts")
    version = models.ForeignKey("contracts_app.ContractVersion", on_delete=models.PROTECT, related_name="+")
    state = models.CharField(max_length=16, choices=AlertState.choices, default=AlertState.OPEN)
    live_rate = models.FloatField()
    benchmark_rate = models.FloatField()
    min_ratio = models.FloatField()
    windows = models.PositiveIntegerField()
    # The rollback release proposed for the drop: written by releases_app, which answers
    # the watch's `acceptance_dropped` signal (live_app never reads releases).
    release = models.ForeignKey(
        "releases_app.Release", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.TextField()
    raised_at = models.DateTimeField()

    class Meta:
        ordering = ["-raised_at", "-id"]

    def __str__(self) -> str:
        return f"alert on {self.endpoint_id}: {self.state}"
