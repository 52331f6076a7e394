"""quantile.py: the quantile every tool's intervals take (the p5 and p95 of bootstrap resamples
and of measured rounds), in one place."""


def quantile(xs, f):
    """The value at fraction f (0 to 1) of xs's sorted order: sorted(xs)[round(f x (n - 1))],
    Python's round (half to even), the index kept inside the list; 0.0 for no values. The nearest
    value, not statistics.quantiles' interpolation between two: every committed interval was
    taken this way."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(round(f * (len(s) - 1)))))] if s else 0.0
