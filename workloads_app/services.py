"""Writes for workloads: import an upload as an immutable version; delete a version's
content (its prompts) when no active contract measures on it, keeping a tombstone in the
audit trail. Keyword-only, each in one transaction, raising DomainError.

An upload is imported as a stream, in memory that doesn't grow with its lines: read line
by line from its file, its records kept in a scratch file (workloads_app/formats/
scratch.py), its canonical form written to a spooled temporary file while it is hashed,
and from there copied into the content row in chunks. Everything is checked before the
transaction that stores it begins, so a refused upload leaves nothing."""

from __future__ import annotations

import hashlib
import re
import tempfile
from dataclasses import dataclass, field
from typing import IO, Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F

from accounts_app.permissions import has_role
from accounts_app.roles import Role
from audit_app.actors import Actor, as_actor
from audit_app.models import AuditEvent
from audit_app.services import audit_record
from contracts_app.document.datasets import WORKLOAD_NAME_PATTERN
from kernel.errors import Conflict, DomainError, FieldError, Forbidden
from worker.workloads.records import DIGEST_PREFIX, LineError, Record, WorkloadError
from workloads_app.formats import FORMATS, Scratch, TooManyRecords, UploadTooLarge, import_upload
from workloads_app.formats.checks import context_problems
from workloads_app.formats.reading import Imported, Transform
from workloads_app.formats.redaction import redact_record, redaction, redaction_counts
from workloads_app.formats.stats import workload_stats
from workloads_app.models import (
    WORKLOAD_NAME_VALIDATOR,
    WorkloadContent,
    WorkloadUploader,
    WorkloadUse,
    WorkloadVersion,
)

# What a format is, in words, for "imported from …" when the upload says nothing.
FORMAT_SOURCES = {
    "specpact": "",
    "openai": "OpenAI chat-completions request logs",
    "sharegpt": "ShareGPT conversations",
    "vllm": "a vLLM benchmark dataset",
    "sglang": "an SGLang benchmark dataset",
    "mooncake": "a Mooncake trace",
}


@dataclass(frozen=True)
class UploadOptions:
    format: str = "specpact"
    source: str = ""
    redact: bool = False
    redact_patterns: tuple[str, ...] = ()
    context_tokens: int | None = None


@dataclass(frozen=True)
class WorkloadUpload:
    version: WorkloadVersion
    created: bool
    restored: bool = False
    notes: list[str] = field(default_factory=list)


def too_large(size: int | None) -> DomainError:
    limit = int(settings.WORKLOAD_MAX_BYTES)
    said = f"{size} bytes" if size is not None else "larger than the limit"
    return DomainError(
        f"The workload is {said}; the limit is {limit} bytes (WORKLOAD_MAX_BYTES).",
        status=413,
        code="payload_too_large",
        errors=[FieldError("body", f"at most {limit} bytes")],
    )


def _line_errors(exc: LineError) -> DomainError:
    numbers = sorted({n for n, _, _ in exc.problems})
    more = " …" if len(numbers) > 20 or exc.lines > len(numbers) else ""
    shown = ", ".join(str(n) for n in numbers[:20]) + more
    return DomainError(
        f"The workload has {exc.lines} invalid {exc.unit}{'s' if exc.lines != 1 else ''} "
        f"({exc.unit}s {shown}); nothing was stored.",
        code="invalid_workload",
        errors=[
            FieldError(f"{exc.unit} {n}" + (f".{path}" if path else ""), message)
            for n, path, message in exc.problems[:200]
        ],
    )


def _too_many(exc: TooManyRecords) -> DomainError:
    return DomainError(
        f"The workload has more than {exc.cap} records (WORKLOAD_MAX_RECORDS): {exc.unit} {exc.number} "
        "is past the limit; nothing was stored.",
        status=413,
        code="too_many_records",
        errors=[FieldError(f"{exc.unit} {exc.number}", f"at most {exc.cap} records")],
    )


def _check_options(name: str, options: UploadOptions) -> None:
    errors = []
    if not re.fullmatch(WORKLOAD_NAME_PATTERN, name):
        errors.append(FieldError("name", str(WORKLOAD_NAME_VALIDATOR.message)))
    if options.format not in FORMATS:
        errors.append(FieldError("format", f"one of {', '.join(FORMATS)}"))
    if len(options.source) > 200:
        errors.append(FieldError("source", "at most 200 characters"))
    if options.context_tokens is not None and options.context_tokens < 1:
        errors.append(FieldError("context_tokens", "a positive number of tokens"))
    if errors:
        raise DomainError("The upload is invalid; see errors.", errors=errors)


