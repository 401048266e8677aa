"""The release gate: pure numpy/scipy statistics, no Django (services call it)."""

from benchmarks_app.gate.adapter import arm_levels_from_harness, exact_match_rate, gate_input_from_harness
from benchmarks_app.gate.evaluate import evaluate_gate
from benchmarks_app.gate.inputs import (
    ArmLevel,
    EarlierVersion,
    GateInput,
    GateInputError,
    MemoryInput,
    StabilityInput,
)
from benchmarks_app.gate.result import CheckResult, Crossover, GateResult, RuleResult, Verdict
from benchmarks_app.gate.rules import GateRules, HistoryRule, StatRule

__all__ = [
    "ArmLevel",
    "CheckResult",
    "Crossover",
    "EarlierVersion",
    "GateInput",
    "GateInputError",
    "GateResult",
    "GateRules",
    "HistoryRule",
    "MemoryInput",
    "RuleResult",
    "StabilityInput",
    "StatRule",
    "Verdict",
    "arm_levels_from_harness",
    "evaluate_gate",
    "exact_match_rate",
    "gate_input_from_harness",
]
