"""The workers page's table rows, made in Python: each worker's hardware (up to eight GPUs
a machine), queues and engines, and the recent runs, through the template engine were
~600 variable lookups a page, each int through number localisation, most of the page's
CPU (issue 26, point 1). The markup is the templates' as it was, each value rendered as
the template rendered it (`_text`: localised, then escaped)."""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from typing import Any

from django.conf import settings
from django.template.defaultfilters import floatformat
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

from benchmarks_app.models import Run, Worker


def _text(value: Any) -> str:
    """`{{ value }}` with autoescape: a plain string escaped (what `escape` does to one),
    anything else localised first, as the template does (an int, without thousand
    separators, is its digits: number localisation looks the language up per call, and
    was most of what the rows still cost)."""
    if type(value) is str:
        return escape(value)
    if type(value) is int and not settings.USE_THOUSAND_SEPARATOR:
        return str(value)  # what number localisation gives an int without grouping
    return str(conditional_escape(localize(value)))


def _at(value: Any, key: str) -> Any:
    """`{{ value.key }}` of a reported JSON document: a missing key (or a value that is no
    object) is the template's empty string."""
    return value.get(key, "") if isinstance(value, dict) else ""


_WORKER = (
    '\n  <tr id="worker-{pk}">\n'
    '    <td><strong>{name}</strong> <span class="muted">#{pk}</span>'
    '<div class="muted">{host} · agent {agent}</div></td>\n'
    '    <td><span class="badge badge-{status}">{status}</span></td>\n'
    "    <td>\n"
    "      <code>{hardware_class}</code>\n"
    "      {gpus}\n"
    '      <div class="muted">{cpu_model} · {cpu_cores} cores · {memory} GiB</div>\n'
    "    </td>\n"
    "    <td>{queues}</td>\n"
    "    <td>{engines}</td>\n"
    "    <td>{current}</td>\n"
    "    <td>{heartbeat}</td>\n"
    "    {revoke}\n"
    "  </tr>\n  "
)

_REVOKE = (
    '<td><form method="post" action="{url}" class="inline">{csrf}\n'
    '      <label for="revoke-reason-{pk}" class="muted">Reason</label>'
    '<input type="text" id="revoke-reason-{pk}" name="reason" maxlength="2000">\n'
    '      <button type="submit" class="danger">Revoke</button></form></td>'
)


def _gpu(gpu: Any) -> str:
    driver, cuda = _at(gpu, "driver"), _at(gpu, "cuda")
    return (
        f"<div>{_text(_at(gpu, 'name'))} · {floatformat(_at(gpu, 'memory_total_gib'), 0)} GiB"
        f"{f' · driver {_text(driver)}' if driver else ''}{f' · CUDA {_text(cuda)}' if cuda else ''}</div>"
    )


def _gpus(gpus: Any, made: dict[Any, str]) -> str:
    """A worker's GPUs, each made once a page per distinct report (`made`): a fleet is
    mostly the same few cards, eight a machine, and `floatformat` is the costly part."""
    if not isinstance(gpus, list):
        return ""
    out = []
    for gpu in gpus:
        try:
            # With each value's type: 1 == True == 1.0, but they are written differently.
            key: Any = tuple((k, type(v), v) for k, v in gpu.items()) if isinstance(gpu, dict) else None
            hash(key)
        except TypeError:  # a list or an object among its values: made as it is
            key = None
        if key is None:
            out.append(_gpu(gpu))
            continue
        if key not in made:
            made[key] = _gpu(gpu)
        out.append(made[key])
    return "".join(out)


def _current(worker: Any) -> str:
    if worker.shown_runs:
        run = worker.shown_runs[0]
        return (
            f'<a href="{_text(run.url)}">run {_text(run.pk)}</a><div class="muted">'
            f"{_text(run.route.slug)} / {_text(run.lane)} · "
            f"{_text(run.progress_done)}/{_text(run.progress_total)}</div>"
        )
    if worker.active_runs:
        return '<span class="muted">busy (another route\'s run)</span>'
    return '<span class="muted">idle</span>'


def worker_rows(workers: Iterable[Worker], *, can_revoke: bool, csrf_input: str = "") -> SafeString:
    """The fleet table's `<tr>`s, for `workers_page`'s workers (with `shown_runs`,
    `active_runs`, `revoke_url`, `heartbeat_iso`/`_words` set); `csrf_input` the form's
    token field, shown with the revoke forms when `can_revoke`."""
    rows: list[str] = []
    made: dict[Any, str] = {}  # GPU report → its markup, for this page
    for worker in workers:
        w: Any = worker
        hardware = w.hardware
        gpus = _at(hardware, "gpus")
        engines = w.engines.items() if isinstance(w.engines, dict) else ()
        revoke = ""
        if can_revoke:
            revoke = (
                "<td></td>"
                if w.revoked_at
                else _REVOKE.format(url=_text(w.revoke_url), csrf=csrf_input, pk=_text(w.pk))
            )
        rows.append(
            _WORKER.format(
                pk=_text(w.pk),
                name=_text(w.name),
                host=_text(w.host),
                agent=_text(w.agent_version),
                status=_text(w.status),
                hardware_class=_text(w.hardware_class),
                gpus=_gpus(gpus, made),
                cpu_model=_text(_at(hardware, "cpu_model")),
                cpu_cores=_text(_at(hardware, "cpu_cores")),
                memory=floatformat(_at(hardware, "memory_gib"), 0),
                queues="<br>".join(f"<code>{_text(q)}</code>" for q in w.queues),
                engines="".join(
                    f'<div>{_text(name)} <span class="muted">{_text(version or "—")}</span></div>'
                    for name, version in engines
                )
                or '<span class="muted">none reported</span>',
                current=_current(w),
                heartbeat=(
                    f'<time datetime="{_text(w.heartbeat_iso)}">{_text(w.heartbeat_words)} UTC</time>'
                    if w.last_heartbeat_at
                    else "never"
                ),
                revoke=revoke,
            )
        )
    return mark_safe("".join(rows))  # noqa: S308  # every value above rendered by _text or floatformat


_RUN = (
    "\n  <tr>\n"
    '    <td><a href="{url}">run {pk}</a>{release}</td>\n'
    "    <td>{route} / {lane}</td>\n"
    "    <td>v{baseline} → v{candidate}</td>\n"
    '    <td><span class="badge badge-{state}">{state_words}</span>{percent}</td>\n'
    "    <td>{worker}</td>\n"
    '    <td><time datetime="{created_iso}">{created_words} UTC</time></td>\n'
    "  </tr>\n  "
)


def recent_run_rows(runs: Iterable[Run]) -> SafeString:
    """The recent runs' `<tr>`s, for `workers_page`'s runs (`recent_runs`, with `url` and
    `created_iso`/`_words` set)."""
    rows = []
    for run in runs:
        r: Any = run
        rows.append(
            _RUN.format(
                url=_text(r.url),
                pk=_text(run.pk),
                release=f' <span class="muted">release {_text(run.release_id)}</span>'
                if run.release_id
                else "",
                route=_text(run.route.slug),
                lane=_text(run.lane),
                baseline=_text(run.baseline_version.number),
                candidate=_text(run.candidate_version.number),
                state=_text(run.state),
                state_words=_text(run.get_state_display()),
                percent=f" {_text(run.progress_percent)}%" if run.state == "running" else "",
                worker=_text(run.worker.name) if run.worker else f"<code>{_text(run.queue)}</code>",
                created_iso=_text(r.created_iso),
                created_words=_text(r.created_words),
            )
        )
    return mark_safe("".join(rows))  # noqa: S308  # every value above rendered by _text
