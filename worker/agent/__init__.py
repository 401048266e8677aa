"""The inference worker's agent: registration, heartbeats, the Celery app and task that
run benchmarks from run specifications, and the client that reports to the REST API.

Imports nothing from Django: a GPU box holds no database credentials."""

AGENT_VERSION = "0.1.0"
