"""Speculation as each engine reports it, as the level's own figures; "not reported" otherwise.

One module per engine (`vllm`, `sglang`, `tgi`, `llamacpp`), each citing where its names
come from; `prometheus` reads /metrics with labels kept, `deltas` differences counters
(a restart named), `spec_decode` applies it to the counters vLLM and llama-server share,
`requests` sums per-request draft counts (llama.cpp timings, the in-process Transformers
engine). Everything is read before and after a level and differenced, never an engine's
average since it started; a counter that went backwards (a restart) makes the level "not
reported" with that reason.
"""
