"""nomercy.bots.inference: the evidence a seat reads from its views, checked against the real
hands; deal weights; ``puct`` with inference (docs/puct.md)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from botkit import OPTION_SETS, play_checked

from nomercy import Action, Card, Game, PlayerView, new_game
from nomercy.bots import make_bot
from nomercy.bots.driver import next_action
from nomercy.bots.inference import FLOOR, PlayReader, deal_weights
from nomercy.bots.neural_features import OBS_SIZE, FeatureEncoder
from nomercy.bots.puct_bot import PUCTBot
from nomercy.bots.pvnet import load_pvnet
from nomercy.core.actions import CallUno, Catch
from nomercy.encoding.fast import TableObserver


class _Reader:
    """Seat 0: ``heuristic``'s play, reading the evidence at each in-turn decision and checking
    it against the real game (which only the test sees)."""

    name = "reader"

    def __init__(self, game: Game, decisions: list[tuple[int, Card | None, Counter[Card]]]):
        self.game = game
        self.decisions = decisions  # every in-turn decision of the others: seat, card, hand
        self.bot = make_bot("heuristic", seed=3)
        self.reader = PlayReader()
        self.stats: Counter[str] = Counter()

    def choose_out_of_turn(self, view: PlayerView, legal: list[Action]) -> Action | None:
        return self.bot.choose_out_of_turn(view, legal)  # type: ignore[attr-defined, no-any-return]

    def choose_action(self, view: PlayerView, legal: list[Action]) -> Action:
        evidence = self.reader.read(view)
        self.stats["decisions"] += 1
        self.stats["with evidence"] += bool(evidence)
        for seat in {e.seat for e in evidence}:
            items = [e for e in evidence if e.seat == seat]
            # The evidence about a seat is its latest decisions, in order.
            real = [d for d in self.decisions if d[0] == seat][-len(items) :]
            assert len(real) == len(items)
            hand_now = self.game.hands[seat]
            for e, (_, card, hand_then) in zip(items, real, strict=True):
                assert e.card is card
                assert len(hand_now) - e.received + len(e.since) == hand_then.total()
                if not e.received:  # exactly its hand then: its hand now and what left it
                    assert Counter(hand_now) + Counter(e.since) == hand_then
                    self.stats["exact"] += 1
                # The position before the decision shows the seat to act the real public facts.
                assert e.game.turn == seat
                assert len(e.game.hands[seat]) == hand_then.total()
        action = self.bot.choose_action(view, legal)
        self.reader.acted(view, action)
        return action


def _follow(players: int, preset: str, options: dict[str, Any], seed: int) -> Counter[str]:
    g = new_game(players, rules={"preset": preset, "options": options}, seed=seed)
    decisions: list[tuple[int, Card | None, Counter[Card]]] = []
    reader = _Reader(g, decisions)
    bots: list[Any] = [reader] + [make_bot("heuristic", seed=s) for s in range(1, players)]
    while not g.is_over and len(g.history) < 400:
        action = next_action(g, bots)
        seat = action.seat
        if seat != 0 and seat == g.turn and not isinstance(action, CallUno | Catch):
            decisions.append((seat, getattr(action, "card", None), Counter(g.hands[seat])))
        g.apply(action)
    return reader.stats


@pytest.mark.parametrize(("preset", "options"), OPTION_SETS)
def test_evidence_is_the_real_hands_then(preset: str, options: dict[str, Any]) -> None:
    stats: Counter[str] = Counter()
    for seed in range(12):
        stats += _follow(2 + seed % 4, preset, options, 40 + seed)
    # Not vacuous: most hands give evidence, much of it exact.
    assert stats["with evidence"] >= stats["decisions"] // 5
    assert stats["exact"] >= 40


def test_a_reader_without_its_last_action_starts_again() -> None:
    g = new_game(2, seed=4)
    bots = [make_bot("heuristic", seed=s) for s in range(2)]
    reader = PlayReader()
    while g.to_act != 0 or len(g.history) < 6:
        g.apply(next_action(g, bots))
    assert reader.read(g.view(0)) == []  # nothing acted on before
    other = new_game(2, seed=5)
    reader.acted(other.view(0), other.legal_actions(0)[0])
    assert reader.read(g.view(0)) == []  # a view of another game: no evidence


def test_deal_weights_stay_between_the_floor_and_one() -> None:
    net = load_pvnet()
    checked = 0
    for seed in range(4):
        g = new_game(2, seed=70 + seed)
        reader = PlayReader()
        bots = [make_bot("heuristic", seed=s) for s in range(2)]
        while not g.is_over and checked < 3 * (seed + 1):
            if g.to_act == 0 and len(g.legal_actions(0)) > 1:
                view = g.view(0)
                evidence = reader.read(view)
                if evidence:
                    redealer = g.redealer(0)
                    deals = [redealer.sample_for_search(k) for k in range(8)]
                    observer = TableObserver(g.rules, 2)
                    scale = FeatureEncoder(g.rules, 2).scale
                    buffer = np.empty(OBS_SIZE, dtype=np.float32)
                    weights = deal_weights(deals, evidence, net, observer, scale, buffer)
                    assert len(weights) == len(deals)
                    assert all(FLOOR ** len(evidence) <= w <= 1.0 for w in weights)
                    again = deal_weights(deals, evidence, net, observer, scale, buffer)
                    assert weights == again
                    checked += 1
                action = next_action(g, bots)
                reader.acted(view, action)
            else:
                action = next_action(g, bots)
            g.apply(action)
    assert checked >= 5


def test_puct_with_inference_plays_legally_and_repeats_itself() -> None:
    for preset, options in OPTION_SETS:
        g = new_game(2, rules={"preset": preset, "options": options}, seed=9)
        bots = [PUCTBot(seed=1, iterations=12, infer=8), make_bot("heuristic", seed=2)]
        play_checked(g, bots, limit=200)

    def history() -> list[str]:
        g = new_game(2, seed=12)
        bots = [PUCTBot(seed=4, iterations=15, infer=16), make_bot("heuristic", seed=1)]
        while not g.is_over:
            g.apply(next_action(g, bots))
        return [str(a) for a in g.history]

    assert history() == history()


def test_bad_infer_is_refused() -> None:
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="infer"):
            PUCTBot(infer=bad)  # type: ignore[arg-type]
