"""Placeholder import target until the accounts issue lands its token authentication."""
