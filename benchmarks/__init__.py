"""Benchmarks of SpecPact (figures, not pass/fail tests): `make bench` runs them."""
