"""The workers page's rows are made in Python (benchmarks_app/views/rows.py): they must be
what the templates' loops made of the same workers and runs, byte for byte, in every branch
(GPUs or none, a driver or CUDA missing, no engines or an engine without a version, a
revoked worker, one never heard from, one running a run, another route's run shown as busy,
a run without a worker), for an admin (revoke forms) and a viewer (none)."""

from __future__ import annotations

from typing import Any

import pytest
from django.template import Context, Template
from django.test import Client, override_settings
from django.utils import timezone

from benchmarks_app.models import Run, Worker
from benchmarks_app.services.lifecycle import run_start
from tests.support.workers import GPU_HARDWARE, SMALL_LOAD, openai_run, register

pytestmark = pytest.mark.django_db

NO_BROKER = "redis://127.0.0.1:9/0"

# The templates' loops as they were before the rows moved to Python.
WORKER_LOOP = """{% for w in workers %}
  <tr id="worker-{{ w.pk }}">
    <td><strong>{{ w.name }}</strong> <span class="muted">#{{ w.pk }}</span><div class="muted">{{ w.host }} · agent {{ w.agent_version }}</div></td>
    <td><span class="badge badge-{{ w.status }}">{{ w.status }}</span></td>
    <td>
      <code>{{ w.hardware_class }}</code>
      {% for gpu in w.hardware.gpus %}<div>{{ gpu.name }} · {{ gpu.memory_total_gib|floatformat:0 }} GiB{% if gpu.driver %} · driver {{ gpu.driver }}{% endif %}{% if gpu.cuda %} · CUDA {{ gpu.cuda }}{% endif %}</div>{% endfor %}
      <div class="muted">{{ w.hardware.cpu_model }} · {{ w.hardware.cpu_cores }} cores · {{ w.hardware.memory_gib|floatformat:0 }} GiB</div>
    </td>
    <td>{% for q in w.queues %}<code>{{ q }}</code>{% if not forloop.last %}<br>{% endif %}{% endfor %}</td>
    <td>{% for name, version in w.engines.items %}<div>{{ name }} <span class="muted">{{ version|default:"—" }}</span></div>{% empty %}<span class="muted">none reported</span>{% endfor %}</td>
    <td>{% if w.shown_runs %}{% with run=w.shown_runs.0 %}<a href="{{ run.url }}">run {{ run.pk }}</a><div class="muted">{{ run.route.slug }} / {{ run.lane }} · {{ run.progress_done }}/{{ run.progress_total }}</div>{% endwith %}{% elif w.active_runs %}<span class="muted">busy (another route's run)</span>{% else %}<span class="muted">idle</span>{% endif %}</td>
    <td>{% if w.last_heartbeat_at %}<time datetime="{{ w.heartbeat_iso }}">{{ w.heartbeat_words }} UTC</time>{% else %}never{% endif %}</td>
    {% if can_revoke %}<td>{% if not w.revoked_at %}<form method="post" action="{{ w.revoke_url }}" class="inline">{% csrf_token %}
      <label for="revoke-reason-{{ w.pk }}" class="muted">Reason</label><input type="text" id="revoke-reason-{{ w.pk }}" name="reason" maxlength="2000">
      <button type="submit" class="danger">Revoke</button></form>{% endif %}</td>{% endif %}
  </tr>
  {% endfor %}"""  # noqa: E501

RUN_LOOP = """{% for run in runs %}
  <tr>
    <td><a href="{{ run.url }}">run {{ run.pk }}</a>{% if run.release_id %} <span class="muted">release {{ run.release_id }}</span>{% endif %}</td>
    <td>{{ run.route.slug }} / {{ run.lane }}</td>
    <td>v{{ run.baseline_version.number }} → v{{ run.candidate_version.number }}</td>
    <td><span class="badge badge-{{ run.state }}">{{ run.get_state_display }}</span>{% if run.state == "running" %} {{ run.progress_percent }}%{% endif %}</td>
    <td>{% if run.worker %}{{ run.worker.name }}{% else %}<code>{{ run.queue }}</code>{% endif %}</td>
    <td><time datetime="{{ run.created_iso }}">{{ run.created_words }} UTC</time></td>
  </tr>
  {% endfor %}"""  # noqa: E501


