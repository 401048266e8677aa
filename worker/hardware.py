"""Hardware facts and memory readings: NVML where there is a GPU, else CPU and RSS.

``pynvml`` (package ``nvidia-ml-py``) is optional: without it, or without a driver, the
GPU list is empty and memory readings fall back to process RSS / system memory.
"""

from __future__ import annotations

import os
import platform
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil

from worker.harness.results.result import GpuFacts, HardwareFacts, MemorySnapshot

GIB = 1024**3


def _nvml() -> Any | None:
    """The initialised pynvml module, or None when there is no usable NVIDIA driver."""
    try:
        import pynvml

        pynvml.nvmlInit()
        return pynvml
    except Exception:
        # No library, no driver, no device: all mean "no NVIDIA GPU here".
        return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def gpu_facts() -> list[GpuFacts]:
    nv = _nvml()
    if nv is None:
        return []
    try:
        driver = _text(nv.nvmlSystemGetDriverVersion())
        cuda_raw = nv.nvmlSystemGetCudaDriverVersion()
        cuda = f"{cuda_raw // 1000}.{(cuda_raw % 1000) // 10}"
        gpus = []
        for i in range(nv.nvmlDeviceGetCount()):
            handle = nv.nvmlDeviceGetHandleByIndex(i)
            gpus.append(
                GpuFacts(
                    name=_text(nv.nvmlDeviceGetName(handle)),
                    memory_total_gib=nv.nvmlDeviceGetMemoryInfo(handle).total / GIB,
                    driver=driver,
                    cuda=cuda,
                )
            )
        return gpus
    finally:
        nv.nvmlShutdown()


def hardware_facts() -> HardwareFacts:
    return HardwareFacts(
        hostname=socket.gethostname(),
        cpu_model=_cpu_model(),
        cpu_cores=os.cpu_count() or 1,
        memory_gib=psutil.virtual_memory().total / GIB,
        gpus=gpu_facts(),
    )


def memory_snapshot(pid: int | None = None) -> MemorySnapshot:
    """GPU memory used/free summed over devices; without a GPU, the RSS of ``pid`` (and
    its children; default this process) with the system's available memory as free."""
    nv = _nvml()
    if nv is not None:
        try:
            used = free = total = 0
            for i in range(nv.nvmlDeviceGetCount()):
                info = nv.nvmlDeviceGetMemoryInfo(nv.nvmlDeviceGetHandleByIndex(i))
                used, free, total = used + info.used, free + info.free, total + info.total
            return MemorySnapshot(kind="gpu", used_gib=used / GIB, free_gib=free / GIB, total_gib=total / GIB)
        finally:
            nv.nvmlShutdown()
    vm = psutil.virtual_memory()
    return MemorySnapshot(
        kind="process_rss",
        used_gib=process_tree_rss(pid) / GIB,
        free_gib=vm.available / GIB,
        total_gib=vm.total / GIB,
    )


def process_tree_rss(pid: int | None = None) -> int:
    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            continue
    return total


def reset_rss_peak() -> bool:
    """Reset this process's RSS high-water mark (Linux ``clear_refs`` 5); False if unsupported."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def rss_peak_bytes() -> int | None:
    """This process's RSS high-water mark (VmHWM) since start or the last reset."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


class MemorySampler:
    """Polls memory in a thread while a benchmark runs and keeps the highest reading."""

    def __init__(self, pid: int | None = None, interval_s: float = 0.5) -> None:
        self.pid, self.interval_s = pid, interval_s
        self.peak_gib: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="memory-sampler", daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            used = memory_snapshot(self.pid).used_gib
            self.peak_gib = used if self.peak_gib is None else max(self.peak_gib, used)
            self._stop.wait(self.interval_s)

    @contextmanager
    def running(self) -> Iterator[MemorySampler]:
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join()
