"""The ``transformers`` engine: a real model in process, one request at a time.

Timing comes from a streamer: ``generate()`` calls ``put()`` once with the prompt, then
once per decoding step with the tokens that step produced (several under speculation).
TTFT is the first put after the prompt; each put is a chunk. Drafted tokens are counted
at the candidate generator, so acceptance = accepted / drafted is measured, not assumed.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from time import perf_counter
from typing import Any

# Set before transformers/huggingface_hub read it: the worker never reaches the Hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from transformers.generation.streamers import BaseStreamer

from worker.engines.builtin import BUILTIN_GEMMA, builtin_gguf
from worker.hardware import reset_rss_peak, rss_peak_bytes
from worker.harness.acceptance.requests import from_requests
from worker.harness.aggregate import build_level
from worker.harness.loadgen import Progress
from worker.harness.plan import BenchPlan, TransformersEngine
from worker.harness.results.levels import LevelResult
from worker.harness.results.requests import RequestRecord, RequestSpeculation
from worker.harness.results.result import Sampling
from worker.harness.results.speculation import SpeculationNotReported
from worker.harness.stats import tpot_ms
from worker.workloads import Conversation

GIB = 1024**3

# One copy of each model per worker process: loading Gemma 270M takes ~45 s on a CPU.
_MODELS: dict[tuple[str, str | None, str], tuple[Any, Any]] = {}
_MODELS_LOCK = threading.Lock()


def resolve_device(choice: str) -> str:
    import torch

    if choice == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if choice == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device 'cuda' requested but torch sees no CUDA device")
    return choice


def load_model(model: str, gguf_file: str | None, device: str) -> tuple[Any, Any]:
    """(tokenizer, model), cached per process. Never touches the Hugging Face Hub."""
    key = (model, gguf_file, device)
    with _MODELS_LOCK:
        if key not in _MODELS:
            from transformers import AutoModelForCausalLM, AutoTokenizer

            if model == BUILTIN_GEMMA:
                path = builtin_gguf()
                directory, gguf_file = str(path.parent), path.name
            else:
                directory = model
            kwargs: dict[str, Any] = {"local_files_only": True}
            if gguf_file:
                kwargs["gguf_file"] = gguf_file
            tokenizer = AutoTokenizer.from_pretrained(directory, **kwargs)
            loaded = AutoModelForCausalLM.from_pretrained(directory, **kwargs).to(device)  # type: ignore[arg-type]
            loaded.eval()
            _MODELS[key] = (tokenizer, loaded)
        return _MODELS[key]


class _StepStreamer(BaseStreamer):
    """The prompt first, then one put per decoding step with that step's tokens."""

    def __init__(self) -> None:
        self.sent = perf_counter()
        self.prompt_seen = False
        self.times: list[float] = []
        self.sizes: list[int] = []
        self.ids: list[int] = []

    def put(self, value: Any) -> None:
        t = perf_counter()
        if not self.prompt_seen:
            self.prompt_seen = True
            return
        tokens = value.reshape(-1).tolist()
        self.times.append(t)
        self.sizes.append(len(tokens))
        self.ids.extend(tokens)

    def end(self) -> None:
        pass


