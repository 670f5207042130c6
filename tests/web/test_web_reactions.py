"""Quick reactions (issue 27): a fixed set, sent by seats to the whole room, one per seat every
few seconds, and the host's switch. In-process (tests/web/webharness.py)."""

from __future__ import annotations

from pathlib import Path

from clocks import ManualClock
from webharness import Server, run, table

from nomercy.web.reactions import REACTION_EVERY, REACTIONS


def test_a_reaction_reaches_everyone_in_the_room(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            code, (ann, bob) = await table(server, seats=2)
            watcher = await server.ws(code)
            await watcher.hello()
            await watcher.drain(0.02)
            await bob.send({"type": "react", "reaction": "clap"})
            for client in (ann, bob, watcher):
                msg = await client.expect("reaction")
                assert msg == {"type": "reaction", "seat": 1, "reaction": "clap"}
            assert server.room(code).summary()["reactions"] is True

    run(main)


def test_only_the_fixed_set_from_a_seat_and_not_too_often(tmp_path: Path) -> None:
    async def main() -> None:
        clock = ManualClock()
        async with Server(tmp_path / "db", clock=clock) as server:
            code, (ann, bob) = await table(server, seats=2)
            for bad in ("hello everyone", 7, None, "CLAP"):
                await ann.send({"type": "react", "reaction": bad})
                err = await ann.error()
                assert err["code"] == "bad_reaction", bad
                assert ", ".join(REACTIONS) in err["message"]
            await ann.send({"type": "react", "reaction": "wow"})
            await bob.expect("reaction")
            await ann.send({"type": "react", "reaction": "wow"})  # at once: too soon
            assert (await ann.error())["code"] == "too_soon"
            await bob.send({"type": "react", "reaction": "ouch"})  # another seat's own budget
            assert (await ann.expect("reaction"))["seat"] == 1
            clock.advance(REACTION_EVERY - 0.01)
            await ann.send({"type": "react", "reaction": "laugh"})  # still too soon
            assert (await ann.error())["code"] == "too_soon"
            clock.advance(0.01)
            await ann.send({"type": "react", "reaction": "laugh"})
            laugh = await bob.expect("reaction", lambda m: m["reaction"] == "laugh")
            assert laugh["seat"] == 0
            watcher = await server.ws(code)
            await watcher.hello()
            await watcher.send({"type": "react", "reaction": "wow"})
            assert (await watcher.error())["code"] == "spectator"
            fresh = await server.ws(code)
            await fresh.send({"type": "react", "reaction": "wow"})
            assert (await fresh.error())["code"] == "hello_first"

    run(main)


def test_the_host_turns_reactions_off_and_on(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            _, (ann, bob) = await table(server, seats=2)
            await bob.send({"type": "reactions", "on": False})
            assert (await bob.error())["code"] == "not_host"
            await ann.send({"type": "reactions", "on": "no"})
            assert (await ann.error())["code"] == "malformed"
            await ann.send({"type": "reactions", "on": False})
            room = await bob.expect("room", lambda m: m["room"]["reactions"] is False)
            assert room["room"]["reactions"] is False
            await bob.send({"type": "react", "reaction": "clap"})
            err = await bob.error()
            assert err == {
                "type": "error",
                "code": "reactions_off",
                "message": "the host turned reactions off in this room",
            }
            await ann.send({"type": "reactions", "on": True})
            await bob.expect("room", lambda m: m["room"]["reactions"] is True)
            await bob.send({"type": "react", "reaction": "clap"})
            assert (await ann.expect("reaction"))["reaction"] == "clap"

    run(main)
