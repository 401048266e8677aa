"""TensorRT-LLM's conformance reader (live_app/conformance/readers/trtllm.py) and the acceptance
watch for an engine that switches speculation off by itself (issue 23 point 5).

The /prometheus/metrics page below is written as tensorrt_llm/metrics/collector.py
(NVIDIA/TensorRT-LLM main) exposes it: the metric names, HELP strings and label names are
that module's (`MetricsCollector.__init__`, `log_config_info`; labels `model_name` and
`engine_type` as its docstring's example). The stored copy of the repository's docs holds
no verbatim scrape, so the values are ours."""

from __future__ import annotations

import copy
from datetime import timedelta
from string import Template
from typing import Any

import pytest
from django.utils import timezone

from audit_app.models import AuditEvent
from contracts_app.document import validate_document
from live_app.conformance import Counters, Fetched, probe_engine
from live_app.models import AcceptanceSample
from live_app.services.watch import acceptance_record
from tests.live.test_acceptance_watch import watched  # noqa: F401 (the route fixture)

_L = 'engine_type="trtllm",model_name="meta-llama/Llama-3.1-8B-Instruct"'
_INFO = 'spec_draft_model="$draft",spec_enabled="true",spec_method="$method",spec_num_tokens="$tokens"'
PAGE = Template(
    "\n".join(
        [
            "# HELP trtllm_generation_tokens_total Cumulative number of generation (output) tokens produced.",
            "# TYPE trtllm_generation_tokens_total counter",
            f"trtllm_generation_tokens_total{{{_L}}} $generated",
            "# HELP trtllm_spec_decode_num_draft_tokens_total "
            "Total number of draft tokens in speculative decoding",
            "# TYPE trtllm_spec_decode_num_draft_tokens_total counter",
            f"trtllm_spec_decode_num_draft_tokens_total{{{_L}}} $drafted",
            "# HELP trtllm_spec_decode_num_accepted_tokens_total "
            "Total number of accepted tokens in speculative decoding",
            "# TYPE trtllm_spec_decode_num_accepted_tokens_total counter",
            f"trtllm_spec_decode_num_accepted_tokens_total{{{_L}}} $accepted",
            "# HELP trtllm_speculative_config_info Speculative decoding configuration info",
            "# TYPE trtllm_speculative_config_info gauge",
            f"trtllm_speculative_config_info{{{_L},{_INFO}}} 1.0",
            "",
        ]
    )
)
MODELS = {"object": "list", "data": [{"id": "meta-llama/Llama-3.1-8B-Instruct", "object": "model"}]}


class _Engine:
    """A fetcher answering as trtllm-serve: /v1/models and /prometheus/metrics."""

    def __init__(self, page: str) -> None:
        self.page, self.asked = page, []

    def get(self, base: str, path: str, *, want_json: bool = True) -> Fetched:
        self.asked.append(path)
        if path == "/v1/models":
            return Fetched(url=base + path, status=200, data=MODELS, text="")
        if path == "/prometheus/metrics":
            return Fetched(url=base + path, status=200, text=self.page)
        return Fetched(url=base + path, status=404, failure="404")


def _doc() -> Any:
    with open("docs/examples/support-chat-eagle3-trtllm.yaml", encoding="utf-8") as fh:
        import yaml

        return validate_document(yaml.safe_load(fh))


def _page(**kw: Any) -> str:
    head = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
    values = {
        "generated": 1200,
        "drafted": 900,
        "accepted": 540,
        "draft": head,
        "method": "Eagle3",
        "tokens": 3,
    }
    values.update(kw)
    return PAGE.substitute(values)


def _probe(page: str) -> Any:
    engine = _Engine(page)
    outcome = probe_engine(
        _doc(), engine="trtllm", base_url="http://trt:8000", metrics_url="", fetcher=engine
    )  # type: ignore[arg-type]
    assert "/prometheus/metrics" in engine.asked
    return outcome


def test_the_info_gauge_conforms_and_the_counters_are_read() -> None:
    outcome = _probe(_page())
    assert outcome.state == "conforms", outcome.as_dict()
    fields = outcome.evidence["metrics"]["fields"]
    assert fields["trtllm_speculative_config_info{spec_method}"] == "Eagle3"
    assert (outcome.counters.draft_tokens, outcome.counters.accepted_tokens) == (900, 540)
    assert outcome.counters.generated_tokens == 1200


def test_eagle_is_read_as_its_alias_eagle3() -> None:
    assert _probe(_page(method="Eagle")).state == "conforms"


def test_fewer_tokens_another_method_or_another_draft_is_drifted_naming_the_field() -> None:
    fewer = _probe(_page(tokens=2))
    assert {"path": "speculation.num_speculative_tokens", "contract": 3, "engine": 2} in fewer.differences
    other = _probe(_page(method="NGram"))
    assert {"path": "speculation.method", "contract": "eagle3", "engine": "NGram"} in other.differences
    draft = _probe(_page(draft="org/another-head"))
    assert any(d["path"] == "assets[role=eagle_head].name" for d in draft.differences)


def test_no_info_gauge_is_speculation_off() -> None:
    page = "\n".join(line for line in _page().splitlines() if "speculative_config_info" not in line)
    outcome = _probe(page)
    assert {"path": "speculation.method", "contract": "eagle3", "engine": "none"} in outcome.differences


@pytest.mark.django_db
def test_serving_without_drafting_is_recorded_as_the_engines_switch_off(watched: Any) -> None:  # noqa: F811
    """tests/live/test_acceptance_watch.py's route and endpoint; its version's document given
    the contract's acceptance_cutoff (what a TensorRT-LLM route would carry)."""
    route, endpoint, _ = watched
    version = route.active_version
    version.document = copy.deepcopy(version.document)
    version.document["speculation"]["acceptance_cutoff"] = {"window": 64, "min_rate": 0.25}
    at = timezone.now()
    source = "trtllm /prometheus/metrics"
    first = acceptance_record(
        endpoint=endpoint, counters=Counters(source, 900, 540, None, 1200), version=version, at=at
    )
    drafting = acceptance_record(endpoint=endpoint, counters=Counters(source, 1800, 1000, None, 2400),
                                 version=version, at=at + timedelta(minutes=1))  # fmt: skip
    assert not first.engine_off and not drafting.engine_off
    assert drafting.window_acceptance_rate == pytest.approx(460 / 900)
    off = acceptance_record(endpoint=endpoint, counters=Counters(source, 1800, 1000, None, 3600),
                            version=version, at=at + timedelta(minutes=2))  # fmt: skip
    again = acceptance_record(endpoint=endpoint, counters=Counters(source, 1800, 1000, None, 4800),
                              version=version, at=at + timedelta(minutes=3))  # fmt: skip
    assert off.engine_off and again.engine_off
    assert off.window_acceptance_rate is None and not off.below_floor  # not an acceptance drop
    events = AuditEvent.objects.filter(action="acceptance.engine_switched_off", object_id=str(endpoint.pk))
    assert events.count() == 1  # said once, when it starts
    assert "acceptance_cutoff" in events.get().reason and "64 iterations" in events.get().reason
    assert AcceptanceSample.objects.filter(endpoint=endpoint).count() == 4
