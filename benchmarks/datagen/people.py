"""The people and machines: users with roles, pipeline users with API tokens, bootstrap
tokens and registered workers, each with the audit events the app records for them.
Shapes come from the app: `token_summary` for token events, `hardware_class_of` and
`Worker.queues` for workers, the token helpers for hashes and hints."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password

from accounts_app.models import ApiToken, UserRole
from accounts_app.models.tokens import PREFIX_LENGTH, hash_key
from accounts_app.services import token_summary
from benchmarks.datagen.audit import Journal, Who
from benchmarks.datagen.pgcopy import Rows
from benchmarks_app.models import BootstrapToken, Worker, WorkerCredential
from benchmarks_app.services.workers import hardware_class_of
from benchmarks_app.tokens import BOOTSTRAP_PREFIX, WORKER_PREFIX, token_hash, token_hint

_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
FIRST = [
    "ada",
    "alan",
    "anna",
    "bob",
    "carla",
    "dev",
    "elif",
    "femi",
    "grace",
    "hana",
    "ivan",
    "jo",
    "kai",
    "lena",
    "mo",
    "nia",
    "omar",
    "pia",
    "raj",
    "sara",
    "tom",
    "uma",
    "vic",
    "wen",
    "yan",
    "zoe",
]
LAST = [
    "adams",
    "berg",
    "chen",
    "diaz",
    "eng",
    "fox",
    "gupta",
    "hill",
    "ito",
    "jones",
    "khan",
    "lopez",
    "moss",
    "ng",
    "okafor",
    "park",
    "quinn",
    "rossi",
    "sato",
    "tan",
]

_GPU_BOXES = (
    ("NVIDIA H100 80GB HBM3", 79.6, {"vllm": "0.24.0", "tgi": "3.3.0"}),
    ("NVIDIA A100-SXM4-80GB", 79.2, {"vllm": "0.23.0", "tgi": "3.3.0"}),
    ("NVIDIA L40S", 44.5, {"vllm": "0.24.0", "tgi": "3.2.0"}),
)


@dataclass(frozen=True)
class Person:
    id: int
    username: str
    role: str
    token_prefix: str = ""

    @property
    def browser(self) -> Who:
        return Who.user(self.id, self.username)

    @property
    def api(self) -> Who:
        return Who.token(self.id, self.token_prefix) if self.token_prefix else self.browser


@dataclass(frozen=True)
class Machine:
    id: int
    name: str
    hardware_class: str
    hardware: dict[str, Any]
    engines: dict[str, str]
    queues: tuple[str, ...]
    revoked: bool


@dataclass
class Cast:
    admin: Person
    operators: list[Person]
    approvers: list[Person]
    pipelines: list[Person]
    workers: list[Machine]
    rows: Rows = field(default_factory=dict)

    def serving(self, queue: str) -> list[Machine]:
        return [w for w in self.workers if not w.revoked and queue in w.queues]


def _key(rng: random.Random) -> tuple[str, str]:
    prefix = "".join(rng.choice(_ALPHABET) for _ in range(PREFIX_LENGTH))
    return prefix, f"{prefix}.{rng.getrandbits(256):064x}"


def _token_row(
    token_id: int, user_id: int, username: str, role: str, name: str, prefix: str, key: str, created: datetime
) -> dict[str, Any]:
    return {
        "id": token_id,
        "user_id": user_id,
        "name": name,
        "prefix": prefix,
        "hashed_key": hash_key(key),
        "role": role,
        "route_slugs": [],
        "created_at": created,
        "created_by_id": None,
        "expires_at": None,
        "revoked_at": None,
        "last_used_at": None,
        "_username": username,
    }


def summary(row: dict[str, Any]) -> dict[str, Any]:
    """`token_summary` of a token row (the app's own shape of a token event)."""
    user = get_user_model()(username=row["_username"])
    token = ApiToken(**{k: v for k, v in row.items() if not k.startswith("_") and k != "user_id"})
    token.user = user
    return token_summary(token)


class CastBuilder:
    def __init__(self, rng: random.Random, journal: Journal, start: datetime, end: datetime) -> None:
        self.rng, self.journal, self.start, self.end = rng, journal, start, end
        self.users: list[dict[str, Any]] = []
        self.roles: list[dict[str, Any]] = []
        self.tokens: list[dict[str, Any]] = []

    def _when(self, days: float) -> datetime:
        return self.start + timedelta(days=self.rng.uniform(0, days))

    def _user(self, username: str, role: str | None, joined: datetime, *, superuser: bool = False) -> int:
        uid = len(self.users) + 1
        self.users.append(
            {
                "id": uid,
                "password": make_password(None),
                "last_login": None,
                "is_superuser": superuser,
                "username": username,
                "first_name": "",
                "last_name": "",
                "email": f"{username}@example.internal",
                "is_staff": superuser,
                "is_active": True,
                "date_joined": joined,
            }
        )
        if role is not None:
            self.roles.append({"id": len(self.roles) + 1, "user_id": uid, "role": role})
        return uid

    def _humans(self, role: str, count: int, admin: Person, taken: set[str]) -> list[Person]:
        out: list[Person] = []
        while len(out) < count:
            name = f"{self.rng.choice(FIRST)}.{self.rng.choice(LAST)}"
            if name in taken:
                continue
            taken.add(name)
            joined = self._when(60)
            uid = self._user(name, role, joined)
            if role != "viewer":
                self.journal.record(
                    joined + timedelta(minutes=5),
                    admin.browser,
                    "user.role_changed",
                    "user",
                    name,
                    before={"role": "viewer"},
                    after={"role": role},
                )
            out.append(Person(uid, name, role))
        return out

    def _pipeline(self, index: int) -> Person:
        name = f"ci-pipeline-{index:02d}"
        joined = self._when(30)
        uid = self._user(name, "operator", joined)
        system = Who.system("system:createtoken")
        self.journal.record(
            joined, system, "user.created", "user", name, after={"username": name, "role": "operator"}
        )
        prefix, key = _key(self.rng)
        row = _token_row(len(self.tokens) + 1, uid, name, "operator", "createtoken", prefix, key, joined)
        self.tokens.append(row)
        self.journal.record(joined, system, "token.issued", "token", prefix, after=summary(row))
        return Person(uid, name, "operator", token_prefix=prefix)

    def churn_token(self, pipeline: Person, at: datetime, job: int, *, revoke: bool = True) -> None:
        """A pipeline job's own short-lived token: issued at the start, revoked at the end."""
        prefix, key = _key(self.rng)
        row = _token_row(
            len(self.tokens) + 1, pipeline.id, pipeline.username, "operator", f"job {job}", prefix, key, at
        )
        row["expires_at"] = at + timedelta(hours=2)
        self.tokens.append(row)
        request = f"{self.rng.getrandbits(128):032x}"
        self.journal.record(
            at, pipeline.api, "token.issued", "token", prefix, after=summary(row), request_id=request
        )
        if not revoke:
            return
        before = summary(row)
        row["revoked_at"] = at + timedelta(minutes=self.rng.uniform(3, 50))
        self.journal.record(
            row["revoked_at"],
            pipeline.api,
            "token.revoked",
            "token",
            prefix,
            before=before,
            after=summary(row),
            reason="job finished",
            request_id=f"{self.rng.getrandbits(128):032x}",
        )

    def workers(self, count: int, admin: Person) -> tuple[list[Machine], Rows]:
        rows: Rows = {BootstrapToken: [], Worker: [], WorkerCredential: []}
        waves = max(1, count // 12)
        system = Who.system("manage.py createbootstraptoken")
        for i in range(waves):
            created = self._when(20 + 40 * i)
            token = BOOTSTRAP_PREFIX + f"{self.rng.getrandbits(256):064x}"
            note = f"fleet wave {i + 1}"
            rows[BootstrapToken].append(
                {
                    "id": i + 1,
                    "token_hash": token_hash(token),
                    "hint": token_hint(token),
                    "note": note,
                    "created_by_id": None,
                    "created_at": created,
                    "expires_at": created + timedelta(days=7),
                    "revoked_at": None,
                    "uses": 0,
                }
            )
            self.journal.record(
                created,
                system,
                "worker.bootstrap_token.issue",
                "bootstrap_token",
                i + 1,
                after={"hint": token_hint(token), "expires_at": created + timedelta(days=7), "note": note},
            )
        machines = []
        for i in range(count):
            wave = rows[BootstrapToken][i % waves]
            wave["uses"] += 1
            cpu = i % 4 == 3  # a quarter run the in-process engine on CPUs
            name = f"{'cpu' if cpu else 'gpu'}-box-{i + 1:02d}"
            hardware: dict[str, Any] = {
                "hostname": f"{name}.fleet.internal",
                "cpu_model": "AMD EPYC 9454 48-Core Processor" if not cpu else "Intel(R) Xeon(R) Gold 6338",
                "cpu_cores": 48 if not cpu else 32,
                "memory_gib": 503.7 if not cpu else 251.6,
                "gpus": [],
            }
            if cpu:
                engines, capabilities = {"transformers": "4.57.1"}, ["openai", "transformers"]
            else:
                gpu, mem, engines = _GPU_BOXES[i % len(_GPU_BOXES)]
                n = 8 if i % 3 == 0 else 1
                hardware["gpus"] = [
                    {"name": gpu, "memory_total_gib": mem, "driver": "550.54.15", "cuda": "12.4"}
                    for _ in range(n)
                ]
                capabilities = ["managed", "openai"]
            worker = Worker(
                id=i + 1,
                name=name,
                hardware_class=hardware_class_of(hardware),
                capabilities=capabilities,
                extra_queues=[],
            )
            registered = max(wave["created_at"] + timedelta(hours=self.rng.uniform(0.1, 100)), self.start)
            revoked = i >= 4 and i % 13 == 12  # decommissioned boxes: enrolled, never used
            rows[Worker].append(
                {
                    "id": worker.id,
                    "name": name,
                    "host": hardware["hostname"],
                    "hardware_class": worker.hardware_class,
                    "hardware": hardware,
                    "engines": engines,
                    "capabilities": capabilities,
                    "agent_version": "0.1.0",
                    "spec_versions": [1],
                    "extra_queues": [],
                    "bootstrap_token_id": wave["id"],
                    "registered_at": registered,
                    "last_heartbeat_at": None
                    if revoked
                    else self.end - timedelta(seconds=self.rng.uniform(1, 40)),
                    "reported_run": None,
                    "revoked_at": registered + timedelta(days=2) if revoked else None,
                }
            )
            secret = WORKER_PREFIX + f"{self.rng.getrandbits(256):064x}"
            rows[WorkerCredential].append(
                {
                    "id": i + 1,
                    "worker_id": worker.id,
                    "token_hash": token_hash(secret),
                    "hint": token_hint(secret),
                    "created_at": registered,
                    "revoked_at": registered + timedelta(days=2) if revoked else None,
                }
            )
            self.journal.record(
                registered,
                Who.worker(name),
                "worker.register",
                "worker",
                worker.id,
                after={
                    "name": name,
                    "host": hardware["hostname"],
                    "hardware_class": worker.hardware_class,
                    "queues": worker.queues,
                    "engines": engines,
                    "agent_version": "0.1.0",
                    "bootstrap_token": wave["hint"],
                },
                request_id=f"{self.rng.getrandbits(128):032x}",
            )
            if revoked:
                self.journal.record(
                    registered + timedelta(days=2),
                    admin.browser,
                    "worker.revoke",
                    "worker",
                    worker.id,
                    before={"status": "registered"},
                    after={"status": "revoked"},
                    reason="decommissioned",
                )
            machines.append(
                Machine(
                    worker.id, name, worker.hardware_class, hardware, engines, tuple(worker.queues), revoked
                )
            )
        return machines, rows

    def build(self, scale: Any) -> Cast:
        joined = self.start - timedelta(days=1)
        admin = Person(self._user("platform-admin", None, joined, superuser=True), "platform-admin", "admin")
        taken: set[str] = set()
        approvers = self._humans("approver", scale.approvers, admin, taken)
        operators = self._humans("operator", scale.operators, admin, taken)
        self._humans("viewer", scale.viewers, admin, taken)
        pipelines = [self._pipeline(i + 1) for i in range(scale.pipelines)]
        machines, worker_rows = self.workers(scale.workers, admin)
        cast = Cast(admin, operators, approvers, pipelines, machines)
        cast.rows = {get_user_model(): self.users, UserRole: self.roles, ApiToken: self.tokens, **worker_rows}
        return cast
