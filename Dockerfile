# LambdaRAG: one image, one domain per container (docker-compose.yml runs one per domain).
#   docker build -t lambdarag .
#   docker run -p 8080:8080 -v $PWD/workspace/knowledge:/data/knowledge -e LAMBDARAG_DOMAIN=demo lambdarag
# Build the domain's indices first, with the same image and the same environment as the server:
#   docker run --rm -v $PWD/workspace/knowledge:/data/knowledge lambdarag lambdarag build --domain demo
# Every setting of agent-config.yml can be set with LAMBDARAG__SECTION__KEY=value (docs/CONFIG.md).
FROM python:3.11-slim

# Optional dependency groups of pyproject.toml: the local embedder and the demo's PDF writer by default;
# docker-compose.yml builds with demo,milvus (bge-m3 is served, the vectors live in Milvus).
ARG EXTRAS=local-embeddings,demo

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    LAMBDARAG_KNOWLEDGE_DIR=/data/knowledge \
    LAMBDARAG_DOMAIN=demo \
    LAMBDARAG__SERVER__HOST=0.0.0.0 \
    PORT=8080

WORKDIR /app
COPY pyproject.toml README.md agent-config.yml ./
COPY lambdarag ./lambdarag
COPY scripts ./scripts
COPY knowledge-template ./knowledge-template
# Editable install: the package reads agent-config.yml and knowledge-template/ from /app. No compiler and no
# apt packages: every dependency ships a manylinux wheel (.dockerignore keeps workspace/, tests and .venv out).
RUN pip install -e ".[${EXTRAS}]" \
    && useradd --create-home --uid 10001 lambdarag \
    && mkdir -p /data/knowledge && chown lambdarag /data/knowledge

USER lambdarag
VOLUME ["/data/knowledge"]
EXPOSE 8080
# /healthz: the process answers (readiness with each part is GET /readyz). Python, since slim has no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8080'), timeout=4)"]
# `lambdarag serve` runs gunicorn (gthread workers; server.workers / server.threads, e.g.
# LAMBDARAG__SERVER__WORKERS=4) for $LAMBDARAG_DOMAIN on $PORT.
CMD ["lambdarag", "serve"]
