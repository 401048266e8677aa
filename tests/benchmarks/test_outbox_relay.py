"""The transactional outbox against a real (private) Redis: published after commit,
retried with backoff while the broker is down, exactly once however many relays run."""

from __future__ import annotations

import json
import threading
from io import StringIO
from typing import Any

import pytest
import redis
from django.core.management import call_command
from django.db import connection
from django.test import override_settings

from benchmarks_app.models import OutboxMessage, Run
from benchmarks_app.services.outbox import outbox_relay
from benchmarks_app.services.runs import run_cancel
from tests.support.processes import RedisServer
from tests.support.workers import SMALL_LOAD, openai_run

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _create(versions: Any, operator: Any, pool: str = "cpu") -> Run:
    return openai_run(versions, actor=operator, pool=pool, overrides=SMALL_LOAD)


def _queued(server: RedisServer, queue: str) -> list[dict[str, Any]]:
    client = redis.Redis.from_url(server.url)
    return [json.loads(raw) for raw in client.lrange(queue, 0, -1)]


def test_a_created_run_is_published_after_commit(
    redis_server: RedisServer, versions: Any, operator: Any
) -> None:
    with override_settings(CELERY_BROKER_URL=redis_server.url):
        run = _create(versions, operator)
    message = OutboxMessage.objects.get(run=run)
    assert message.published_at is not None and message.publish_count == 1
    [envelope] = _queued(redis_server, "pool.cpu")
    assert envelope["headers"]["task"] == "specpact.worker.run_benchmark"
    assert envelope["headers"]["id"] == f"run-{run.pk}-attempt-1"
    assert envelope["headers"]["timelimit"] == [
        run.spec["limits"]["time_limit_s"],
        run.spec["limits"]["soft_time_limit_s"],
    ]


def test_with_redis_down_runs_are_still_created_and_delivered_once_it_is_back(
    redis_server: RedisServer, versions: Any, operator: Any
) -> None:
    redis_server.stop()
    with override_settings(CELERY_BROKER_URL=redis_server.url):
        runs = [_create(versions, operator) for _ in range(3)]
        pending = OutboxMessage.objects.filter(published_at__isnull=True)
        assert pending.count() == 3
        assert all(m.tries == 1 and "Error" in m.last_error and m.next_try_at for m in pending)
        redis_server.start()
        out = StringIO()
        call_command("relay_outbox", "--now", stdout=out)
        assert "published 3" in out.getvalue()
        call_command("relay_outbox", "--now", stdout=out)  # nothing left: nothing twice
    ids = sorted(e["headers"]["id"] for e in _queued(redis_server, "pool.cpu"))
    assert ids == sorted(f"run-{r.pk}-attempt-1" for r in runs)
    assert set(OutboxMessage.objects.values_list("publish_count", flat=True)) == {1}


def test_a_run_cancelled_before_the_relay_is_never_delivered(
    redis_server: RedisServer, versions: Any, operator: Any
) -> None:
    redis_server.stop()
    with override_settings(CELERY_BROKER_URL=redis_server.url):
        run = _create(versions, operator)
        run_cancel(run=run, actor=operator, reason="changed my mind")
        redis_server.start()
        call_command("relay_outbox", "--now", stdout=StringIO())
    assert _queued(redis_server, "pool.cpu") == []
    assert OutboxMessage.objects.get(run=run).discarded_at is not None


def test_relays_running_at_once_publish_each_message_once(
    redis_server: RedisServer, versions: Any, operator: Any
) -> None:
    redis_server.stop()
    with override_settings(CELERY_BROKER_URL=redis_server.url):
        runs = [_create(versions, operator) for _ in range(12)]
        OutboxMessage.objects.update(next_try_at=None)
        redis_server.start()

        def relay() -> None:
            try:
                outbox_relay()
            finally:
                connection.close()

        threads = [threading.Thread(target=relay) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    ids = [e["headers"]["id"] for e in _queued(redis_server, "pool.cpu")]
    assert sorted(ids) == sorted(f"run-{r.pk}-attempt-1" for r in runs)
    assert set(OutboxMessage.objects.values_list("publish_count", flat=True)) == {1}
