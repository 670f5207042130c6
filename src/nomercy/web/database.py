"""The database ``--database`` names: a SQLite file (:mod:`nomercy.web.store`) or a
PostgreSQL URL (:mod:`nomercy.web.postgres`), both the one SQL core of
:mod:`nomercy.web.sqlcore` in their dialect."""

from __future__ import annotations

from pathlib import Path

from nomercy.web.sqlcore import StoreBase
from nomercy.web.store import Store, is_postgres_url

__all__ = ["open_store"]


def open_store(database: str | Path, *, server_id: str | None = None) -> StoreBase:
    """The store for ``--database``: PostgreSQL for a ``postgresql://`` URL (``server_id``: this
    server's, for its leases), else a SQLite file.

    Raises:
        StoreError: it cannot be opened, or is not a nomercy server database.
    """
    if is_postgres_url(database):
        # Imported here, not above: psycopg is optional (the web-pg extra), and a SQLite
        # server runs without it. No cycle: postgres.py never imports this module.
        from nomercy.web.postgres import PgStore

        return PgStore(str(database), server_id=server_id)
    return Store(database)
