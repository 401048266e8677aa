"""The workloads pages: the list of what you may see, and a workload version's page with
its statistics, where it came from, and the lanes and contracts that measure on it."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from accounts_app.permissions import has_role
from workloads_app.charts import workload_figures
from workloads_app.selectors import split_ref, workload_tombstone, workload_uses, workloads_visible_to


@login_required
def workload_list(request: HttpRequest) -> HttpResponse:
    versions = workloads_visible_to(request).order_by("name", "-created_at", "-id")
    return render(
        request,
        "workloads/list.html",
        {"versions": versions, "can_upload": has_role(request, "operator"), "nav": "workloads"},
    )


@login_required
def workload_by_id(request: HttpRequest, pk: int) -> HttpResponse:
    version = workloads_visible_to(request).filter(pk=pk).first()
    if version is None:
        raise Http404("No such workload is visible to you.")
    return redirect("workload-detail", version.ref)


@login_required
def workload_detail(request: HttpRequest, key: str) -> HttpResponse:
    name, digest = split_ref(key)
    visible = workloads_visible_to(request).filter(name=name)
    version = (
        visible.filter(digest=digest).first() if digest else visible.order_by("-created_at", "-id").first()
    )
    if version is None:
        raise Http404("No such workload is visible to you.")
    stats = version.stats
    return render(
        request,
        "workloads/detail.html",
        {
            "version": version,
            "deleted": not getattr(version, "has_content", True),
            "tombstone": workload_tombstone(version),
            "stats": stats,
            "charts": workload_figures(stats),
            "uses": workload_uses(version, request),
            "others": [v for v in visible.order_by("-created_at", "-id") if v.pk != version.pk],
            "nav": "workloads",
        },
    )
