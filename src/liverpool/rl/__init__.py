"""Learning interfaces over the engine: a PettingZoo environment (``liverpool.rl.env``), its
action-id space (``rl.codec``) and observation tensor (``rl.observe``).

Domain words: see ``rl.codec`` (tokens, spelling, choice) and ``rl.observe`` (planes, relative
seats). Needs the ``[rl]`` extra (PettingZoo, Gymnasium, NumPy) for the environment.
"""

from __future__ import annotations

from typing import Any


def env(**kwargs: Any) -> Any:
    """The PettingZoo AEC environment, wrapped as PettingZoo's classic games are
    (``rl.aec.env``): ``env(rules="standard", players=4, seed=1)``."""
    from .aec import env as make
    return make(**kwargs)


def raw_env(**kwargs: Any) -> Any:
    """The environment without wrappers (``rl.aec.raw_env``)."""
    from .aec import raw_env as make
    return make(**kwargs)
