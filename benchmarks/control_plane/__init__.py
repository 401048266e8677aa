"""The control plane under load: issue 16, item 2. Run `benchmarks/control_plane/run.py`.

Why an asyncio client (httpx, one process) and not locust: on a 2-core machine the load
generator shares the CPUs with gunicorn and PostgreSQL, so it should cost as little as
possible and hide nothing.
- Every latency is kept and the percentiles are computed from all of them; locust keeps
  response times rounded into buckets ("147 becomes 150, 3432 becomes 3400", locust's
  `stats.py`, `StatsEntry._log_response_time`), so its p95/p99 above 1 s move in 100 ms steps.
- A closed loop of exactly N clients with no think time is a few lines of asyncio; the
  client's own CPU per request is measured and reported beside the server's, so a reader
  can see how much of the machine the client took.
- No extra dependency: httpx is already one of the control plane's.
What it does not do that locust would: several client machines, a web UI, open-loop
arrival rates. None is needed on one machine's loopback.
"""