@pytest.fixture
def fleet(versions: Any) -> None:
    gpu = register("gpu-<1>", hardware=GPU_HARDWARE).worker
    cpu = register("cpu&2").worker
    odd = register(
        "odd",
        hardware={
            "cpu_model": "x",
            "memory_gib": 7.4,
            "gpus": [{"name": "G", "memory_total_gib": 23.5}, {"name": "H", "driver": "1", "cuda": ""}],
        },
    ).worker
    # Straight to the rows: what a worker reports and when it was last heard of.
    Worker.objects.filter(pk=odd.pk).update(engines={}, extra_queues=["team.a", "team.b"])
    Worker.objects.filter(pk=cpu.pk).update(engines={"vllm": "", "tgi": None}, last_heartbeat_at=None)
    register("gone").worker.__class__.objects.filter(name="gone").update(revoked_at=timezone.now())
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        running = openai_run(versions, worker=gpu, overrides={**SMALL_LOAD, "warmup_requests": 0})
        openai_run(versions, overrides={**SMALL_LOAD, "warmup_requests": 0})  # queued, no worker
    run_start(run_id=running.pk, worker=gpu, attempt=1)
    Run.objects.filter(pk=running.pk).update(progress_done=3, progress_total=7)


def _page_context(user: Any) -> Any:
    client = Client()
    client.force_login(user)
    response = client.get("/workers/")
    assert response.status_code == 200
    return response


@pytest.mark.parametrize("who", ["admin", "viewer"])
def test_the_rows_are_what_the_template_loops_made(fleet: None, who: str, request: Any) -> None:
    response = _page_context(request.getfixturevalue(who))
    context = response.context
    token = "t0ken"  # the rows' CSRF field, made the same way the tag makes it
    workers_made = str(context["worker_rows"])
    field = '<input type="hidden" name="csrfmiddlewaretoken" value="'
    if context["can_revoke"]:
        assert field in workers_made
        start = workers_made.index(field) + len(field)
        token = workers_made[start : workers_made.index('"', start)]
    else:
        assert field not in workers_made
    reference = Context(
        {
            "workers": context["workers"],
            "runs": context["runs"],
            "can_revoke": context["can_revoke"],
            "csrf_token": token,
        }
    )
    assert workers_made == Template(WORKER_LOOP).render(reference)
    assert str(context["run_rows"]) == Template(RUN_LOOP).render(reference)
    body = response.content.decode()
    assert workers_made in body and str(context["run_rows"]) in body
    assert len(context["workers"]) == 4 and len(context["runs"]) == 2
    assert "busy" in workers_made or "idle" in workers_made


def test_another_routes_run_shows_as_busy(fleet: None, viewer: Any) -> None:
    """A worker's running run that the user may not see: the cell says busy, not the run."""
    context = _page_context(viewer).context
    worker = next(w for w in context["workers"] if w.active_runs)
    worker.shown_runs = []
    from benchmarks_app.views.rows import worker_rows

    made = str(worker_rows([worker], can_revoke=False))
    reference = Template(WORKER_LOOP).render(Context({"workers": [worker], "can_revoke": False}))
    assert made == reference and "busy (another route&#x27;s run)" not in made
    assert '<span class="muted">busy (another route\'s run)</span>' in made


@pytest.mark.parametrize("grouping", [False, True])
@pytest.mark.parametrize("value", [1234567, -5, True, None, 79.6, "a<b>'&\"", ""])
def test_a_value_is_rendered_as_the_template_renders_it(value: Any, grouping: bool) -> None:
    from benchmarks_app.views.rows import _text

    with override_settings(USE_THOUSAND_SEPARATOR=grouping):
        assert _text(value) == Template("{{ v }}").render(Context({"v": value}))


def test_gpus_made_once_a_page_are_still_each_as_the_template_made_them() -> None:
    """Equal reports share their markup; values equal to Python but written differently
    (1, True, 1.0) and unhashable ones (a list) are each made as they are."""
    from benchmarks_app.views.rows import _gpus

    gpus = [
        {"name": "A", "memory_total_gib": 79.6, "cuda": 1},
        {"name": "A", "memory_total_gib": 79.6, "cuda": True},
        {"name": "A", "memory_total_gib": 79.6, "cuda": 1.0},
        {"name": "A", "memory_total_gib": 79.6, "cuda": 1},
        {"name": ["x", "y"], "memory_total_gib": "n/a"},
    ]
    loop = (
        "{% for gpu in gpus %}<div>{{ gpu.name }} · {{ gpu.memory_total_gib|floatformat:0 }} GiB"
        "{% if gpu.driver %} · driver {{ gpu.driver }}{% endif %}"
        "{% if gpu.cuda %} · CUDA {{ gpu.cuda }}{% endif %}"
        "</div>{% endfor %}"
    )
    made: dict[Any, str] = {}
    assert _gpus(gpus, made) == Template(loop).render(Context({"gpus": gpus}))
    assert len(made) == 3
