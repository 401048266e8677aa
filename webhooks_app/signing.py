"""Webhook secrets and signatures.

The signature is `X-SpecPact-Signature: sha256=<hex>`, the HMAC-SHA256, keyed by the
subscription's secret, of `<timestamp>.<body>` where `<timestamp>` is the
`X-SpecPact-Timestamp` header (Unix seconds): a receiver that checks both, and refuses an
old timestamp, refuses a replayed delivery (docs/webhooks.md has the ten lines).

Secrets are kept encrypted (Fernet: AES-128-CBC + HMAC) under a key derived from
WEBHOOK_SECRET_KEY, or SECRET_KEY when that is unset: the relay must sign with the secret
itself, so it can't be stored as a one-way hash. Rotating that key makes the stored
secrets unreadable: subscriptions must then be created again (their receivers given the
new secrets)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings

SIGNATURE_HEADER = "X-SpecPact-Signature"
TIMESTAMP_HEADER = "X-SpecPact-Timestamp"


def _fernet() -> Fernet:
    material = (settings.WEBHOOK_SECRET_KEY or settings.SECRET_KEY).encode()
    key = hashlib.sha256(b"specpact webhook secrets\x00" + material).digest()
    return Fernet(base64.urlsafe_b64encode(key))


def new_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


def encrypt_secret(secret: str) -> str:
    return _fernet().encrypt(secret.encode()).decode()


def decrypt_secret(stored: str) -> str | None:
    """None when the key that encrypted it is gone (rotated)."""
    try:
        return _fernet().decrypt(stored.encode()).decode()
    except InvalidToken:
        return None


def signature(secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"sha256={mac.hexdigest()}"
