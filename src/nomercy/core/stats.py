"""Small statistics helpers: Wilson intervals, quantiles and summaries (standard library only).

In the core, like :mod:`nomercy.core.seeds`, so that every layer measures the same way: the
arena's tournaments and simulations, and the RL package's ``evaluate`` (which may not import
the arena) share one Wilson interval.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["Z95", "distribution", "quantile", "summarize", "wilson_interval"]

#: The normal quantile for a two-sided 95% interval.
Z95 = 1.959963984540054


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95% by default).

    Unlike the normal approximation it stays inside [0, 1] and is sensible at 0 or ``trials``
    successes. With no trials it is the whole range.

    >>> low, high = wilson_interval(50, 100)
    >>> round(low, 3), round(high, 3)
    (0.404, 0.596)
    >>> wilson_interval(0, 0)
    (0.0, 1.0)

    Raises:
        ValueError: negative counts, or more successes than trials.
    """
    if trials < 0 or successes < 0 or successes > trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes}/{trials}")
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    denom = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    # At 0 or ``trials`` successes the bound is exactly 0 or 1; rounding must not move it.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of already sorted values, linearly interpolated (numpy's default).

    >>> quantile([1, 2, 3, 4], 0.5)
    2.5

    Raises:
        ValueError: no values, or ``q`` outside [0, 1].
    """
    if not sorted_values:
        raise ValueError("quantile of no values")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be in [0, 1], got {q}")
    pos = (len(sorted_values) - 1) * q
    low = math.floor(pos)
    high = min(low + 1, len(sorted_values) - 1)
    frac = pos - low
    return float(sorted_values[low] + (sorted_values[high] - sorted_values[low]) * frac)


def summarize(values: Iterable[float]) -> dict[str, Any]:
    """Count, mean, standard deviation, min, p10, median, p90, p99 and max of ``values``.

    >>> summarize([1, 2, 3])["median"]
    2.0
    """
    data = sorted(values)
    if not data:
        return {"count": 0}
    return {
        "count": len(data),
        "mean": statistics.fmean(data),
        "sd": statistics.stdev(data) if len(data) > 1 else 0.0,
        "min": data[0],
        "p10": quantile(data, 0.10),
        "median": quantile(data, 0.50),
        "p90": quantile(data, 0.90),
        "p99": quantile(data, 0.99),
        "max": data[-1],
    }


def distribution(values: Iterable[int]) -> dict[str, int]:
    """How often each value occurs, as a JSON object with sorted numeric keys.

    >>> distribution([2, 0, 2])
    {'0': 1, '2': 2}
    """
    counts = Counter(values)
    return {str(k): counts[k] for k in sorted(counts)}
