"""Issue 16's data at scale: 500 routes, 20,000 contract versions, 5,000 releases, 20,000
runs with 15,000 results (~2,000,000 per-request samples) and 100,000 audit events, in
the app's own shapes, written with COPY. Run it with `benchmarks/datagen/run.py`; the
modules, one per kind of object:

- `documents`: contract documents (the examples, varied), validated and digested by the app;
- `people`: users, roles, API tokens, bootstrap tokens, workers;
- `story`: each route's versions and releases through the app's transitions;
- `runs_plan`: standalone runs, ids in time order, run states and run events;
- `samples`, `results`: per-request samples and the result payload, its row and aggregates;
- `units`: specs, run rows, outbox rows, results and gates, in worker processes;
- `release_events`: release rows, decisions and release events once the gates have run;
- `audit`: the hash chain, with `audit_app.chain`'s own functions;
- `pgcopy`: COPY by Django model;
- `generate`: the three phases.
"""
