"""Secrets for the worker protocol: bootstrap tokens and per-worker tokens.

A token is 32 random bytes behind a readable prefix (`spb_` bootstrap, `spw_` worker), so
a leaked one is recognisable in logs and never confused with a pipeline's API token. Only
the SHA-256 is stored: the tokens are high-entropy, so a fast hash is enough (a slow
password hash protects guessable secrets, which these are not), and lookup is by hash.
"""

from __future__ import annotations

import hashlib
import secrets

BOOTSTRAP_PREFIX = "spb_"
WORKER_PREFIX = "spw_"


def new_token(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_hint(token: str) -> str:
    """What the pages may show: enough to tell tokens apart, useless to an attacker."""
    return token[:10]
