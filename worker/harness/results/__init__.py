"""The benchmark result's models, one module per subject (see `result`); import each name
from the module that defines it."""
