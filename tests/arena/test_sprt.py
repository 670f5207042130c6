"""The sequential test: its statistics against known values, its decisions on simulated
coins, paired deals, and a resumed run ending as the uninterrupted one."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from nomercy.arena.runner import BotSpec, GameSetup, play_game
from nomercy.arena.sprt import (
    SprtConfig,
    SprtState,
    elo_to_score,
    judge,
    llr,
    llr_normal,
    mle_expected,
    run_sprt,
    score_to_elo,
    sprt_bounds,
    status_of,
)
from nomercy.cli.main import main


def config(players: int = 2, s0: float = 0.5, s1: float = 0.55, **kw: object) -> SprtConfig:
    values: dict[str, object] = {
        "candidate": "a",
        "baseline": "b",
        "players": players,
        "preset": "no-mercy",
        "options": (),
        "seed": 0,
        "s0": s0,
        "s1": s1,
    }
    values.update(kw)
    return SprtConfig(**values)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- statistics
def test_wald_bounds() -> None:
    low, high = sprt_bounds(0.05, 0.05)
    assert low == pytest.approx(-math.log(19)) and high == pytest.approx(math.log(19))
    low, high = sprt_bounds(0.05, 0.1)
    assert low == pytest.approx(math.log(0.1 / 0.95)) and high == pytest.approx(math.log(18))
    with pytest.raises(ValueError, match="alpha and beta"):
        sprt_bounds(0.0, 0.05)


def test_two_outcomes_give_walds_binomial_sprt() -> None:
    # With values {0, 1} the distribution of mean s is (1 - s, s): the GSPRT is Wald's test,
    # by hand 60 ln(0.55/0.5) + 40 ln(0.45/0.5).
    expected = 60 * math.log(1.1) + 40 * math.log(0.9)
    assert expected == pytest.approx(1.504190, abs=1e-6)
    assert llr([40, 60], [0.0, 1.0], 0.5, 0.55) == pytest.approx(expected, rel=1e-9)
    assert llr([70, 30], [0.0, 1.0], 0.4, 0.3) == pytest.approx(
        30 * math.log(0.3 / 0.4) + 70 * math.log(0.7 / 0.6), rel=1e-9
    )


def test_mle_has_the_mean_and_the_stationarity_form() -> None:
    freqs, values = [0.1, 0.2, 0.4, 0.2, 0.1], [0.0, 0.25, 0.5, 0.75, 1.0]
    for s in (0.3, 0.5, 0.62):
        p = mle_expected(freqs, values, s)
        assert sum(p) == pytest.approx(1.0)
        assert sum(pi * v for pi, v in zip(p, values, strict=True)) == pytest.approx(s)
        # p_i (1 + x (a_i - s)) = f_i for one x: the Lagrange condition of the constrained MLE
        xs = [(f / pi - 1) / (v - s) for f, pi, v in zip(freqs, p, values, strict=True) if v != s]
        assert max(xs) - min(xs) == pytest.approx(0.0, abs=1e-9)
    assert mle_expected(freqs, values, 0.5) == pytest.approx(freqs)  # its mean already
    with pytest.raises(ValueError, match="strictly between"):
        mle_expected(freqs, values, 1.0)


def test_trinomial_mle_matches_the_closed_form_root() -> None:
    # Three outcomes: the secular equation times its denominators is a quadratic in x,
    # sum_i f_i d_i prod_{j != i} (1 + x d_j) = 0, solved here by the formula.
    f, a, s = [0.2, 0.5, 0.3], [0.0, 0.5, 1.0], 0.6
    d = [v - s for v in a]
    qa = f[0] * d[0] * d[1] * d[2] + f[1] * d[1] * d[0] * d[2] + f[2] * d[2] * d[0] * d[1]
    qb = f[0] * d[0] * (d[1] + d[2]) + f[1] * d[1] * (d[0] + d[2]) + f[2] * d[2] * (d[0] + d[1])
    qc = sum(fi * di for fi, di in zip(f, d, strict=True))
    roots = [(-qb + sign * math.sqrt(qb * qb - 4 * qa * qc)) / (2 * qa) for sign in (1, -1)]
    x = next(r for r in roots if all(1 + r * di > 0 for di in d))
    expected = [fi / (1 + x * di) for fi, di in zip(f, d, strict=True)]
    assert mle_expected(f, a, s) == pytest.approx(expected, rel=1e-9)


def test_gsprt_approaches_the_normal_approximation_for_small_steps() -> None:
    counts, values = [180, 420, 400], [0.0, 0.5, 1.0]  # mean 0.61
    exact = llr(counts, values, 0.58, 0.60)
    approx = llr_normal(counts, values, 0.58, 0.60)
    assert exact > 2 and exact == pytest.approx(approx, rel=0.03)
    # four players, five pair scores (skewed): the relative gap shrinks with the step
    counts, values = [300, 400, 200, 80, 20], [0.0, 0.25, 0.5, 0.75, 1.0]  # mean 0.28
    gaps = [
        abs(llr(counts, values, 0.28 - h, 0.28) / llr_normal(counts, values, 0.28 - h, 0.28) - 1)
        for h in (0.02, 0.01, 0.005, 0.002)
    ]
    assert gaps == sorted(gaps, reverse=True) and gaps[-1] < 0.005


def test_elo_and_score_are_inverse_and_par_is_one_in_p() -> None:
    assert elo_to_score(0, 2) == 0.5 and elo_to_score(0, 4) == 0.25
    assert elo_to_score(400, 2) == pytest.approx(10 / 11)  # the logistic curve heads-up
    for players in (2, 3, 4):
        for elo in (-150.0, 0.0, 35.0):
            assert score_to_elo(elo_to_score(elo, players), players) == pytest.approx(elo)


def test_status_interval_is_over_pairs() -> None:
    # pair scores 0, 1/2 (six times), 1: mean 1/2, sample variance 2 (1/4) / 7 over 8 pairs
    status = status_of(config(), [0, 1, 1, 1, 1, 1, 1, 2])
    assert status.score == 0.5 and status.games == 16 and status.wins == 8
    half = 1.959963984540054 * math.sqrt(0.5 / 7 / 8)
    assert status.score_ci == pytest.approx((0.5 - half, 0.5 + half))
    assert status.counts == (1, 6, 1) and status.decision == "continue"


# ---------------------------------------------------------------------- decisions
def coin_pairs(rng: random.Random, p: float, players: int):  # type: ignore[no-untyped-def]
    """Endless pairs of independent games, each won with probability ``p``."""
    while True:
        yield sum(rng.random() < p for _ in range(players))


def test_a_strong_coin_accepts_h1_and_a_fair_one_h0() -> None:
    strong = SprtState(config(s0=0.5, s1=0.55))
    assert judge(strong, coin_pairs(random.Random(1), 0.6, 2)).decision == "H1"
    fair = SprtState(config(s0=0.5, s1=0.55))
    assert judge(fair, coin_pairs(random.Random(2), 0.5, 2)).decision == "H0"
    four = SprtState(config(players=4, s0=0.25, s1=0.28))
    assert judge(four, coin_pairs(random.Random(3), 0.25, 4)).decision == "H0"
    four = SprtState(config(players=4, s0=0.25, s1=0.28))
    assert judge(four, coin_pairs(random.Random(4), 0.32, 4)).decision == "H1"


def test_error_rates_stay_near_alpha_and_beta() -> None:
    # 200 seeded tests at each hypothesis: Wald's bounds keep each error rate at or under
    # about 5% (binomial sd over 200 runs: 1.5 points).
    wrong_h1 = sum(
        judge(SprtState(config(s0=0.5, s1=0.6)), coin_pairs(random.Random(s), 0.5, 2)).decision
        == "H1"
        for s in range(200)
    )
    wrong_h0 = sum(
        judge(SprtState(config(s0=0.5, s1=0.6)), coin_pairs(random.Random(s), 0.6, 2)).decision
        == "H0"
        for s in range(1000, 1200)
    )
    assert wrong_h1 <= 16 and wrong_h0 <= 16


def test_the_cap_stops_undecided() -> None:
    state = SprtState(config(max_games=20))
    status = judge(state, coin_pairs(random.Random(5), 0.52, 2))
    assert status.decision == "cap" and status.pairs == 10 and len(state.pair_wins) == 10


def test_config_checks() -> None:
    with pytest.raises(ValueError, match="both"):
        config(baseline="a")
    with pytest.raises(ValueError, match="different win rates"):
        config(s0=0.5, s1=0.5)
    with pytest.raises(ValueError, match="less than one pair"):
        config(players=4, max_games=3)


# ---------------------------------------------------------------------- games
def test_a_pair_shares_one_deal_and_rotates_the_candidate() -> None:
    setup = GameSetup(3, seed=9, deal_games=3)
    lineups = [
        (BotSpec("greedy"), BotSpec("random"), BotSpec("random")),
        (BotSpec("random"), BotSpec("greedy"), BotSpec("random")),
    ]
    first = play_game(setup, lineups[0], 3)
    second = play_game(setup, lineups[1], 4)
    other = play_game(setup, lineups[0], 6)
    assert first.seed == second.seed != other.seed
    assert setup.new_game(3).hands == setup.new_game(5).hands


def greedy_vs_random(players: int = 2, s0: float = 0.5, s1: float = 0.55) -> SprtConfig:
    return config(players, s0, s1, candidate="greedy", baseline="random", seed=3)


def test_run_decides_and_does_not_depend_on_batch_or_jobs() -> None:
    bots = (BotSpec("greedy"), BotSpec("random"))
    one = SprtState(greedy_vs_random(s0=0.5, s1=0.6))
    status = run_sprt(*bots, one, batch=5, jobs=1)
    assert status.decision == "H1" and status.pairs == len(one.pair_wins)
    two = SprtState(greedy_vs_random(s0=0.5, s1=0.6))
    assert run_sprt(*bots, two, batch=3, jobs=2) == status
    assert two.pair_wins == one.pair_wins
    with pytest.raises(ValueError, match="not the state's"):
        run_sprt(bots[1], bots[0], SprtState(greedy_vs_random()))


class _Stop(Exception):
    pass


def test_a_resumed_run_ends_as_the_uninterrupted_one(tmp_path: Path) -> None:
    bots = (BotSpec("greedy"), BotSpec("random"))
    whole = SprtState(greedy_vs_random(players=3, s0=1 / 3, s1=0.4))
    final = run_sprt(*bots, whole, batch=4, jobs=1)
    saved = tmp_path / "state.json"

    def stop_after_one(state: SprtState) -> None:
        saved.write_text(json.dumps(state.to_json()))
        raise _Stop

    with pytest.raises(_Stop):
        run_sprt(*bots, SprtState(greedy_vs_random(players=3, s0=1 / 3, s1=0.4)), batch=4,
                 jobs=1, checkpoint=stop_after_one)  # fmt: skip
    resumed = SprtState.from_json(json.loads(saved.read_text()))
    assert len(resumed.pair_wins) == 4
    assert run_sprt(*bots, resumed, batch=4, jobs=1) == final
    assert resumed.pair_wins == whole.pair_wins


def test_state_reader_refuses_bad_input() -> None:
    good = SprtState(greedy_vs_random(), [0, 1, 2]).to_json()
    assert SprtState.from_json(good).pair_wins == [0, 1, 2]
    with pytest.raises(ValueError, match="schema"):
        SprtState.from_json({**good, "schema": "other"})
    with pytest.raises(ValueError, match="pair_wins"):
        SprtState.from_json({**good, "pair_wins": [0, 3]})
    with pytest.raises(ValueError, match="configuration"):
        SprtState.from_json({**good, "config": {"players": 2}})


# ---------------------------------------------------------------------- command line
def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_sprt_saves_resumes_and_refuses_another_test(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    state = tmp_path / "sprt.json"
    argv = ["tournament", "--sprt", "--bots", "greedy,random", "--players", "2"]
    argv += ["--p0", "0.5", "--p1", "0.6", "--seed", "3", "--jobs", "1", "--batch", "4"]
    code, out, err = run(capsys, *argv, "--state", str(state))
    assert code == 0, err
    assert "H1 accepted" in out and "LLR" in out and "sprt:" in err
    saved = json.loads(state.read_text())
    assert saved["status"]["decision"] == "H1"
    # an existing state is not overwritten without --resume
    code, _, err = run(capsys, *argv, "--state", str(state))
    assert code != 0 and "--resume" in err
    # resuming a decided test reports it without playing more
    code, again, err = run(capsys, *argv, "--state", str(state), "--resume")
    assert code == 0, err
    assert again == out
    assert json.loads(state.read_text())["pair_wins"] == saved["pair_wins"]
    # another test's state is refused, naming the difference
    code, _, err = run(capsys, *argv[:-6], "--seed", "4", "--jobs", "1", "--batch", "4",
                       "--state", str(state), "--resume")  # fmt: skip
    assert code != 0 and "seed" in err


def test_cli_sprt_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["tournament", "--sprt", "--bots", "greedy,random", "--players", "2"]
    for extra, message in (
        ([], "hypotheses"),
        (["--elo0", "0"], "both --elo0 and --elo1"),
        (["--elo0", "0", "--elo1", "5", "--p0", "0.5"], "not both"),
        (["--elo0", "0", "--elo1", "5", "--games", "10"], "--max-games"),
        (["--elo0", "0", "--elo1", "5", "--resume"], "--state"),
        (["--p0", "0.5", "--p1", "0.5"], "different win rates"),
    ):
        code, _, err = run(capsys, *base, *extra)
        assert code != 0 and message in err, (extra, err)
    code, _, err = run(capsys, "tournament", "--sprt", "--bots", "greedy,random,heuristic",
                       "--p0", "0.25", "--p1", "0.3")  # fmt: skip
    assert code != 0 and "two bots" in err
    code, _, err = run(capsys, "tournament", "--bots", "greedy,random", "--elo0", "1")
    assert code != 0 and "--sprt" in err
