"""Bounded reads of an endpoint: every request through `kernel.outbound` (policy,
pinned address, no redirects, size limit), all of one probe within one total deadline."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from kernel.outbound import OutboundFailed, OutboundPolicy, request

EXCERPT_CHARS = 2000


@dataclass
class Fetched:
    url: str
    status: int | None = None
    text: str = ""
    data: Any = None
    failure: str | None = None  # why there is no readable answer, in words

    @property
    def ok(self) -> bool:
        return self.failure is None

    def excerpt(self) -> dict[str, Any]:
        out: dict[str, Any] = {"url": self.url, "status": self.status}
        if self.failure:
            out["failure"] = self.failure
        if self.text:
            out["body"] = self.text[:EXCERPT_CHARS]
            if len(self.text) > EXCERPT_CHARS:
                out["body_truncated"] = True
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
        url = urljoin(base.rstrip("/") + "/", path.lstrip("/"))
        out = Fetched(url=url)
        left = self.left_s()
        if left <= 0.05:
            out.failure = f"not asked: the probe's {self.deadline_s:g} s were spent"
            return out
        try:
            response = request(
                "GET",
                url,
                self.policy,
                field_path="base_url",
                headers={"Accept": "application/json, text/plain", **self.headers},
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
