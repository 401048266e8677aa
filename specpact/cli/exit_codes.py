"""Exit codes (DESIGN §8): pipelines branch on them, so they never change meaning."""

OK = 0  # success, or the gate passed
FAILED = 1  # the gate failed, or the release was rejected
INVALID = 2  # invalid input or usage
UNREACHABLE = 3  # timeout, or the server could not be reached
# Added after 0-3, which keep their meaning: a marginal gate is not enough evidence either
# way, so a pipeline must not go green on it unless it says so (`--allow-marginal`: 0).
MARGINAL = 4  # the gate's verdict is marginal
