"""Statistics helpers: the Wilson interval, quantiles and summaries."""

from __future__ import annotations

import random

import pytest

from nomercy.core.stats import distribution, quantile, summarize, wilson_interval


def test_wilson_interval_matches_published_values() -> None:
    # Newcombe (1998), Table I: 81/263 -> 0.2553 to 0.3662; 15/148 -> 0.0624 to 0.1605.
    low, high = wilson_interval(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    low, high = wilson_interval(15, 148)
    assert (round(low, 4), round(high, 4)) == (0.0624, 0.1605)


def test_wilson_interval_edges_stay_inside_zero_one() -> None:
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and 0.0 < high < 0.35
    low, high = wilson_interval(10, 10)
    assert high == 1.0 and 0.65 < low < 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_interval_narrows_with_more_trials_and_contains_the_rate() -> None:
    widths = []
    for trials in (10, 100, 1000, 10000):
        low, high = wilson_interval(trials * 3 // 10, trials)
        assert low < 0.3 < high
        widths.append(high - low)
    assert widths == sorted(widths, reverse=True)


def test_wilson_interval_covers_the_true_rate_about_95_percent_of_the_time() -> None:
    rng = random.Random(5)
    p, trials, runs = 0.25, 200, 2000
    covered = 0
    for _ in range(runs):
        wins = sum(rng.random() < p for _ in range(trials))
        low, high = wilson_interval(wins, trials)
        covered += low <= p <= high
    assert 0.93 <= covered / runs <= 0.97


def test_wilson_interval_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError, match="successes <= trials"):
        wilson_interval(5, 4)
    with pytest.raises(ValueError):
        wilson_interval(-1, 4)


def test_quantile_interpolates_like_numpy() -> None:
    data = [1.0, 2.0, 4.0, 8.0, 16.0]
    assert quantile(data, 0.0) == 1.0
    assert quantile(data, 1.0) == 16.0
    assert quantile(data, 0.5) == 4.0
    assert quantile(data, 0.9) == pytest.approx(8.0 + 0.6 * 8.0)
    with pytest.raises(ValueError):
        quantile([], 0.5)


def test_summarize_and_distribution() -> None:
    s = summarize([3, 1, 2, 10])
    assert s["count"] == 4 and s["min"] == 1 and s["max"] == 10
    assert s["mean"] == 4.0 and s["median"] == 2.5
    assert summarize([]) == {"count": 0}
    assert distribution([3, 1, 3, 10]) == {"1": 1, "3": 2, "10": 1}
