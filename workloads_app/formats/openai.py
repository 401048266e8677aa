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

from workloads_app.formats.reading import Builder, Input, history_key, jsonl, role_of, text_of
from workloads_app.formats.scratch import Scratch

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
    """Finds each request's earlier turn: the request whose messages it extends. The
    histories seen are in the scratch (`threads`: a key of the messages -> that request's
    item), and so are the requests already continued, so memory stays flat."""

    def __init__(self, scratch: Scratch) -> None:
        self.scratch = scratch

    def place(self, messages: list[dict[str, str]]) -> tuple[int | None, list[dict[str, str]]]:
        """(item of the request this one continues, or None; this turn's new messages)."""
        run = self.scratch.execute
        for i in range(len(messages) - 1, 0, -1):
            if messages[i]["role"] != "assistant":
                continue
            rest = messages[i + 1 :]
            if not rest or rest[0]["role"] == "assistant":
                continue
            found = run(
                "SELECT t.pos FROM threads t WHERE t.history = ? "
                "AND t.pos NOT IN (SELECT pos FROM continued)",
                (history_key(messages[:i]),),
            ).fetchone()
            if found is not None:
                run("INSERT INTO continued VALUES (?)", (found[0],))
                return int(found[0]), rest
        return None, messages

    def seen(self, messages: list[dict[str, str]], item: int) -> None:
        self.scratch.execute("INSERT OR REPLACE INTO threads VALUES (?, ?)", (history_key(messages), item))


def read(data: Input, builder: Builder) -> None:
    scratch = builder.scratch
    threads = _Threads(scratch)
    run = scratch.execute

    def convert(number: int, obj: dict[str, Any]) -> None:
        body, custom_id, response = _request(obj)
        record: dict[str, Any] = {
            "id": custom_id,
            "max_tokens": _max_tokens(body),
            "reference": _answer(response),
        }
        earlier: int | None = None
        if "messages" not in body:
            prompt = body.get("prompt")
            if not isinstance(prompt, str):
                raise ValueError("prompt: a single string is required (a completions request)")
            record["prompt"] = prompt
        else:
            messages = _messages(body)
            earlier, new = threads.place(messages)
            if earlier is not None:
                answer = messages[len(messages) - len(new) - 1]["content"]
                run(
                    "UPDATE items SET data = json_set(data, '$.reference', ?) "
                    "WHERE pos = ? AND json_extract(data, '$.reference') IS NULL",
                    (answer, earlier),
                )
            record["messages"] = new
        item = builder.defer(number, record)
        if "messages" in body:
            threads.seen(messages, item)
        if earlier is None:  # a conversation of its own, so far
            run("UPDATE items SET conv = ?, turn = 0 WHERE pos = ?", (f"conv-{item}", item))
        else:
            run(
                "UPDATE items SET (conv, turn) = (SELECT conv, turn + 1 FROM items WHERE pos = ?) "
                "WHERE pos = ?",
                (earlier, item),
            )

    builder.each(jsonl(data, builder.source, scratch), convert)
    # Only a conversation of more than one request says so in its records.
    run(
        "UPDATE items SET data = json_set(data, '$.conversation', conv, '$.turn', turn) WHERE conv IN "
        "(SELECT conv FROM items WHERE conv IS NOT NULL GROUP BY conv HAVING COUNT(*) > 1)"
    )
