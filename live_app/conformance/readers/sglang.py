"""SGLang. /server_info (/get_server_info before 0.5.6, deprecated after) is
dataclasses.asdict(server_args) plus scheduler info and internal_states
(sgl-project/sglang python/sglang/srt/entrypoints/http_server.py): the speculative_*
server args are the rendered flags' own names."""

from __future__ import annotations

from contracts_app.document import ContractDocument, render
from live_app.conformance.fetch import Fetcher
from live_app.conformance.readers.models import compare_model
from live_app.conformance.readers.reading import METHOD, Reading, field_path


def read(doc: ContractDocument, r: Reading, f: Fetcher, base: str, metrics_url: str) -> None:
    method = doc.speculation.method
    info = f.get(base, "/server_info")
    if info.status == 404:
        info = f.get(base, "/get_server_info")
    r.keep("server_info", info)
    want = render(doc, "sglang").config
    if info.ok and isinstance(info.data, dict):
        args = info.data
        if info.saw("model_path", args.get("model_path")) is not None:
            compare_model(r, doc, str(args["model_path"]))
        algorithm = info.saw("speculative_algorithm", args.get("speculative_algorithm"))
        if not want or algorithm in (None, "", "NONE"):
            r.compare(METHOD, want.get("speculative_algorithm", "none"), algorithm or "none")
        else:
            for key, value in want.items():
                r.compare(field_path("sglang", key, method), value, info.saw(key, args.get(key)))
        states = args.get("internal_states")
        if isinstance(states, list):  # one per DP rank: its acceptance length since start
            lengths = [s.get("avg_spec_accept_length") for s in states if isinstance(s, dict)]
            info.saw(
                "internal_states[].avg_spec_accept_length", [v for v in lengths if v is not None] or None
            )
    for key in want:
        r.not_reported(field_path("sglang", key, method))
    r.not_reported(METHOD)
