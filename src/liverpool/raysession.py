"""A Ray session for the batch runners (the simulator's games, the review's decisions).

Domain words: *session* (Ray started for a run: a local Ray of ``workers`` CPUs, or the cluster
at ``address``; shut down at the end only if this run started it), *optional* (Ray is an extra:
a clear message names the install when it is missing).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def ray_session(workers: int, address: str | None = None) -> Iterator[Any]:
    """The ``ray`` module, started for this run unless a session is running already."""
    try:
        import ray  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise SystemExit("the ray backend needs Ray: pip install 'liverpool-rummy[ray]'") from None
    started = False
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=max(1, workers), log_to_driver=False, include_dashboard=False)
        started = True
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()
