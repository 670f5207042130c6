# The nomercy web server (several of them serve one PostgreSQL database: compose.yaml).
#   docker build -t nomercy .
#   docker run -p 8000:8000 nomercy serve --host 0.0.0.0 --allowed-host '*'   # SQLite, one server
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
COPY pyproject.toml README.md MANIFEST.in ./
COPY buildtools ./buildtools
COPY src ./src
# Pure-Python core (no compiler in the slim image); the web and PostgreSQL extras.
RUN NOMERCY_COMPILE=0 pip install '.[web,web-pg]' \
    && useradd --system --home-dir /data --create-home nomercy
USER nomercy
ENV XDG_DATA_HOME=/data
EXPOSE 8000
# /healthz: the process answers; /readyz: it serves (its database heartbeat is current).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
    CMD python -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=2)" || exit 1
STOPSIGNAL SIGTERM
ENTRYPOINT ["nomercy"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8000"]
