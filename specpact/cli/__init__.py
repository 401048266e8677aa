"""The `specpact` command line. Offline commands (validate, render, import, schema) need
no server; server commands (submit, status, approve, rollback, wait) register from their
own module in `main.COMMAND_MODULES`."""
