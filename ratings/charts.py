"""Tiny server-side SVG charts (no JavaScript library)."""

from __future__ import annotations

CHART_WIDTH = 160
CHART_HEIGHT = 40
MIN_SPAN = 40.0  # rating points: a wobble of a few points must not fill the whole height


def sparkline(
    values: list[float], *, width: int = CHART_WIDTH, height: int = CHART_HEIGHT, pad: int = 2
) -> str:
    """``points`` for an SVG polyline: values evenly spaced left to right, higher is up."""
    if not values:
        return ""
    low, high = min(values), max(values)
    if high - low < MIN_SPAN:
        middle = (high + low) / 2
        low, high = middle - MIN_SPAN / 2, middle + MIN_SPAN / 2
    step = (width - 2 * pad) / max(len(values) - 1, 1)
    scale = (height - 2 * pad) / (high - low)
    return " ".join(
        f"{pad + i * step:.1f},{height - pad - (value - low) * scale:.1f}" for i, value in enumerate(values)
    )
