"""deploy/Caddyfile in front of test servers: a real Caddy (Debian's ``caddy``) on 127.0.0.1.

The shipped Caddyfile serves ``$NOMERCY_SITE`` with automatic TLS and finds its upstreams in
Docker's DNS (``dynamic a``); here the site is plain HTTP on a free port, the upstreams are the
test's servers, and Caddy's admin endpoint is off. Everything else (routing by room code,
health checks, timeouts) is the shipped file's, so a test through it checks the deployment.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from realserver import proxy_process

from ports import free_port

CADDYFILE = Path(__file__).resolve().parents[2] / "deploy" / "Caddyfile"


def caddy_config(port: int, upstreams: tuple[int, ...]) -> str:
    """The shipped Caddyfile, serving ``http://127.0.0.1:port`` from ``upstreams``."""
    text = CADDYFILE.read_text()
    site = "{$NOMERCY_SITE:localhost} {"
    assert site in text
    text = text.replace(site, f"http://127.0.0.1:{port} {{")
    to = "to " + " ".join(f"127.0.0.1:{u}" for u in upstreams)
    text, count = re.subn(r"dynamic a \{[^}]*\}", to, text)
    assert count == 2, "the Caddyfile's two reverse_proxy blocks find their upstreams by DNS"
    # No admin endpoint: several Caddys (tests, other jobs) run at once on one machine.
    text, count = re.subn(r"^\{\n", "{\n\tadmin off\n", text, count=1, flags=re.MULTILINE)
    assert count == 1, "the Caddyfile starts its global options block on a line of its own"
    return text


@contextlib.contextmanager
def caddy_proxy(*upstreams: int) -> Iterator[int]:
    """deploy/Caddyfile on a free port in front of ``upstreams``; yields the port."""
    caddy = shutil.which("caddy")
    if caddy is None:
        message = "Caddy is not installed (apt-get install caddy)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    port = free_port()
    home = Path(tempfile.mkdtemp(prefix="nomercy-caddy-"))
    conf = home / "Caddyfile"
    conf.write_text(caddy_config(port, upstreams))
    log = home / "caddy.log"
    env = {**os.environ, "XDG_DATA_HOME": str(home), "XDG_CONFIG_HOME": str(home)}
    with proxy_process(
        [caddy, "run", "--config", str(conf), "--adapter", "caddyfile"], port, log, home, env
    ) as served:
        yield served
