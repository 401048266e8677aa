"""The benchmark's floor (issue 26, point 1): one page and one API endpoint that only
authenticate their caller, so that `benchmarks/control_plane/run.py` can state what every
other request costs as a multiple of what any authenticated request costs on the same
machine in the same run (the machine is shared: absolute milliseconds move, ratios don't).

Both answer 404 unless `SPECPACT_BENCH_FLOOR` is on. The check is per request, not in the
URLconf, so that turning it on needs no other change and tests can flip it."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_safe
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kernel.errors import NotFound

OFF = "The benchmark floor is off (SPECPACT_BENCH_FLOOR)."


@require_safe
def page_floor(request: HttpRequest) -> HttpResponse:
    # Checked before login_required: off, an anonymous caller gets the 404 too, not a
    # redirect that would say the path exists.
    if not settings.SPECPACT_BENCH_FLOOR:
        raise Http404(OFF)
    return _page_floor_authenticated(request)


@login_required
def _page_floor_authenticated(request: HttpRequest) -> HttpResponse:
    return HttpResponse(b"floor\n", content_type="text/plain; charset=utf-8")


class ApiFloor(APIView):
    """The API's default authentication (token or session) and permission (authenticated),
    and nothing else. Not in the schema: it is no part of the public surface."""

    def initial(self, request: Request, *args: object, **kwargs: object) -> None:
        # Before authentication, for the same reason as the page: off, nothing answers here.
        if not settings.SPECPACT_BENCH_FLOOR:
            raise NotFound(OFF)
        super().initial(request, *args, **kwargs)

    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        return Response({"floor": True})