class _DraftCounter:
    """Wraps the model's candidate generator to record how many tokens each step drafted."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.lengths: list[int] = []
        self._original = model._get_candidate_generator

    def __enter__(self) -> _DraftCounter:
        def make(*args: Any, **kwargs: Any) -> Any:
            generator = self._original(*args, **kwargs)
            get_candidates = generator.get_candidates

            def counted(input_ids: Any, *a: Any, **kw: Any) -> Any:
                candidate_ids, logits = get_candidates(input_ids, *a, **kw)
                self.lengths.append(int(candidate_ids.shape[1] - input_ids.shape[1]))
                return candidate_ids, logits

            generator.get_candidates = counted
            return generator

        self.model._get_candidate_generator = make
        return self

    def __exit__(self, *exc: object) -> None:
        del self.model._get_candidate_generator  # back to the class's method


class TransformersRunner:
    def __init__(self, cfg: TransformersEngine) -> None:
        import torch

        if cfg.threads:
            torch.set_num_threads(cfg.threads)
        self.cfg = cfg
        self.device = resolve_device(cfg.device)
        self.tokenizer, self.model = load_model(cfg.model, cfg.gguf_file, self.device)
        self.assistant: Any = None
        if cfg.method == "draft_model" and cfg.assistant_model:
            _, self.assistant = load_model(cfg.assistant_model, None, self.device)
        self.peak_gib: float | None = None
        self.peak_source: str | None = None

    def method_kwargs(self) -> dict[str, Any]:
        c = self.cfg
        kw: dict[str, Any] = {}
        if c.method == "ngram":
            kw["prompt_lookup_num_tokens"] = c.prompt_lookup_num_tokens
            if c.max_matching_ngram_size:
                kw["max_matching_ngram_size"] = c.max_matching_ngram_size
        elif c.method == "draft_model":
            kw["assistant_model"] = self.assistant
            if c.num_assistant_tokens:
                kw["num_assistant_tokens"] = c.num_assistant_tokens
        elif c.method == "early_exit":
            kw["assistant_early_exit"] = c.assistant_early_exit
        return kw

    def generate(
        self,
        prompt_id: str,
        prompt: str,
        plan: BenchPlan,
        sampling: Sampling,
        start: float,
        max_tokens: int | None = None,
    ) -> RequestRecord:
        import torch

        limit = min(plan.max_tokens, max_tokens or plan.max_tokens)
        inputs = self.tokenizer(prompt, return_tensors="pt").to(self.device)
        kwargs: dict[str, Any] = {"max_new_tokens": limit, **self.method_kwargs()}
        if plan.ignore_eos:
            kwargs["min_new_tokens"] = limit
        if sampling.greedy:
            kwargs["do_sample"] = False
        else:
            torch.manual_seed(plan.seed)
            kwargs.update(do_sample=True, temperature=sampling.temperature, top_p=sampling.top_p)
        streamer = _StepStreamer()
        with _DraftCounter(self.model) as drafts, torch.inference_mode():
            streamer.sent = perf_counter()
            self.model.generate(**inputs, streamer=streamer, **kwargs)
        base: dict[str, Any] = {"prompt_id": prompt_id, "send_s": streamer.sent - start}
        if not streamer.times:
            return RequestRecord(**base, error="the model produced no tokens")
        ttft = (streamer.times[0] - streamer.sent) * 1000.0
        e2e = (streamer.times[-1] - streamer.sent) * 1000.0
        n = sum(streamer.sizes)
        request_spec = None
        if drafts.lengths:
            # Each step emits its accepted drafts plus one token of the target's own.
            accepted = sum(min(size - 1, d) for size, d in zip(streamer.sizes, drafts.lengths, strict=False))
            request_spec = RequestSpeculation(
                draft_tokens=sum(drafts.lengths),
                accepted_tokens=max(0, accepted),
                drafts=sum(1 for d in drafts.lengths if d > 0),
            )
        return RequestRecord(
            **base,
            ttft_ms=ttft,
            e2e_ms=e2e,
            tpot_ms=tpot_ms(ttft, e2e, n),
            chunk_offsets_ms=[(t - streamer.sent) * 1000.0 for t in streamer.times],
            chunk_tokens=streamer.sizes,
            chunk_tokens_source="steps",
            output_tokens=n,
            prompt_tokens=int(inputs["input_ids"].shape[1]),
            output_tokens_source="chunks",
            output_token_ids=streamer.ids,
            output_text=self.tokenizer.decode(streamer.ids, skip_special_tokens=True),
            finish_reason="length" if n >= limit else "stop",
            speculation=request_spec,
        )

    def run_levels(
        self,
        plan: BenchPlan,
        sampling: Sampling,
        *,
        warmup: Sequence[Conversation],
        conversations: Sequence[Conversation],
        progress: Progress,
        deadline: float | None,
    ) -> list[LevelResult]:
        """One request at a time; a conversation's turns in order, each with this model's
        own earlier answers in its prompt (a failed turn leaves the rest not sent)."""
        import torch

        progress.label, progress.done, progress.total = "warm-up", 0, len(warmup)
        for conv in warmup:
            turn = conv.turns[0]
            self.generate(turn.id, conv.prompt_text(0, []), plan, sampling, perf_counter(), turn.max_tokens)
            progress.done += 1
        cuda = self.device == "cuda"
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        rss_reset = reset_rss_peak()
        total = sum(len(c.turns) for c in conversations)
        progress.label, progress.done, progress.total = "concurrency=1", 0, total
        records: list[RequestRecord] = []
        start = perf_counter()
        for conv in conversations:
            if deadline is not None and perf_counter() >= deadline:
                break
            answers: list[str] = []
            for k, turn in enumerate(conv.turns):
                if k and deadline is not None and perf_counter() >= deadline:
                    break
                text = conv.prompt_text(k, answers)
                record = self._one(turn.id, text, plan, sampling, start, turn.max_tokens)
                records.append(record)
                progress.done += 1
                if record.error is not None:
                    for rest in conv.turns[k + 1 :]:
                        records.append(
                            RequestRecord(
                                prompt_id=rest.id,
                                send_s=perf_counter() - start,
                                error=f"not sent: the conversation's turn {turn.id} failed",
                            )
                        )
                        progress.done += 1
                    break
                answers.append(record.output_text)
        duration = perf_counter() - start
        if cuda:
            self.peak_gib, self.peak_source = torch.cuda.max_memory_allocated() / GIB, "cuda allocator peak"
        else:
            peak = rss_peak_bytes()
            if peak is not None:
                self.peak_gib = peak / GIB
                self.peak_source = "process RSS high-water mark" + (
                    "" if rss_reset else " (since process start)"
                )
        if self.cfg.method == "none":
            speculation: Any = SpeculationNotReported(reason="speculation is off (method none)")
        else:
            speculation = from_requests(
                records, "transformers: drafted tokens per step, accepted = step size - 1"
            )
        level = build_level(
            kind="concurrency",
            value=1,
            records=records,
            duration_s=duration,
            speculation=speculation,
            slo=plan.slo,
            truncated=len(records) < total,
        )
        return [level]

    def _one(
        self, pid: str, text: str, plan: BenchPlan, sampling: Sampling, start: float, max_tokens: int | None
    ) -> RequestRecord:
        try:
            return self.generate(pid, text, plan, sampling, start, max_tokens)
        except (RuntimeError, ValueError) as exc:  # e.g. out of memory, a refused argument
            return RequestRecord(prompt_id=pid, send_s=perf_counter() - start, error=str(exc)[:500])
