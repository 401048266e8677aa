"""The redaction pass (counts by kind, what it leaves alone) and the statistics stored at
import: lengths, turns, n-gram overlap of references with their prompts, shared prefixes."""

from __future__ import annotations

import json

import pytest

from tests.workloads.samples import MOONCAKE, SPECPACT
from worker.workloads.records import Record
from workloads_app.formats import import_upload
from workloads_app.formats.redaction import redact_records, redaction
from workloads_app.formats.stats import workload_stats


def _records(*lines: dict) -> list[Record]:
    return import_upload("\n".join(json.dumps(x) for x in lines).encode(), "specpact").records


def test_redaction_replaces_emails_phones_long_digit_runs_and_configured_patterns() -> None:
    records = _records(
        {
            "prompt": "Mail ana.k+work@mail.example.org or call +44 20 7946 0958 / (555) 123-4567. "
            "Card 4111111111111111, order ORD-7731, on 2026-11-20 at 10:30.",
            "reference": "I wrote to ana.k+work@mail.example.org.",
        },
        {"messages": [{"role": "user", "content": "My account is 000123456789, ref ORD-9911"}]},
    )
    out, counts = redact_records(records, redaction([r"ORD-\d+"]))
    assert counts == {"email": 2, "phone": 2, "digits": 2, "pattern": 2}
    text = out[0].prompt or ""
    assert "[EMAIL]" in text and "[PHONE]" in text and "[NUMBER]" in text and "[REDACTED]" in text
    assert "2026-11-20 at 10:30" in text  # dates and times are not phone numbers
    assert out[0].reference == "I wrote to [EMAIL]."
    assert out[1].messages and out[1].messages[0].content == "My account is [NUMBER], ref [REDACTED]"


def test_without_configured_patterns_only_the_built_in_kinds_are_counted() -> None:
    _, counts = redact_records(_records({"prompt": "nothing personal here"}), redaction())
    assert counts == {"email": 0, "phone": 0, "digits": 0}


def test_a_pattern_that_is_not_a_regular_expression_is_named() -> None:
    with pytest.raises(ValueError, match=r"pattern 2 \('\('\) is not a regular expression"):
        redaction(["ok", "("])


def test_ngram_overlap_is_high_when_the_answer_copies_the_prompt_and_low_when_it_does_not() -> None:
    copying = _records(
        {
            "prompt": "Report: the pump at station 4 failed at 02:10 after the valve seized. Root cause:",
            "reference": "the pump at station 4 failed after the valve seized",
        }
    )
    open_ended = _records({"prompt": "Tell me a story.", "reference": "Once upon a time a dragon slept."})
    high = workload_stats(copying)["ngram_overlap"]
    low = workload_stats(open_ended)["ngram_overlap"]
    assert high["n"] == 3 and high["mean"] > 0.7
    assert low["mean"] == 0.0


def test_stats_of_the_specpact_sample() -> None:
    stats = workload_stats(import_upload(SPECPACT.encode(), "specpact").records)
    assert (stats["requests"], stats["conversations"]) == (3, 2)
    assert stats["turns"]["per_conversation"] == {"1": 1, "2": 1}
    # Turn 1's context holds turn 0 and its answer as well as its own words.
    assert stats["context_tokens"]["max"] > stats["prompt_tokens"]["max"]
    assert stats["output_tokens"]["source"] == {"reference": 3}
    assert stats["ngram_overlap"]["count"] == 2  # "4411" has fewer than three words: not counted
    assert stats["shared_prefix"]["system_prompts"] == 1
    assert stats["arrival"] == {"requests": 1, "span_s": 0.0, "rate_per_s": None}
    assert sum(stats["prompt_tokens"]["histogram"]["counts"]) == 3


def test_stats_of_a_shared_prefix_trace_use_its_token_counts_and_arrivals() -> None:
    stats = workload_stats(import_upload(MOONCAKE.encode(), "mooncake").records)
    assert stats["prompt_tokens"]["max"] == 1200
    assert stats["output_tokens"]["source"] == {"max_tokens": 3}
    assert stats["arrival"] == {"requests": 3, "span_s": 1.5, "rate_per_s": round(2 / 1.5, 4)}
    # Two of the three share two of their three blocks.
    assert stats["shared_prefix"]["requests_half_shared"] == 2
    system_prompt = "You answer for the Harbor support desk. " * 40
    shared = _records(
        *[
            {
                "messages": [
                    {"role": "system", "content": system_prompt},
                    {"role": "user", "content": f"Question {i}?"},
                ]
            }
            for i in range(5)
        ]
    )
    prefix = workload_stats(shared)["shared_prefix"]
    assert prefix["system_prompts"] == 1 and prefix["top_system_prompt_requests"] == 5
    assert prefix["mean_share"] > 0.9 and prefix["requests_half_shared"] == 5
