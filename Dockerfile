# graphmem's MCP server: CPU only, no torch. The embedding model is an ONNX file inside a Python
# package, so nothing is fetched from a model hub, at build time or at run time.
#
#   docker build -t graphmem:0.1.0 .    (or `docker compose build`; docs/deploy.md)
#
# Three stages, so that a change to graphmem's code rebuilds only the last small layers:
#   deps   the dependencies, from the hashed lock file and nothing else
#   wheel  graphmem itself as a wheel (setuptools stays in this throwaway stage)
#   final  the two, a non-root user, the data volume, and a build-time check of the model
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS deps
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/venv
# Only the lock file is copied here: this layer is rebuilt when it changes, not when code does.
# --no-deps: every package, transitive ones included, is in the lock with its hashes.
COPY requirements/production.txt /tmp/requirements.txt
RUN /opt/venv/bin/pip install --no-deps --require-hashes -r /tmp/requirements.txt

FROM ${PYTHON_IMAGE} AS wheel
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY graphmem ./graphmem
COPY extractors ./extractors
COPY cypher ./cypher
RUN pip wheel --no-deps --wheel-dir /wheels .

FROM ${PYTHON_IMAGE}
ENV PATH=/opt/venv/bin:$PATH \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HF_HUB_OFFLINE=1 \
    GRAPHMEM_DATA_DIR=/data \
    GRAPHMEM_HOST=0.0.0.0 \
    GRAPHMEM_PORT=8765
# Tesseract reads the text in image memories (English and Simplified Chinese); without it an
# image is stored with its caption only.
RUN apt-get update \
    && apt-get install -y --no-install-recommends tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 graphmem \
    && useradd --system --uid 10001 --gid graphmem --create-home graphmem \
    && mkdir /data && chown graphmem:graphmem /data && chmod 0700 /data
COPY --from=deps /opt/venv /opt/venv
COPY --from=wheel /wheels /tmp/wheels
# pip check: a lock file that misses a dependency of graphmem fails here, not at first request.
RUN pip install --no-deps /tmp/wheels/*.whl && rm -rf /tmp/wheels && pip check
COPY deploy/docker/entrypoint.py deploy/docker/healthcheck.py /opt/graphmem/
USER graphmem
WORKDIR /home/graphmem
# Load the model and embed once, as the user the server runs as: a broken or missing model, or
# a runtime that cannot run it on this CPU, fails the build instead of the first search. It also
# leaves ONNX Runtime's optimised graph in ~/.cache/graphmem, so the server opens it at once.
# Cosines are compared above the model's floor (multilingual-e5 puts unrelated texts near 0.8).
RUN python -c "from graphmem.embedding import embedder_for; from graphmem.settings import Settings; e = embedder_for(Settings()); v = e.encode(['a cat sat on the mat', 'a kitten rests on a rug', 'the quarterly tax filing deadline']); s = (v @ v.T - e.score_floor) / (1 - e.score_floor); assert v.shape == (3, 384) and s[0, 1] > s[0, 2] + 0.2, s; print('embedding model ok')"
VOLUME ["/data"]
EXPOSE 8765
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=6 \
    CMD ["python", "/opt/graphmem/healthcheck.py"]
ENTRYPOINT ["python", "/opt/graphmem/entrypoint.py"]
CMD ["graphmem", "serve"]
