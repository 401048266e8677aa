"""Writes the built-in lane workloads (``<lane>.jsonl``) from the material below.

Every prompt is composed here, for this project, from hand-written pieces with a fixed
seed: no downloaded data. Rerun after editing and bump ``VERSION``:
``python -m worker.workloads.generate``. Prompts are plain completions (the built-in
Gemma GGUF has no chat template) and unique within a lane, because servers cache prompts.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

from worker.workloads.vocabulary import (
    ACTIONS,
    ASKS,
    CAUSES,
    CLAUSES,
    CONTEXTS,
    FIGURES,
    FIRST,
    ISSUES,
    LAST,
    PARTIES,
    PRODUCTS,
    REGIONS,
    SERVICES,
    SYMPTOMS,
    TABLES,
    TOOLS_HEADER,
    TOPICS,
)

VERSION = "1"
PROMPTS_PER_LANE = 128

# Greedy lanes are the ones whose outputs are compared token by token with the baseline.
LANE_SETTINGS: dict[str, dict] = {
    "chat": {"sampling": {"temperature": 0.7, "top_p": 0.95}, "max_tokens": 128},
    "summarization": {"sampling": {"temperature": 0.0, "top_p": 1.0}, "max_tokens": 128},
    "extraction": {"sampling": {"temperature": 0.0, "top_p": 1.0}, "max_tokens": 96},
    "document_review": {"sampling": {"temperature": 0.0, "top_p": 1.0}, "max_tokens": 128},
    "agent": {"sampling": {"temperature": 0.0, "top_p": 1.0}, "max_tokens": 96},
}


def _name(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def _fill(rng: random.Random, template: str) -> str:
    return template.format(
        pct=rng.randint(3, 97),
        ms=rng.randint(900, 9000),
        n=rng.randint(12, 9000),
        code=rng.randint(100, 999),
        table=rng.choice(TABLES),
        mins=rng.randint(2, 40),
        host=f"{rng.choice(SERVICES)}-{rng.randint(1, 30):02d}",
        ver=f"{rng.randint(1, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}",
        days=rng.choice([7, 14, 21, 30]),
        svc=rng.choice(SERVICES),
        k=rng.randint(2, 5),
        cap=f"EUR {rng.randint(1, 50) * 100_000:,}",
        cure=rng.choice([10, 15, 30]),
        hours=rng.choice([24, 48, 72]),
        sla=rng.choice(["99.5", "99.9", "99.95"]),
        credit=rng.choice([2, 5, 10]),
        rate=rng.choice([2, 4, 8]),
        years=rng.choice([2, 3, 5]),
    )


def _incident(rng: random.Random) -> tuple[str, list[tuple[str, str]]]:
    """An incident report and its record: every value in the record is a span of the report."""
    svc, region = rng.choice(SERVICES), rng.choice(REGIONS)
    incident = f"INC-{rng.randint(2024, 2026)}-{rng.randint(1000, 9999)}"
    date = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    start = f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} UTC"
    reporter, owner = _name(rng), _name(rng)
    symptom, cause = _fill(rng, rng.choice(SYMPTOMS)), _fill(rng, rng.choice(CAUSES))
    actions = [_fill(rng, a) for a in rng.sample(ACTIONS, 2)]
    severity = rng.choice(["SEV-1", "SEV-2", "SEV-3"])
    report = (
        f"Incident {incident} was opened on {date} at {start} by {reporter} after {symptom} on {svc} in "
        f"{region}. The on-call engineer, {owner}, classified it as {severity}. Investigation showed the "
        f"root cause was {cause}. Service was restored {rng.randint(9, 240)} minutes after the first alert. "
        f"Follow-up actions agreed in the review: {actions[0]}; and {actions[1]}."
    )
    record = [
        ("Incident ID", incident),
        ("Root cause", cause),
        ("Impact", symptom),
        ("Follow-up actions", f"{actions[0]}; {actions[1]}"),
        ("Reported by", reporter),
        ("On-call engineer", owner),
        ("Service", svc),
        ("Region", region),
        ("Severity", severity),
        ("Opened", f"{date} {start}"),
    ]
    return report, record


def extraction(rng: random.Random, i: int) -> str:
    # One worked example first (another incident), so that even a small base model answers
    # in the record's format by copying spans of the input: the case prompt lookup is for.
    example_report, example_record = _incident(rng)
    report, record = _incident(rng)
    example = "\n".join(f"{k}: {v}" for k, v in example_record)
    return (
        "Fill in the record for each incident report. Copy every value word for word from the report.\n\n"
        f"Report:\n{example_report}\n\nRecord:\n{example}\n\n"
        f"Report:\n{report}\n\nRecord:\nIncident ID: {record[0][1]}\nRoot cause:"
    )


def summarization(rng: random.Random, i: int) -> str:
    body, plan, group, worry = rng.choice(TOPICS)
    figures = " ".join(_fill(rng, f) for f in rng.sample(FIGURES, 3))
    speaker, critic = _name(rng), _name(rng)
    text = (
        f"At a meeting on {rng.choice(['Monday', 'Tuesday', 'Wednesday', 'Thursday'])}, {body} presented "
        f"{plan}. {speaker}, who leads the project, said the change would make services easier to use and "
        f"cheaper to run. {figures} Representatives of {group} raised concerns about {worry}; {critic} asked "
        f"for a written impact assessment before any vote. The proposal will be revised and presented again "
        f"in {rng.randint(2, 10)} weeks."
    )
    return f"Article:\n{text}\n\nSummary in two sentences:\n"


def chat(rng: random.Random, i: int) -> str:
    product, issue, ask = rng.choice(PRODUCTS), rng.choice(ISSUES), rng.choice(ASKS)
    context = _fill(rng, rng.choice(CONTEXTS))
    return (
        "The following is a conversation between a customer and a patient, accurate support agent.\n\n"
        f"Customer: Hi, my name is {rng.choice(FIRST)}. {product[0].upper()}{product[1:]} {issue}. "
        f"{context} {ask}\n"
        "Agent:"
    )


def document_review(rng: random.Random, i: int) -> str:
    title, clause = rng.choice(CLAUSES)
    supplier, customer = rng.sample(PARTIES, 2)
    number = f"{rng.randint(3, 19)}.{rng.randint(1, 9)}"
    return (
        f"Master services agreement between {supplier} (the Supplier) and {customer} (the Customer).\n\n"
        f"Clause {number} ({title}): {_fill(rng, clause)}\n\n"
        f"Reviewer notes for the Customer on clause {number}, listing each risk and the wording "
        "to change:\n1."
    )


def agent(rng: random.Random, i: int) -> str:
    svc, region = rng.choice(SERVICES), rng.choice(REGIONS)
    symptom = _fill(rng, rng.choice(SYMPTOMS))
    steps = [
        (
            f"I should check whether there are open tickets about {svc}.",
            f'search_tickets({{"query": "{svc} {region}", "status": "open"}})',
            f'[{{"id": "T-{rng.randint(100, 999)}", "title": "{svc} degraded", '
            f'"opened_by": "{_name(rng)}"}}]',
        ),
        (
            "A ticket exists. I need the error rate to judge the impact.",
            f'get_metrics({{"service": "{svc}", "metric": "error_rate", "window": "15m"}})',
            f'{{"error_rate": 0.{rng.randint(10, 60)}, "baseline": 0.01}}',
        ),
        (
            "The error rate is far above baseline. A restart is the documented first response.",
            f'restart({{"service": "{svc}", "region": "{region}"}})',
            f'{{"status": "{rng.choice(["restarted", "failed: pods pending"])}"}}',
        ),
    ]
    depth = i % len(steps)  # multi-step: prompts stop after 0, 1 or 2 completed steps
    lines = [
        TOOLS_HEADER,
        f"Task: Users report that {symptom} on {svc} in {region}. Resolve it or escalate.\n",
    ]
    for n, (thought, action, observation) in enumerate(steps[:depth], start=1):
        lines.append(f"Step {n}:\nThought: {thought}\nAction: {action}\nObservation: {observation}\n")
    lines.append(f"Step {depth + 1}:\nThought:")
    return "\n".join(lines)


LANES: dict[str, Callable[[random.Random, int], str]] = {
    "chat": chat,
    "summarization": summarization,
    "extraction": extraction,
    "document_review": document_review,
    "agent": agent,
}


def build(lane: str) -> list[dict]:
    rng = random.Random(f"specpact-{lane}-v{VERSION}")
    seen: set[str] = set()
    rows: list[dict] = []
    while len(rows) < PROMPTS_PER_LANE:
        prompt = LANES[lane](rng, len(rows))
        if prompt in seen:
            continue
        seen.add(prompt)
        rows.append(
            {
                "id": f"{lane}-{len(rows) + 1:04d}",
                "lane": lane,
                "version": VERSION,
                "prompt": prompt,
                **LANE_SETTINGS[lane],
            }
        )
    return rows


def main() -> None:
    here = Path(__file__).parent
    for lane in LANES:
        with (here / f"{lane}.jsonl").open("w", encoding="utf-8") as fh:
            for row in build(lane):
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
