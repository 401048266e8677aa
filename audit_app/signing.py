"""The key that signs audit checkpoints: Ed25519 (RFC 8032) from the `cryptography`
package, held outside the database (settings.AUDIT_SIGNING_KEY, which env.py also reads
from AUDIT_SIGNING_KEY_FILE).

The signed message is plain text, so any Ed25519 tool can check it offline:

    specpact-audit-checkpoint:v1:<event id>:<event hash>:<signed_at, ISO 8601 UTC>
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import os
import re
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

log = logging.getLogger("specpact.audit")

MESSAGE_PREFIX = "specpact-audit-checkpoint:v1"


def checkpoint_message(event_id: int, event_hash: str, signed_at: datetime) -> bytes:
    return f"{MESSAGE_PREFIX}:{event_id}:{event_hash}:{signed_at.astimezone(UTC).isoformat()}".encode()


def key_id(public: Ed25519PublicKey) -> str:
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def public_pem(public: Ed25519PublicKey) -> str:
    pem = public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    return pem.decode()


def load_public_pem(text: str) -> Ed25519PublicKey:
    key = serialization.load_pem_public_key(text.encode())
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError("not an Ed25519 public key")
    return key


def sign(private: Ed25519PrivateKey, message: bytes) -> str:
    return base64.b64encode(private.sign(message)).decode()


def signature_valid(public: Ed25519PublicKey, message: bytes, signature: str) -> bool:
    try:
        public.verify(base64.b64decode(signature, validate=True), message)
    except (InvalidSignature, binascii.Error, ValueError):
        return False
    return True


def _parse(text: str, source: str) -> Ed25519PrivateKey:
    """PEM (PKCS#8) or a base64 32-byte seed. The message never quotes the key."""
    text = text.strip()
    try:
        if text.startswith("-----BEGIN"):
            key = serialization.load_pem_private_key(text.encode(), password=None)
            if isinstance(key, Ed25519PrivateKey):
                return key
            raise ImproperlyConfigured(f"{source} is a {type(key).__name__}, not an Ed25519 private key")
        seed = base64.b64decode(text, validate=True)
        if len(seed) == 32:
            return Ed25519PrivateKey.from_private_bytes(seed)
    except (ValueError, TypeError, binascii.Error):
        pass
    raise ImproperlyConfigured(
        f"{source} is neither a PEM Ed25519 private key nor the base64 of a 32-byte Ed25519 seed"
    )


def _dev_key(path: Path) -> Ed25519PrivateKey:
    """DEBUG only: a key generated once under var/ (never committed: var/ is ignored)."""
    if path.exists():
        return _parse(path.read_text(), str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first: use theirs
        return _parse(path.read_text(), str(path))
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    log.warning(
        "audit: no AUDIT_SIGNING_KEY configured; generated a development signing key at %s "
        "(DEBUG only: production sets AUDIT_SIGNING_KEY or AUDIT_SIGNING_KEY_FILE)",
        path,
    )
    return key


@lru_cache(maxsize=4)
def _key_for(configured: str, dev_file: str) -> Ed25519PrivateKey | None:
    if configured:
        return _parse(configured, "AUDIT_SIGNING_KEY")
    if dev_file:
        return _dev_key(Path(dev_file))
    return None


def signing_key() -> Ed25519PrivateKey | None:
    """The configured key; in DEBUG without one, the development key (made on first use);
    None when there is none (production without a key: checkpoints are off)."""
    return _key_for(settings.AUDIT_SIGNING_KEY, settings.AUDIT_DEV_SIGNING_KEY_FILE)


@lru_cache(maxsize=4)
def _retired(configured: str) -> tuple[Ed25519PublicKey, ...]:
    blocks = re.findall(r"-----BEGIN PUBLIC KEY-----.+?-----END PUBLIC KEY-----", configured, flags=re.S)
    if configured.strip() and not blocks:
        raise ImproperlyConfigured("AUDIT_VERIFY_KEYS holds no PEM public key (-----BEGIN PUBLIC KEY-----)")
    keys = []
    for n, block in enumerate(blocks):
        try:
            keys.append(load_public_pem(block))
        except ValueError as exc:
            raise ImproperlyConfigured(f"AUDIT_VERIFY_KEYS key {n + 1}: {exc}") from None
    return tuple(keys)


def verifying_keys() -> list[Ed25519PublicKey]:
    """Every key a checkpoint may be signed with: the signing key's public half, then the
    retired ones (settings.AUDIT_VERIFY_KEYS). Only these are trusted, never the key id a
    checkpoint row names: that row is what an attacker can write."""
    current = verifying_key()
    keys = [current] if current is not None else []
    ids = {key_id(k) for k in keys}
    for key in _retired(settings.AUDIT_VERIFY_KEYS):
        if key_id(key) not in ids:
            keys.append(key)
            ids.add(key_id(key))
    return keys


def verifying_key() -> Ed25519PublicKey | None:
    """The public half of the signing key, without making a development key just to verify."""
    configured, dev_file = settings.AUDIT_SIGNING_KEY, settings.AUDIT_DEV_SIGNING_KEY_FILE
    if not configured and not (dev_file and Path(dev_file).exists()):
        return None
    key = _key_for(configured, dev_file)
    return key.public_key() if key is not None else None
