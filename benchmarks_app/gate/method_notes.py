"""The gate's method notes: how each figure was computed, what this evaluation did about
autocorrelation, and what the calibration benchmark measured (shown on the release page)."""

from __future__ import annotations

from benchmarks_app.gate.calibration import calibration_note

METHOD_NOTES = {
    "quantile": "numpy's default linear-interpolation quantile (type 7), in the estimate and the bootstrap",
    "bootstrap": (
        "percentile bootstrap of the quantile ratio; each arm resampled on its own: exactly via "
        "order statistics (U_(k) ~ Beta(k, n-k+1)), O(n + n_boot) per arm, where the "
        "arm has fewer than 30 requests; by a circular block bootstrap from 30 on (autocorrelation)"
    ),
    "minimum_requests": (
        "a quantile rule says Pass or Fail only on at least n requests per arm, the smallest n whose "
        "order statistics bound the quantile on both sides at the rule's confidence (max(p, 1-p)^n ≤ "
        "1 - confidence: 5 for a median, 59 for p95 at 95%); below it the check is Marginal and says "
        "how many it needs"
    ),
    "interval": "equal-tailed; each side at the test's one-sided (Holm-adjusted) confidence",
    "correction": (
        "Holm step-down over every (rule, lane, level) test, by adjusted confidence, "
        "ordered by bootstrap p-values. A rule's confidence (e.g. 95%) holds for the whole family "
        "of tests: each test's bound is taken at a stricter per-test level (with two tests open, "
        "1 - 0.05/2 = 97.5%), shown as each check's `confidence`; reasons quote the rule's own figure"
    ),
    "throughput": (
        "ratio of per-request means (Little's law); its interval from batch means: each arm's requests "
        "in run order cut into 8 consecutive batches, the delta method's standard error of the log "
        "ratio, Student's t with Welch-Satterthwaite degrees of freedom (a percentile bootstrap of "
        "the ratio passed 6-9% of A/A pairs at 64 requests per arm, nominal 5%)"
    ),
    "itl_chunk": (
        "inter-chunk gaps pooled over requests and resampled as independent "
        "(narrower than a per-request bootstrap)"
    ),
    "crossover": "lowest level whose unadjusted improvement interval (primary metric) has its lower end ≤ 1",
    "tails": (
        "a tail quantile from few requests (fewer than ~5 beyond it, e.g. p95 of < 100) has an "
        "interval that is too narrow: plan requests_per_level for the quantiles the rules name"
    ),
}


def method_notes(blocked: list[str], tests: int) -> dict[str, str]:
    """The fixed notes, plus what this evaluation did about autocorrelation and what the
    calibration benchmark measured (calibration.py)."""
    notes = dict(METHOD_NOTES)
    rule = (
        "every quantile test's arm of at least 30 requests resampled in circular blocks (at least "
        "n^(1/3) long, longer where the Politis-White length says so): dependence spread over many "
        "lags escapes a lag-1 test at these sizes; the lag-1 autocorrelation (Spearman, in send "
        "order) is reported per arm with whether it is significant (two-sided, 5%)"
    )
    if blocked:
        notes["autocorrelation"] = f"{rule}. Block-resampled: {len(blocked)} of {tests} tests: " + "; ".join(
            blocked
        )
    else:
        notes["autocorrelation"] = (
            f"{rule}. No tested arm had 30 requests: the independent bootstrap throughout"
        )
    if (measured := calibration_note()) is not None:
        notes["calibration"] = measured
    return notes
