"""A room's presence on the other servers (web/presence.py, issues 25 and 43): what their
``here`` notices said, counted in the summary, waited for before a person is called away,
and read to hand a room to the server its clients are on."""

from __future__ import annotations

import pytest

from nomercy.web.presence import NOBODY, Here, Presence

pytestmark = pytest.mark.no_store


def test_a_here_notice_round_trips_and_counts_in_the_room() -> None:
    here = Here(frozenset({2, 0}), spectators=3, sockets=5)
    assert here.fields() == {"seats": [0, 2], "spec": 3, "socks": 5}
    assert Here.from_notice(here.fields()) == here
    presence = Presence()
    presence.hear("b", here, now=1.0)
    presence.hear("c", Here(frozenset({1}), 1, 2), now=2.0)
    assert [presence.seated(s) for s in range(4)] == [True, True, True, False]
    assert (presence.spectators(), presence.sockets()) == (4, 7)
    # A server with no socket left is dropped, but it was heard from.
    presence.hear("c", NOBODY, now=3.0)
    assert not presence.seated(1) and presence.sockets() == 5 and presence.heard["c"] == 3.0
    assert presence.forget("b") and not presence.forget("b") and presence.sockets() == 0


def test_presence_is_settled_only_once_every_live_server_spoke_since_the_takeover() -> None:
    presence = Presence()
    presence.hear("b", NOBODY, now=5.0)
    assert presence.settled({"b"}, since=4.0)
    assert not presence.settled({"b", "c"}, since=4.0)  # c never said
    assert not presence.settled({"b"}, since=6.0)  # b spoke before the notices came back
    presence.adopted_at = 7.0  # taken over after b spoke: it may have missed one
    assert not presence.settled({"b"}, since=4.0)
    presence.hear("b", NOBODY, now=8.0)
    assert presence.settled({"b"}, since=4.0)


def test_the_busiest_server_is_the_one_with_most_sockets_ties_by_id() -> None:
    presence = Presence()
    assert presence.busiest() is None
    presence.hear("a", Here(frozenset(), 1, 2), now=0.0)
    presence.hear("b", Here(frozenset({0}), 0, 3), now=0.0)
    assert presence.busiest() == "b"
    presence.hear("c", Here(frozenset(), 3, 3), now=0.0)
    assert presence.busiest() == "c"
