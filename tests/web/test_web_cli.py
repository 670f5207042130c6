"""``nomercy serve``: flags are checked before the server starts (exit status 2, one line)."""

from __future__ import annotations

import logging
import socket
import sys
import unittest.mock
from pathlib import Path

import pytest

from nomercy.cli.main import main
from nomercy.web.serve import default_database


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--port", "0"], "--port must be 1-65535"),
        (["--port", "70000"], "--port must be 1-65535"),
        (["--bot-delay", "-1"], "--bot-delay must be >= 0"),
        (["--grace", "-5"], "--grace must be >= 0"),
        (["--rate-limit", "0"], "--rate-limit must be > 0"),
        (["--room-idle", "-1"], "--room-idle must be >= 0"),
        (["--max-connections", "0"], "--max-connections must be >= 1"),
        (["--room-connections", "0"], "--room-connections must be >= 1"),
        (["--max-per-address", "-1"], "--max-per-address must be >= 0"),
        (["--header-timeout", "0"], "--header-timeout must be > 0"),
        (["--hello-timeout", "-2"], "--hello-timeout must be > 0"),
        (["--unjoined-room-idle", "-1"], "--unjoined-room-idle must be >= 0"),
        (["--rooms-per-hour", "-1"], "--rooms-per-hour must be >= 0"),
        (["--max-rooms", "-3"], "--max-rooms must be >= 0"),
        (["--hellos-per-address", "-1"], "--hellos-per-address must be >= 0"),
        (["--send-budget", "100"], "--send-budget must be >= 4096"),
        (["--hint-workers", "0"], "--hint-workers must be >= 1"),
        (["--hint-iterations", "0"], "--hint-iterations must be >= 1"),
        (["--sockets-per-address", "-1"], "--sockets-per-address must be >= 0"),
        (["--ws-ping", "0"], "--ws-ping must be > 0"),
        (["--allowed-host", "http://cards.example/"], "--allowed-host takes a host name"),
        (["--allowed-host", ""], "--allowed-host takes a host name"),
    ],
)
def test_bad_flags_exit_2_with_a_message(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nomercy serve: error: ") and needle in err


def test_a_host_that_names_no_address_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The lookup is stubbed: no name service is asked (tests stay off the network).
    lookup = unittest.mock.patch("socket.getaddrinfo", side_effect=socket.gaierror(-2, "nope"))
    with lookup:
        assert main(["serve", "--host", "999.1.1.1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nomercy serve: error: --host 999.1.1.1: not an address to listen on")


@pytest.mark.no_store
def test_the_first_bad_flag_in_checking_order_is_the_one_named(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["serve", "--ws-ping", "0", "--grace", "-1", "--max-rooms", "-1"]) == 2
    assert "--grace must be >= 0, got -1.0" in capsys.readouterr().err
    assert main(["serve", "--ws-ping", "0", "--max-rooms", "-1"]) == 2
    assert "--max-rooms must be >= 0, got -1" in capsys.readouterr().err


@pytest.mark.no_store
def test_a_missing_extra_is_named_with_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A None entry in sys.modules makes its import fail, as on an install without the extra.
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "psycopg", None)
        assert main(["serve", "--database", "postgresql://nomercy@127.0.0.1/none"]) == 2
    err = capsys.readouterr().err
    assert "a PostgreSQL database needs the web-pg extra: pip install '.[web-pg]'" in err
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "nomercy.web.launch", None)
        assert main(["serve"]) == 2
    assert "the web server needs the web extra: pip install '.[web]'" in capsys.readouterr().err
    assert main(["serve", "--database", "mysql://db/cards"]) == 2
    assert "--database takes a SQLite file or a postgresql:// URL" in capsys.readouterr().err


@pytest.mark.sqlite_only
def test_an_unusable_database_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert main(["serve", "--database", str(blocker / "db.sqlite3")]) == 2
    assert "cannot open the database" in capsys.readouterr().err
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"this is not a database" * 100)
    assert main(["serve", "--database", str(junk)]) == 2
    assert "cannot open the database" in capsys.readouterr().err


