"""OpenAI chat-completions request logs, one request per line, in any of these shapes:

- the request body itself, as sent to `POST /v1/chat/completions`: `{"model", "messages":
  [{"role", "content"}], "max_tokens" | "max_completion_tokens", …}` (OpenAI API reference,
  "Create chat completion"; `content` a string or a list of `{"type": "text", "text"}`
  parts); a `/v1/completions` body with a string `prompt` is read too;
- a Batch API input line, `{"custom_id", "method": "POST", "url": "/v1/chat/completions",
  "body": {…}}` (OpenAI API reference, Batch, "The request input object");
- either of them with the answer beside it as `response`: a chat completion object
  (`choices[0].message.content`), or a Batch output line's `response` (`{"status_code",
  "body": <chat completion>}`, "The request output object"). It becomes the reference.

Logs of a chat application hold every turn as its own request carrying the whole history.
Requests are put back into conversations: a request whose messages are an earlier
request's messages, then that request's answer (an `assistant` message), then new ones,
is that conversation's next turn; the new messages are the turn, and the answer becomes
the earlier turn's reference. The replay then sends the target's own answers instead.
Everything else in a request (model, temperature, tools, …) is not replayed.
"""

from __future__ import annotations

from typing import Any

from workloads_app.formats.reading import Builder, Imported, dumps, jsonl, role_of, text_of

_FIELDS = ("messages", "prompt")


def _request(obj: dict[str, Any]) -> tuple[dict[str, Any], str | None, Any]:
    """(request body, custom id, response) of one log line."""
    if isinstance(obj.get("body"), dict) and "url" in obj:
        url = str(obj.get("url", ""))
        if not url.endswith(("/chat/completions", "/completions")):
            raise ValueError(
                f"a Batch line for {url!r}: only /v1/chat/completions and /v1/completions replay"
            )
        return obj["body"], obj.get("custom_id"), obj.get("response")
    if isinstance(obj.get("request"), dict):
        return obj["request"], obj.get("custom_id") or obj.get("id"), obj.get("response")
    if any(k in obj for k in _FIELDS):
        return obj, obj.get("custom_id"), obj.get("response")
    raise ValueError("not a chat-completions request: no messages (nor a Batch body, nor a request)")


def _answer(response: Any) -> str | None:
    if not isinstance(response, dict):
        return None
    body = response.get("body") if isinstance(response.get("body"), dict) else response
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    choice = choices[0]
    message = choice.get("message")
    text = message.get("content") if isinstance(message, dict) else choice.get("text")
    return text if isinstance(text, str) and text else None


def _messages(body: dict[str, Any]) -> list[dict[str, str]]:
    raw = body.get("messages")
    if not isinstance(raw, list) or not raw:
        raise ValueError("messages: a non-empty list is required")
    out = []
    for i, m in enumerate(raw):
        if not isinstance(m, dict):
            raise ValueError(f"messages[{i}]: expected an object")
        if m.get("role") in ("tool", "function"):
            raise ValueError(f"messages[{i}]: tool messages can't be replayed without the tools")
        role = role_of(m.get("role"), f"messages[{i}]")
        out.append({"role": role, "content": text_of(m.get("content"), f"messages[{i}].content")})
    return out


def _max_tokens(body: dict[str, Any]) -> Any:
    return body.get("max_completion_tokens", body.get("max_tokens"))


class _Threads:
    """Finds each request's earlier turn: the request whose messages it extends."""

    def __init__(self) -> None:
        self.by_history: dict[str, int] = {}  # messages (as JSON) -> index of that request
        self.continued: set[int] = set()
        self.conversations = 0

    def place(self, messages: list[dict[str, str]]) -> tuple[int | None, list[dict[str, str]]]:
        """(index of the request this one continues, or None; this turn's new messages)."""
        for i in range(len(messages) - 1, 0, -1):
            if messages[i]["role"] != "assistant":
                continue
            earlier = self.by_history.get(dumps(messages[:i]))
            rest = messages[i + 1 :]
            if (
                earlier is not None
                and earlier not in self.continued
                and rest
                and rest[0]["role"] != "assistant"
            ):
                self.continued.add(earlier)
                return earlier, rest
        return None, messages


def read(text: str, source: str) -> Imported:
    builder = Builder(source)
    records: list[dict[str, Any]] = []
    numbers: list[int] = []
    threads = _Threads()
    conversation: list[tuple[str, int]] = []  # per record: (conversation id, turn)

    def convert(number: int, obj: dict[str, Any]) -> None:
        body, custom_id, response = _request(obj)
        record: dict[str, Any] = {
            "id": custom_id,
            "max_tokens": _max_tokens(body),
            "reference": _answer(response),
        }
        if "messages" not in body:
            prompt = body.get("prompt")
            if not isinstance(prompt, str):
                raise ValueError("prompt: a single string is required (a completions request)")
            record["prompt"] = prompt
            conversation.append((f"conv-{len(records) + 1}", 0))
        else:
            messages = _messages(body)
            earlier, new = threads.place(messages)
            threads.by_history[dumps(messages)] = len(records)
            if earlier is None:
                conversation.append((f"conv-{len(records) + 1}", 0))
            else:
                cid, turn = conversation[earlier]
                conversation.append((cid, turn + 1))
                answer = messages[len(messages) - len(new) - 1]["content"]
                if records[earlier].get("reference") is None:
                    records[earlier]["reference"] = answer
            record["messages"] = new
        records.append(record)
        numbers.append(number)

    builder.each(jsonl(text, builder.problems), convert)
    sizes: dict[str, int] = {}
    for cid, _ in conversation:
        sizes[cid] = sizes.get(cid, 0) + 1
    for number, record, (cid, turn) in zip(numbers, records, conversation, strict=True):
        if sizes[cid] > 1:
            record["conversation"], record["turn"] = cid, turn
        builder.add(number, record)
    return builder.finish()
