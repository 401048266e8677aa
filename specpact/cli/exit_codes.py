"""Exit codes (DESIGN §8): pipelines branch on them, so they never change meaning."""

OK = 0  # success, or the gate passed
FAILED = 1  # the gate failed, or the release was rejected
INVALID = 2  # invalid input or usage
UNREACHABLE = 3  # timeout, or the server could not be reached
