"""``python -m nomercy``: the command line."""

from __future__ import annotations

from nomercy.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
