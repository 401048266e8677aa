"""What llama-server's `--help` of b11434 says about its flags' shapes, for import."""

from __future__ import annotations

# Flags of b11434 that take no value (read from its --help), so that import does not
# mistake the next word for their value.
BARE_FLAGS: frozenset[str] = frozenset(
    """-h --help --usage --version -cl --cache-list --completion-bash --swa-full -- --no-perf -e --escape
    --no-escape -kvo --kv-offload -nkvo --no-kv-offload --repack -nr --no-repack --no-host
    --list-devices -cmoe --cpu-moe --check- --op-offload --no-op-offload --log-disable --log-jsonl
    --no-log-jsonl -v -- --log-verbose --offline --log-prefix --no-log-prefix --log-timestamps --no-
    -timestamps --ignore-eos -bs --backend-sampling -kvu --kv-unified -no-kvu --no- -unified
    --cache-idle-slots --no-cache-idle-slots --context-shift --no-context-shift -sp --special --warmup
    --no-warmup --spm-infill -cb --cont-batching -nocb --no- -batching --mmproj-auto --no-mmproj
    --no-mmproj-auto --mmproj-offload --no-mmproj- --reuse-port --cors-credentials --no-cors-credentials
    --ui-mcp-proxy --webui-mcp- --no-ui-mcp-proxy --no-webui-mcp-proxy -ag --agent -no-ag --no-agent
    --ui --webui --no-ui --no-webui --embedding --embeddings --rerank --reranking --cache-
    --no-cache-prompt --metrics --props --slots --no-slots --models-autoload -- -models-autoload --jinja
    --no-jinja --reasoning-preserve --no-reasoning-preserve -- -chat-parsing --no-skip-chat-parsing
    --prefill-assistant --no-prefill-assistant --lora- -without-apply --no-mmap --mlock""".split()  # noqa: SIM905 (a copy of --help, kept readable)
)