def workload_upload(
    *, name: str, raw: bytes | IO[bytes], options: UploadOptions, actor: Any
) -> WorkloadUpload:
    """Import `raw` (bytes, or a binary file read from where it stands; in
    `options.format`) as version `name@<digest>`. The same content under the same name is
    the same version (`created=False`): uploads are idempotent by content. Every invalid
    line is reported at once (the first 200, all counted) and nothing is stored."""
    _check_options(name, options)
    limit = int(settings.WORKLOAD_MAX_BYTES)
    if isinstance(raw, bytes) and len(raw) > limit:
        raise too_large(len(raw))
    counts: dict[str, int] | None = None
    transform: Transform | None = None
    if options.redact:
        try:
            rules = redaction([*settings.WORKLOAD_REDACT_PATTERNS, *options.redact_patterns])
        except ValueError as exc:
            raise DomainError(str(exc), errors=[FieldError("redact_pattern", str(exc))]) from None
        found: dict[str, int] = {}
        counts = found

        def transform(record: Record) -> Record:
            return redact_record(record, rules, found)

    with Scratch() as scratch:
        imported = _import(name, raw, options, scratch, transform)
        warnings = list(imported.warnings)
        if options.context_tokens is not None:
            errors, lines, over = context_problems(imported, options.context_tokens)
            if errors:
                raise _line_errors(LineError(name, errors, imported.unit, lines=lines))
            warnings += over
        with tempfile.SpooledTemporaryFile(max_size=CANONICAL_IN_MEMORY) as data:
            digest, size = _write_canonical(imported, data, limit)
            stats = workload_stats(imported)
            fields = {
                "format": options.format,
                "source": options.source or FORMAT_SOURCES[options.format],
                "requests": stats["requests"],
                "conversations": stats["conversations"],
                "size_bytes": size,
                "upload_bytes": imported.upload_bytes,
                "stats": stats,
                "redaction": redaction_counts(counts) if counts is not None else None,
                "warnings": [
                    {imported.unit: n, "message": m} if n else {"message": m} for n, _, m in warnings
                ][:200],
            }
            return _store(name, digest, data, fields, as_actor(actor))


# The canonical form stays in memory up to this size, then spills to a temporary file.
CANONICAL_IN_MEMORY = 1024 * 1024
# Bytes copied into the content row at a time.
COPY_CHUNK = 256 * 1024


def _import(
    name: str, raw: bytes | IO[bytes], options: UploadOptions, scratch: Scratch, transform: Transform | None
) -> Imported:
    try:
        return import_upload(
            raw,
            options.format,
            source=name,
            scratch=scratch,
            max_records=int(settings.WORKLOAD_MAX_RECORDS),
            max_bytes=int(settings.WORKLOAD_MAX_BYTES),
            transform=transform,
        )
    except UploadTooLarge as exc:
        raise too_large(exc.size) from None
    except TooManyRecords as exc:
        raise _too_many(exc) from None
    except LineError as exc:
        raise _line_errors(exc) from None
    except WorkloadError as exc:
        raise DomainError(str(exc), code="invalid_workload", errors=[FieldError("body", str(exc))]) from None


def _write_canonical(imported: Imported, out: IO[bytes], limit: int) -> tuple[str, int]:
    """Write the canonical form to `out`, hashing it on the way: (digest, size)."""
    sha, size = hashlib.sha256(), 0
    for _, line in imported.scratch.canonical_lines():
        chunk = (line + "\n").encode("utf-8")
        size += len(chunk)
        if size > limit:
            raise too_large(size)
        sha.update(chunk)
        out.write(chunk)
    out.seek(0)
    return DIGEST_PREFIX + sha.hexdigest(), size


def _content_create(version: WorkloadVersion, data: IO[bytes]) -> None:
    """The content row, from `data`: on PostgreSQL copied in chunks (COPY … FROM STDIN,
    bytea in hex), so the canonical form is never one bytes object here; elsewhere (SQLite)
    read whole."""
    data.seek(0)
    if connection.vendor != "postgresql":
        WorkloadContent.objects.create(version=version, data=data.read())
        return
    table = connection.ops.quote_name(WorkloadContent._meta.db_table)
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(f"COPY {table} (version_id, data) FROM STDIN") as copy,
    ):
        # COPY's text format: a backslash is escaped, so bytea's hex input \x… is \\x….
        copy.write(f"{version.pk}\t\\\\x")
        while chunk := data.read(COPY_CHUNK):
            copy.write(chunk.hex())
        copy.write("\n")


