"""Weights of the learned take and buy (``learned``), one row per contract kind in the order of
``learned.OPTION_FEATURES`` (an empty row: the basic choice stands). Written by
``scripts/train_learned.py fit``; do not edit by hand."""

TAKE: dict[str, tuple[float, ...]] = {
    "sets": (),
    "runs": (),
    "both": (),
}
BUY: dict[str, tuple[float, ...]] = {
    "sets": (
        -1.98266, -3.15384, -4.49233, 2.49023, 2.84781, 0, -2.81298, 1.76114, 0.465051,
        -0.389652, -0.784209, 0.74808, 1.07276, -5.823, 0.340971, -1.98266,
    ),
    "runs": (
        2.22884, 3.58103, 0.520599, -8.08741, 4.02777, 0, -1.32881, 1.72325, -6.24785,
        -0.133834, 0.289213, -10.9412, -5.94963, 6.12861, -13.8063, 2.22884,
    ),
    "both": (
        -1.72561, -6.16105, -2.90616, 0.12377, 6.65024, 0.656737, -3.87272, 2.01448, -3.86905,
        0.54762, 0.233711, -7.83668, -12.601, 8.85152, -2.06591, -1.72561,
    ),
}
