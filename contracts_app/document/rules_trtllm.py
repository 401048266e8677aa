"""TensorRT-LLM's own rules on the settings a contract carries (DecodingBaseConfig in
NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py, main at 0004396): its validators
refuse these, so the contract refuses them first, naming the field."""

from __future__ import annotations

from collections.abc import Iterator

from .engines.release import ReleaseView
from .errors import FieldError
from .schema import ContractDocument

SCHEDULE = "speculation.params.token_schedule"
OFF_ABOVE = "compatibility.batching.speculation_off_above_batch_size"


def errors(doc: ContractDocument, view: ReleaseView) -> Iterator[FieldError]:
    if doc.target.engine != "trtllm" or doc.speculation.method == "none":
        return
    p, spec = doc.speculation.params, doc.speculation
    schedule = p.token_schedule if p else None
    if schedule:
        first = schedule[0].num_speculative_tokens
        if first != spec.num_speculative_tokens:
            # validate_draft_len_schedule_and_sort: schedule[smallest key] must equal max_draft_len.
            yield FieldError(
                f"{SCHEDULE}[0].num_speculative_tokens",
                f"TensorRT-LLM's draft_len_schedule must start at max_draft_len: {first} is not "
                f"speculation.num_speculative_tokens ({spec.num_speculative_tokens})",
            )
        if doc.compatibility.batching.speculation_off_above_batch_size is not None:
            # validate_max_concurrency_and_draft_len_schedule_mutually_exclusive.
            yield FieldError(
                OFF_ABOVE,
                "TensorRT-LLM's max_concurrency and draft_len_schedule are mutually exclusive: above the "
                "schedule's last batch size speculation is already off; drop one of them",
            )
