# graphmem's MCP server. Used by compose.yaml; the model weights come inside a Python package,
# so the image runs without any network access to a model hub.
FROM python:3.11-slim
ENV PIP_NO_CACHE_DIR=1 PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 \
    GRAPHMEM_CYPHER_DIR=/app/cypher
WORKDIR /app
COPY pyproject.toml README.md ./
COPY scripts/pins.txt ./scripts/pins.txt
COPY graphmem ./graphmem
COPY extractors ./extractors
COPY cypher ./cypher
RUN pip install --no-deps --require-hashes -r scripts/pins.txt && pip install .
RUN useradd --create-home --uid 10001 graphmem && mkdir -p /data && chown graphmem /data
USER graphmem
EXPOSE 8765
CMD ["graphmem", "serve", "--host", "0.0.0.0"]
