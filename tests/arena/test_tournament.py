"""Tournaments: seat rotation, derived seeds, reports, ratings and finishing ranks."""

from __future__ import annotations

import csv
import io
from collections import Counter

import pytest

from nomercy import Game
from nomercy.arena.parallel import chunk_games, run_chunks
from nomercy.arena.runner import BotSpec, GameSetup, HandStats, finishing_ranks, play_game
from nomercy.arena.tournament import (
    CSV_FIELDS,
    SCHEMA,
    TournamentResult,
    lineups,
    rate_games,
    run_tournament,
)
from nomercy.core.seeds import bot_seed, game_seed

GREEDY, RANDOM = BotSpec("greedy"), BotSpec("random")


@pytest.fixture(scope="module")
def small() -> TournamentResult:
    """40 four-player games of greedy against random, in this process."""
    return run_tournament([GREEDY, RANDOM], GameSetup.make(4, seed=11), 40, jobs=1)


# ------------------------------------------------------------------------------ line-ups


@pytest.mark.parametrize(("bots", "players"), [(2, 2), (2, 4), (3, 4), (3, 3), (4, 4), (5, 3)])
def test_every_bot_sits_in_every_seat_equally_often_in_a_block(bots: int, players: int) -> None:
    specs = [BotSpec(f"b{i}") for i in range(bots)]
    block = lineups(specs, players)
    assert len(block) == (bots if bots < 3 else 2 * bots)
    for seat in range(players):
        counts = Counter(lineup[seat].name for lineup in block)
        assert set(counts) == {s.name for s in specs}
        assert len(set(counts.values())) == 1, (seat, counts)
    total = Counter(spec.name for lineup in block for spec in lineup)
    assert len(set(total.values())) == 1  # every bot plays as many seats


def test_three_bots_play_both_before_and_after_each_other() -> None:
    specs = [BotSpec("a"), BotSpec("b"), BotSpec("c")]
    follows = {(lu[s].name, lu[s + 1].name) for lu in lineups(specs, 3) for s in range(2)}
    assert follows == {(x, y) for x in "abc" for y in "abc" if x != y}


def test_lineups_reject_bad_input() -> None:
    with pytest.raises(ValueError, match="at least two different bots"):
        lineups([GREEDY, GREEDY], 4)
    with pytest.raises(ValueError, match="at least two different bots"):
        lineups([GREEDY], 4)
    with pytest.raises(ValueError, match="at least 2 players"):
        lineups([GREEDY, RANDOM], 1)


def test_games_use_the_block_in_turn(small: TournamentResult) -> None:
    block = [tuple(b.label for b in lu) for lu in lineups([GREEDY, RANDOM], 4)]
    for game in small.games:
        assert game.lineup == block[game.index % len(block)]


# ------------------------------------------------------------------------------ seeds


def test_games_are_dealt_and_seated_with_derived_seeds(small: TournamentResult) -> None:
    assert [g.index for g in small.games] == list(range(40))
    assert [g.seed for g in small.games] == [game_seed(11, i) for i in range(40)]
    assert len({g.seed for g in small.games}) == 40
    assert bot_seed(11, 3, 1) not in {bot_seed(11, 3, 0), bot_seed(11, 4, 1), bot_seed(12, 3, 1)}
    # one game replayed on its own gives the same result as inside the tournament
    lineup = lineups([GREEDY, RANDOM], 4)[17 % 2]
    assert play_game(GameSetup.make(4, seed=11), lineup, 17) == small.games[17]


def test_same_seed_same_report_other_seed_other_games(small: TournamentResult) -> None:
    again = run_tournament([GREEDY, RANDOM], GameSetup.make(4, seed=11), 40, jobs=1)
    assert again.to_json() == small.to_json()
    other = run_tournament([GREEDY, RANDOM], GameSetup.make(4, seed=12), 40, jobs=1)
    assert [g.winner for g in other.games] != [g.winner for g in small.games]


def test_jobs_and_chunking_do_not_change_results(small: TournamentResult) -> None:
    two = run_tournament([GREEDY, RANDOM], GameSetup.make(4, seed=11), 40, jobs=2)
    assert two.to_json() == small.to_json()
    setup = GameSetup.make(4, seed=11)
    block = lineups([GREEDY, RANDOM], 4)
    odd = [g for c in run_chunks(chunk_games(setup, block, 40, 1, size=7)) for g in c]
    assert odd == small.games


# ------------------------------------------------------------------------------ reports


