from benchmarks_app.models.outbox import OutboxMessage
from benchmarks_app.models.runs import Run, RunResult
from benchmarks_app.models.workers import BootstrapToken, Worker, WorkerCredential

__all__ = ["BootstrapToken", "OutboxMessage", "Run", "RunResult", "Worker", "WorkerCredential"]
