"""The conformance probe: read what a running engine says about itself, hold it against the
contract version it should serve (`probe_engine`), and read its speculation counters for
the acceptance watch. No Django here beyond settings read by the caller: the probe takes
a `Fetcher` (bounded outbound requests) and a contract document. One reader per engine
in `readers/`; the per-field facts and the coverage words in `coverage`."""

from live_app.conformance.fetch import Fetched, Fetcher
from live_app.conformance.probe import Counters, Outcome, probe_engine

__all__ = ["Counters", "Fetched", "Fetcher", "Outcome", "probe_engine"]