@pytest.mark.sqlite_only
def test_default_database_is_under_the_xdg_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_database() == tmp_path / "nomercy" / "server.sqlite3"


def test_serve_help_lists_the_flags(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["serve", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for flag in (
        "--host",
        "--port",
        "--database",
        "--bot-delay",
        "--grace",
        "--rate-limit",
        "--room-idle",
        "--max-connections",
        "--max-per-address",
        "--room-connections",
        "--header-timeout",
        "--hello-timeout",
        "--timings",
    ):
        assert flag in out


def test_lan_address_is_an_ipv4_address_or_none() -> None:
    from nomercy.web.launch import lan_address

    address = lan_address()
    assert address is None or (address.count(".") == 3 and not address.startswith("127."))


def test_alike_log_lines_are_rate_limited() -> None:
    from nomercy.web.guard import RateLimitFilter

    clock = [0.0]
    limit = RateLimitFilter(burst=3, window=10.0)

    def record(msg: str, *args: object, name: str = "asyncio") -> logging.LogRecord:
        return logging.LogRecord(name, logging.ERROR, __file__, 1, msg, args, None)

    with unittest.mock.patch("nomercy.web.guard.time.monotonic", lambda: clock[0]):
        passed = [limit.filter(record("accept failed: %s", i)) for i in range(100)]
        assert passed == [True] * 3 + [False] * 97
        assert limit.filter(record("another message"))  # other lines are not held back
        clock[0] = 11.0
        first = record("accept failed: %s", 100)
        assert limit.filter(first)
        assert first.getMessage() == "accept failed: 100 (97 alike lines were not logged)"
        # Access lines are counted per client address.
        access = '%s - "%s %s HTTP/%s" %d'
        for client in ("10.0.0.1:5000", "10.0.0.2:5000"):
            lines = [
                limit.filter(record(access, client, "GET", "/", "1.1", 200, name="uvicorn.access"))
                for _ in range(4)
            ]
            assert lines == [True, True, True, False]


@pytest.mark.sqlite_only
def test_flags_reach_the_servers_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The rate-limit and budget tests run in-process on a ServerConfig of their own; this
    # checks the other half: that ``nomercy serve``'s flags become that config.
    import uvicorn

    import nomercy.web.launch

    seen: dict[str, object] = {}

    def capture(config: object) -> object:
        seen["config"] = config
        return object()

    monkeypatch.setattr(nomercy.web.launch, "create_app", capture)
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(kw))
    monkeypatch.setattr(logging, "basicConfig", lambda **kw: None)
    root = logging.getLogger()
    filters = {h: list(h.filters) for h in root.handlers}
    try:
        flags = ["--database", str(tmp_path / "db.sqlite3"), "--port", "8765"]
        flags += ["--rate-limit", "7", "--hellos-per-address", "3", "--rooms-per-hour", "11"]
        flags += ["--max-rooms", "13", "--room-connections", "9", "--send-budget", "8192"]
        flags += ["--grace", "4", "--bot-delay", "0.25", "--hello-timeout", "2.5"]
        flags += ["--room-idle", "60", "--unjoined-room-idle", "30", "--timings"]
        flags += ["--hint-workers", "2", "--hint-iterations", "500"]
        status = main(["serve", *flags])
    finally:
        for handler, kept in filters.items():
            handler.filters[:] = kept
    assert status == 0
    config = seen["config"]
    expected = {
        "rate_per_second": 7,
        "rate_capacity": 14,
        "hellos_per_address": 3,
        "hello_burst": 18,
        "rooms_per_hour": 11,
        "max_rooms": 13,
        "room_connections": 9,
        "send_bytes": 8192,
        "grace": 4,
        "bot_delay": 0.25,
        "hello_timeout": 2.5,
        "room_idle": 60,
        "unjoined_idle": 30,
        "timings": True,
        "hint_workers": 2,
        "hint_iterations": 500,
    }
    assert {key: getattr(config, key) for key in expected} == expected
    assert seen["port"] == 8765 and seen["host"] == "127.0.0.1"
