"""Advice: which method, how many tokens and up to which load, per lane (issue 24).

`advice_app.strategy` is the pure core (no Django, no Celery): the advisor that decides
what to measure next and what the measurements recommend."""