def _store(name: str, digest: str, data: IO[bytes], fields: dict[str, Any], who: Actor) -> WorkloadUpload:
    try:
        with transaction.atomic():
            existing = WorkloadVersion.objects.select_for_update().filter(name=name, digest=digest).first()
            if existing is not None:
                if WorkloadContent.objects.filter(version=existing).exists():
                    if who.user is not None and _add_uploader(existing, who.user):
                        _audit_upload(existing, who, restored=False)
                    return WorkloadUpload(existing, created=False)
                # Deleted before, uploaded again: the same version gets its content back.
                _content_create(existing, data)
                if who.user is not None:
                    _add_uploader(existing, who.user)
                _audit_upload(existing, who, restored=True)
                return WorkloadUpload(existing, created=True, restored=True)
            version = WorkloadVersion.objects.create(name=name, digest=digest, created_by=who.user, **fields)
            _content_create(version, data)
            if who.user is not None:
                _add_uploader(version, who.user)
            _audit_upload(version, who, restored=False)
            return WorkloadUpload(version, created=True)
    except IntegrityError:
        # A concurrent upload of the same content under the same name stored it first.
        return WorkloadUpload(WorkloadVersion.objects.get(name=name, digest=digest), created=False)


def _add_uploader(version: WorkloadVersion, user: Any) -> bool:
    """Record that `user` uploaded these bytes; False when they already had."""
    if WorkloadUploader.objects.filter(workload=version, user=user).exists():
        return False
    WorkloadUploader.objects.create(workload=version, user=user)
    return True


def _audit_upload(version: WorkloadVersion, who: Actor, *, restored: bool) -> None:
    audit_record(
        actor=who,
        action="workload.restored" if restored else "workload.uploaded",
        obj_type="workload",
        obj_id=version.pk,
        after={
            "name": version.name,
            "digest": version.digest,
            "format": version.format,
            "requests": version.requests,
            "conversations": version.conversations,
            "redaction": version.redaction,
        },
    )


def workload_delete(*, version: WorkloadVersion, actor: Any, reason: str) -> AuditEvent:
    """Remove the version's content. Refused while a route's active contract version
    measures on it; allowed to its uploader and to admins. The version row (name, digest,
    numbers) stays, and the audit event is the tombstone: name, digest, who, when, why."""
    who = as_actor(actor)
    is_uploader = who.user is not None and version.created_by_id == who.user.pk
    if not (has_role(who, Role.ADMIN) or (is_uploader and has_role(who, Role.OPERATOR))):
        raise Forbidden("Only the workload's uploader (an operator) or an admin may delete it.")
    if not reason.strip():
        raise DomainError("Say why the workload is deleted.", errors=[FieldError("reason", "required")])
    with transaction.atomic():
        # The routes that use it, locked as activation locks them: no route can make a
        # contract that measures on it active while its content goes.
        list(
            WorkloadUse.objects.select_related("contract_version__route")
            .select_for_update(of=("contract_version__route",))
            .filter(workload=version)
            .order_by("contract_version__route_id")
        )
        content = WorkloadContent.objects.select_for_update().filter(version=version).first()
        if content is None:
            raise Conflict(
                f"The content of workload {version.ref} was already deleted.", code="workload_deleted"
            )
        active = WorkloadUse.objects.filter(
            workload=version, contract_version__route__active_version=F("contract_version")
        ).select_related("contract_version__route")
        if active:
            which = ", ".join(
                f"{u.contract_version.route.slug} v{u.contract_version.number} ({u.lane})" for u in active
            )
            raise Conflict(
                f"Workload {version.ref} is measured on by an active contract: {which}. "
                "Activate a version that doesn't use it first.",
                code="workload_in_use",
            )
        content.delete()
        return audit_record(
            actor=who,
            action="workload.deleted",
            obj_type="workload",
            obj_id=version.pk,
            before={
                "name": version.name,
                "digest": version.digest,
                "requests": version.requests,
                "uploaded_by": version.created_by.get_username() if version.created_by else None,
                "uploaded_at": version.created_at.isoformat(),
            },
            after={"name": version.name, "digest": version.digest, "content": "deleted"},
            reason=reason.strip(),
        )
