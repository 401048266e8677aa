# The inference worker for a GPU box: the `worker` extra (harness, Transformers, the small
# Gemma GGUF) on a CUDA base. It runs `specpact-worker run`; it needs no database and
# holds no database credentials.
#
# torch is pinned by the `worker` extra; on a CUDA box install the CUDA build of the same
# version (the cu128 index below), never an unpinned torch.
FROM nvidia/cuda:12.8.1-runtime-ubuntu22.04

ENV DEBIAN_FRONTEND=noninteractive PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    SPECPACT_WORKER_HOME=/var/lib/specpact-worker

RUN apt-get update \
    && apt-get install -y --no-install-recommends software-properties-common \
    && add-apt-repository -y ppa:deadsnakes/ppa \
    && apt-get install -y --no-install-recommends python3.11 python3.11-venv procps \
    && rm -rf /var/lib/apt/lists/* \
    && python3.11 -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH

RUN useradd --system --create-home specpact \
    && mkdir -p /var/lib/specpact-worker && chown specpact /var/lib/specpact-worker

WORKDIR /app
# The whole context, less .dockerignore (the same file set as the control plane's image;
# `specpact-worker` imports only worker/).
COPY . .
RUN pip install "torch==2.13.0" --index-url https://download.pytorch.org/whl/cu128 \
    && pip install ".[worker]"

USER specpact
VOLUME ["/var/lib/specpact-worker"]
ENTRYPOINT ["specpact-worker"]
CMD ["run", "--help"]
