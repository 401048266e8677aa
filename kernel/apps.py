from django.apps import AppConfig


class KernelConfig(AppConfig):
    """The plumbing every app uses and that imports no app: the domain error types, the
    API's parsers, problems, pagination, ETags, idempotency and request guard, the outbound
    guard, text checks, the request context, the page error views and beat's single-sender
    lease (kernel/beat.py).

    Its label stays `specpact`: these tables and migrations were made when the kernel
    lived inside the project package, and the label keeps their names and history."""

    name = "kernel"
    label = "specpact"
    verbose_name = "SpecPact kernel"

    def ready(self) -> None:
        # Connects the Celery signal handlers; registers the benchmark floor's deploy check.
        from kernel import celery_context, checks  # noqa: F401
