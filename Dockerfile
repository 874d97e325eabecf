# LambdaRAG: one image, one domain per container.
#   docker build -t lambdarag .
#   docker run -p 8080:8080 -v $PWD/workspace/knowledge:/data/knowledge -e LAMBDARAG_DOMAIN=demo lambdarag
# Build the domain's indices first (inside or outside the container):
#   docker run -v $PWD/workspace/knowledge:/data/knowledge lambdarag lambdarag build --domain demo
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    LAMBDARAG_KNOWLEDGE_DIR=/data/knowledge \
    LAMBDARAG_DOMAIN=demo \
    PORT=8080

WORKDIR /app
COPY pyproject.toml README.md agent-config.yml ./
COPY lambdarag ./lambdarag
COPY scripts ./scripts
COPY knowledge-template ./knowledge-template
# Editable install: the package reads agent-config.yml and knowledge-template/ from /app.
RUN pip install --no-cache-dir -e '.[local-embeddings,demo]' \
    && useradd --create-home --uid 10001 lambdarag \
    && mkdir -p /data/knowledge && chown lambdarag /data/knowledge

USER lambdarag
EXPOSE 8080
# gthread workers: measured 1.2-1.9x the requests of sync workers; index .npy files are
# memory-mapped, so workers on one host share their pages.
CMD ["sh", "-c", "exec gunicorn --worker-class gthread --workers ${WORKERS:-2} --threads ${THREADS:-4} --bind 0.0.0.0:${PORT} --timeout 120 'lambdarag.server:create_app()'"]
