# pbm, the Trax play-by-e-mail server, in a container (README: "Operating a server"):
#   docker build -t pbm .
#   docker run -d --name pbm -p 127.0.0.1:2525:2525 -p 127.0.0.1:8080:8080 -p 127.0.0.1:9180:9180 -v pbm-data:/var/lib/pbm pbm

# The wheel, built from this folder (pbm/templates is a link to templates/: the wheel holds them)
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY . /src
RUN pip wheel --no-deps --wheel-dir /wheels /src

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY --from=build /wheels /wheels
RUN pip install /wheels/*.whl && rm -rf /wheels

# A user of its own; the database, the outbox Maildir and the lock file in the volume, which it owns
RUN groupadd --system --gid 10001 pbm \
 && useradd --system --uid 10001 --gid pbm --home-dir /var/lib/pbm --no-create-home --shell /usr/sbin/nologin pbm \
 && mkdir -p /var/lib/pbm /etc/pbm \
 && chown pbm:pbm /var/lib/pbm \
 && chmod 0750 /var/lib/pbm
COPY contrib/pbm-docker.toml /etc/pbm/pbm.toml

USER pbm
WORKDIR /var/lib/pbm
VOLUME ["/var/lib/pbm"]
# the SMTP (or LMTP) listener, the web view, the metrics listener (/metrics, /healthz: publish it to
# the host's 127.0.0.1 or a Prometheus's network only)
EXPOSE 2525 8080 9180
# healthy: the daemon holds the database and its heartbeat is fresh (pbm status reads the lock file and
# the database: no HTTP, so it works whatever [metrics] says)
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["pbm", "status", "--quiet", "--config", "/etc/pbm/pbm.toml"]
# SIGTERM (docker stop): the mail in hand is finished, what can be sent is sent
STOPSIGNAL SIGTERM
CMD ["pbm", "serve", "--config", "/etc/pbm/pbm.toml"]
