"""Weights of the learned discard (``learned``), one row per contract kind in the order of
``learned.FEATURES`` (an empty row: the basic choice stands). Written by
``scripts/train_learned.py fit``; do not edit by hand."""

WEIGHTS: dict[str, tuple[float, ...]] = {
    "sets": (),
    "runs": (
        1.70619, 1.08517, -0.717727, 0, 2.6489, -0.739417, 8.69616, 0.232358, 0.316485,
        0.841391, -1.47404, 6.52905, -0.276732, -0.816965, -1.73409,
    ),
    "both": (
        -0.784456, -0.756186, -1.52226, 13.5765, -3.61961, 0.0383902, 7.48665, 1.67749,
        -0.537949, 0.768246, -0.00885916, -3.5038, 0.129922, 0.314827, -1.61367,
    ),
}