def test_json_report_schema(small: TournamentResult) -> None:
    report = small.to_json()
    assert report["schema"] == SCHEMA
    config = report["config"]
    assert config["bots"] == ["greedy", "random"] and config["players"] == 4
    assert config["games"] == 40 and config["seed"] == 11 and config["balanced"] is True
    assert config["lineups"] == [["greedy", "random"] * 2, ["random", "greedy"] * 2]
    assert [s["bot"] for s in report["standings"]] == ["greedy", "random"]
    for place, s in enumerate(report["standings"], 1):
        assert s["place"] == place
        assert set(s) >= {"games", "seats", "wins", "win_rate", "win_ci", "mean_rank"}
        assert set(s) >= {"mu", "sigma", "ordinal", "by_seat"}
        assert s["games"] == 40 and s["seats"] == 80
        low, high = s["win_ci"]
        assert 0 <= low <= s["win_rate"] <= high <= 1
        assert s["ordinal"] == pytest.approx(s["mu"] - 3 * s["sigma"])
        assert [row["seats"] for row in s["by_seat"]] == [20, 20, 20, 20]
        assert sum(row["wins"] for row in s["by_seat"]) == s["wins"]
    assert sum(s["wins"] for s in report["standings"]) == 40  # one winner per game
    assert len(report["games"]) == 40
    game = report["games"][0]
    assert set(game) == {"index", "seed", "lineup", "winner", "ranks", "actions", "turns", "hands"}
    assert game["ranks"][game["winner"]] == 1


def test_csv_report_has_one_row_per_bot(small: TournamentResult) -> None:
    rows = list(csv.DictReader(io.StringIO(small.to_csv())))
    assert tuple(rows[0]) == CSV_FIELDS
    assert [r["bot"] for r in rows] == ["greedy", "random"]
    by_json = {s["bot"]: s for s in small.to_json()["standings"]}
    for row in rows:
        s = by_json[row["bot"]]
        assert int(row["wins"]) == s["wins"] and int(row["seats"]) == s["seats"]
        assert float(row["ordinal"]) == pytest.approx(s["ordinal"], abs=1e-6)


def test_greedy_rates_above_random(small: TournamentResult) -> None:
    greedy, random_ = small.standings
    assert greedy.bot == "greedy" and greedy.mu > random_.mu and greedy.wins > random_.wins
    assert greedy.mean_rank < random_.mean_rank


# ------------------------------------------------------------------------------ ratings


def _result(index: int, lineup: tuple[str, ...], ranks: tuple[int, ...]) -> object:
    from nomercy.arena.runner import GameResult

    winner = ranks.index(1)
    return GameResult(index, 0, lineup, winner, ranks, 10, 10, (0,) * len(ranks), (0,) * 4, [])


def test_ratings_reward_the_better_finisher_and_grow_surer() -> None:
    games = [_result(i, ("a", "b", "c"), (1, 2, 3)) for i in range(30)]
    ratings = rate_games(["a", "b", "c"], games)  # type: ignore[arg-type]
    (mu_a, sd_a), (mu_b, _), (mu_c, _) = ratings["a"], ratings["b"], ratings["c"]
    assert mu_a > mu_b > mu_c
    assert sd_a < 25 / 3
    even = rate_games(["a", "b"], [_result(0, ("a", "b"), (1, 1))])  # type: ignore[list-item]
    assert even["a"] == pytest.approx(even["b"])  # a tie moves nobody apart


def test_a_bot_in_two_seats_gets_the_mean_of_its_copies() -> None:
    one = rate_games(["a", "b"], [_result(0, ("a", "b", "a"), (1, 2, 3))])  # type: ignore[list-item]
    mu, _ = one["a"]
    assert 20 < mu < 30  # first and last: the updates roughly cancel out


# ------------------------------------------------------------------------------ finishing order


def test_finishing_ranks_winner_then_cards_then_latest_knock_out() -> None:
    g = Game.from_position(
        {
            "players": [
                {"hand": []},
                {"hand": ["R1", "R2", "R3"]},
                {"hand": [], "out": True},
                {"hand": ["B1"]},
                {"hand": [], "out": True},
            ],
            "turn": 1,
            "discard": ["R5"],
            "phase": "over",
            "winner": 0,
        }
    )
    hand = HandStats(1, 0, winner=0, knockouts=[4, 2], knockout_steps=[5, 9])
    assert finishing_ranks(g, hand) == (1, 3, 4, 2, 5)
    tied = HandStats(1, 0, winner=0, knockouts=[4, 2], knockout_steps=[9, 9])
    assert finishing_ranks(g, tied) == (1, 3, 4, 2, 4)
