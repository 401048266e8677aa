"""The benchmark harness.

Kept import-light on purpose: the control plane imports ``worker.harness.results`` to
validate uploads and has neither aiohttp nor torch. Import what you need from the
submodules (``worker.harness.runner.run_benchmark``, ``worker.harness.plan.BenchPlan``).
"""

HARNESS_VERSION = "0.1.0"
