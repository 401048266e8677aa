"""Problem extension members (RFC 9457 §3.2): added beside the standard members, never
replacing one of them, whatever a service puts in them."""

from __future__ import annotations

from kernel.api.problems import problem_exception_handler
from kernel.errors import Conflict


def test_an_extension_is_added_and_never_replaces_a_standard_member() -> None:
    exc = Conflict("Busy.", code="release_open", extensions={"open_release": {"id": 7}, "status": 200})
    response = problem_exception_handler(exc, {})
    assert response is not None and response.status_code == 409
    assert response.data["open_release"] == {"id": 7}
    assert response.data["status"] == 409 and response.data["code"] == "release_open"


def test_a_conflict_without_extensions_has_only_the_standard_members() -> None:
    response = problem_exception_handler(Conflict("Busy."), {})
    assert response is not None
    assert set(response.data) <= {"type", "title", "status", "detail", "code", "request_id"}


def test_a_database_that_is_unavailable_answers_503_with_retry_after() -> None:
    """A restart cuts the connection (psycopg raises OperationalError): the request had no
    effect, and clients (the GPU worker's agent) send it again on a 503, not on a 500."""
    from django.db import InterfaceError, OperationalError

    for exc in (OperationalError("the database system is starting up"), InterfaceError("connection closed")):
        response = problem_exception_handler(exc, {})
        assert response is not None and response.status_code == 503
        assert response["Retry-After"] == "5" and response.data["code"] == "database_unavailable"
        assert response.content_type == "application/problem+json"


def test_any_other_unexpected_error_is_left_to_django_as_a_500() -> None:
    assert problem_exception_handler(RuntimeError("boom"), {}) is None
