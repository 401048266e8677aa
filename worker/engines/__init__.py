"""Engines the harness drives: ``openai_engine`` (any OpenAI-compatible server),
``managed`` (launch/stop a server from its argv), ``transformers_engine`` (in process)."""
