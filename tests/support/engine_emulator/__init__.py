"""One OpenAI-compatible engine emulator for every test that needs an inference server.

Run it in its own process (its event loop never competes with the harness's) through
``tests.support.launcher`` (``start_emulator(...)`` or the ``emulator`` fixture), or by
hand: ``python -m tests.support.engine_emulator --port 0 [flags]``; it prints
``PORT <n>`` once it listens.

Schedule (``--ttft-ms``, ``--ttft-per-stream-ms``, ``--step-ms``, ``--step-per-stream-ms``,
``--load-factor``): a request arriving while ``a`` streams are active (itself included)
gets its first step ``ttft_ms + ttft_per_stream_ms × a`` after arrival, then one step
every ``(step_ms + step_per_stream_ms × a) × (1 + load_factor × (in flight − 1))``, due
at absolute times. Step ``i`` carries ``pattern[i % len(pattern)]`` tokens (``--pattern
1,3,2,4``; ``--tokens-per-chunk N`` is ``--pattern N``), at most ``--chunks`` steps and
``--output-tokens`` tokens, and never more than the request's ``max_tokens``. Outputs are
a function of the prompt alone, so greedy outputs of two emulators match token for token.

Truth: ``GET /truth`` lists, per completed stream, the prompt, mode, arrival time and the
time each step was written (``time.perf_counter``, CLOCK_MONOTONIC: the same clock in
every process on the machine), its tokens per step and the planned TTFT/step;
``POST /truth/reset`` empties it. That is what the harness's accuracy is held against.

Shapes (``--shape vllm|sglang|llamacpp|tgi``, default vllm) and the speculation they claim
(``--speculation JSON``, in the engine's own vocabulary; ``--draft-tokens D`` when the
claim does not say how many tokens a step drafts):

- vllm: ``/v1/models``, ``/version``, ``/health``; ``/metrics`` with
  ``vllm:spec_decode_num_drafts_total``, ``…_num_draft_tokens_total``,
  ``…_num_accepted_tokens_total`` and ``…_num_accepted_tokens_per_pos_total{position="i"}``
  only when speculation is configured, one ``engine`` series per ``--dp-size`` rank
  (claim: the ``--speculative-config`` object, e.g.
  ``{"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 5}``);
  ``/server_info`` (``?config_format=text|json``) only with ``VLLM_SERVER_DEV_MODE=1`` in
  the emulator's environment. Per-step ``token_ids`` when the request asks
  (``return_token_ids``).
- sglang: ``/server_info`` and the deprecated ``/get_server_info`` (only the latter with
  ``--legacy-info-only``, as older releases; server args, the
  claim's ``speculative_*`` args merged in, and ``internal_states[]``, one per
  ``--dp-size`` rank, requests spread round-robin, with ``avg_spec_accept_length``);
  ``/get_model_info``, ``/v1/models``; ``/metrics`` with ``sglang:spec_accept_length`` and
  ``sglang:spec_accept_rate`` (the last 40 steps of each rank) only with
  ``--enable-metrics``.
- llamacpp: ``/props`` (``default_generation_settings.params`` with the claim's dotted
  ``speculative.*`` keys), ``/slots``, ``/health``; ``/metrics`` (with ``--metrics``, else
  501) with ``llamacpp:spec_decode_num_draft_tokens_total``,
  ``…_num_accepted_tokens_total``, ``…_num_drafts_total`` and the per-position counter; one
  SSE event per token; the final event carries ``timings`` with ``draft_n`` and
  ``draft_n_accepted``; the native ``POST /completion`` (``prompt``, ``n_predict``), not
  streamed, answers with ``id_slot`` and those ``timings``.
- tgi: ``/info`` (no speculation field, as TGI has none), ``/health``, ``/v1/models``;
  ``/metrics`` with ``tgi_request_skipped_tokens`` (a summary: ``_sum``/``_count``); one SSE
  event per token. Claim: ``{"speculate": N}``.

Counters are real: a step of ``k`` tokens written to a client counts as one draft of
``draft_tokens`` tokens with ``k − 1`` accepted (positions ``0 … k − 2``), once written.
``draft_tokens`` is ``--draft-tokens``, else the claim's count (vLLM
``num_speculative_tokens``; SGLang ``speculative_num_draft_tokens − 1`` or
``speculative_num_steps``; llama.cpp ``speculative.n_max``; TGI ``speculate``), else
``max(pattern) − 1``. A pattern step may not exceed ``draft_tokens + 1``.

Control (the emulator's own, for tests; no engine has them):

- ``POST /admin/reset``: an engine restart: every counter, acceptance average and the
  truth back to zero.
- ``POST /admin/acceptance`` ``{"pattern": [3, 1]}``: tokens per step for requests that
  arrive from now on (streams under way keep theirs): acceptance changes mid-run.
  Answers ``{"pattern", "draft_tokens"}``; a bad pattern is a 400 naming ``pattern``.
- ``GET /admin/counters``: the counters as JSON (what /metrics renders), and the pattern.
- ``POST /admin/hostile`` ``{"mode": "trickle"}``: from now on answer as ``--hostile`` does
  (``""``: well again), e.g. an endpoint that stalls only on its re-probe after a benchmark.

Hostile answers (``--hostile huge|invalid-json|trickle|redirect``), for clients that must
bound what they read: every GET but ``/health`` answers with 50 MB of metric lines, a body
that is not JSON, one byte every half second, or a redirect to a metadata address.

Per-request modes, by the request's ``model``: the served name (``--served-model-name``,
default ``test-model``) streams normally; ``http500``; ``flaky`` (every second request is
a 500); ``garbage`` (a malformed SSE line mid-stream); ``drop`` (the connection closes
mid-stream); ``nousage`` (no usage, no token ids); ``stall`` (stops after two steps);
``notsse`` (a JSON body instead of a stream); ``error-event`` (an error object
mid-stream); ``close-after`` (closes the keep-alive connection after each response, as
llama-server does after a stream). Any other model is a 404.
"""
