"""Bounded reads of an endpoint: every request through `kernel.outbound` (policy,
pinned address, no redirects, size limit), all of one probe within one total deadline.

What a read leaves as evidence is facts, never the answer's text: the URL, the HTTP status,
a reason of ours when it could not be read, and the fields the comparison used (with their
values) or looked for and did not find. A probe may be pointed at any address in the
allowed networks; what it stores and shows must not turn it into a way to read them."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from kernel.outbound import OutboundFailed, OutboundPolicy, request

# A value longer than this (as JSON) is not kept: the engine's settings are short, and a
# long one is more likely something else's text than a setting.
VALUE_CHARS = 256
LIST_ITEMS = 16


def fact(value: Any) -> Any:
    """`value` as evidence keeps it: a short scalar or a short list of them; else a note."""
    if isinstance(value, list):
        items = [fact(v) for v in value[:LIST_ITEMS]]
        return items if len(json.dumps(items, default=str)) <= VALUE_CHARS else _omitted(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    return value if len(json.dumps(value, default=str)) <= VALUE_CHARS else _omitted(value)


def _omitted(value: Any) -> dict[str, str]:
    return {"omitted": f"a {type(value).__name__} of {len(json.dumps(value, default=str))} characters"}


@dataclass
class Fetched:
    url: str
    status: int | None = None
    text: str = ""
    data: Any = None
    failure: str | None = None  # why there is no readable answer, in our words
    fields: dict[str, Any] = field(default_factory=dict)
    absent: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.failure is None

    def saw(self, name: str, value: Any) -> Any:
        """Record a field the comparison reads (None: looked for, not there); returns it."""
        if value is None:
            if name not in self.absent:
                self.absent.append(name)
        else:
            self.fields[name] = fact(value)
        return value

    def facts(self) -> dict[str, Any]:
        """What the probe keeps of this read; the text and the parsed answer are dropped."""
        out: dict[str, Any] = {"url": self.url, "status": self.status}
        if self.failure:
            out["failure"] = self.failure
        if self.fields:
            out["fields"] = self.fields
        if self.absent:
            out["absent"] = self.absent
        return out


class Fetcher:
    def __init__(
        self,
        policy: OutboundPolicy,
        *,
        deadline_s: float,
        max_bytes: int,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.policy, self.max_bytes, self.headers = policy, max_bytes, dict(headers or {})
        self.ends_at = time.monotonic() + deadline_s
        self.deadline_s = deadline_s

    def left_s(self) -> float:
        return self.ends_at - time.monotonic()

    def get(self, base: str, path: str, *, want_json: bool = True) -> Fetched:
        # No path: `base` is the whole URL (a metrics_url), asked as written.
        url = urljoin(base.rstrip("/") + "/", path.lstrip("/")) if path else base
        return self._ask("GET", url, None, want_json=want_json)

    def post_json(self, base: str, path: str, body: dict[str, Any]) -> Fetched:
        """A small request the probe sends (llama.cpp's probe completion), within the same
        policy, deadline and size limit as its reads."""
        url = urljoin(base.rstrip("/") + "/", path.lstrip("/"))
        return self._ask("POST", url, json.dumps(body).encode(), want_json=True)

    def _ask(self, method: str, url: str, content: bytes | None, *, want_json: bool) -> Fetched:
        out = Fetched(url=url)
        left = self.left_s()
        if left <= 0.05:
            out.failure = f"not asked: the probe's {self.deadline_s:g} s were spent"
            return out
        headers = {"Accept": "application/json, text/plain", **self.headers}
        if content is not None:
            headers["Content-Type"] = "application/json"
        try:
            response = request(
                method,
                url,
                self.policy,
                field_path="base_url",
                headers=headers,
                content=content,
                deadline_s=left,
                max_bytes=self.max_bytes,
            )
        except OutboundFailed as exc:
            out.failure = str(exc)
            return out
        out.status = response.status
        if response.truncated:
            out.failure = f"the answer is larger than {self.max_bytes} bytes; not read"
            return out
        out.text = response.body.decode("utf-8", errors="replace")
        if response.status == 404:
            out.failure = "404: the engine does not serve this path"
            return out
        if response.status >= 300:
            out.failure = f"HTTP {response.status}"
            return out
        if want_json:
            try:
                out.data = json.loads(out.text)
            except ValueError:
                out.failure = "the answer is not JSON"
        return out
