"""``liverpool play``: a game in the terminal against the computer, as a Textual app or, with
``--plain`` (or when the terminal is not interactive), as plain lines for screen readers and
pipes. The game is saved as a record after every action; ``--resume`` goes on from one.

Domain words: *session* (``session.Session``: the game, the seats, the record file), *app*
(``app.PlayApp``), *plain mode* (``plain.PlainUI``), *watch* (``watch``: stepping through a
finished game).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..rules import RuleSet
from .session import EndListener, Session, SessionError
from .text import YOU


def _overrides(args: argparse.Namespace) -> dict[str, object]:
    from ..rules import parse_overrides
    return parse_overrides(getattr(args, "override", None) or [])


def open_session(args: argparse.Namespace, games_dir: Path | None = None) -> Session:
    name = getattr(args, "name", None)
    if getattr(args, "resume", None):
        return Session.resume(args.resume, save=args.save, bots=None, name=name or YOU)
    rules = RuleSet.preset(args.rules, _overrides(args))
    return Session.new(rules, args.players, args.bots, name or YOU, args.seed, args.save,
                       folder=games_dir)


def main(args: argparse.Namespace, games_dir: Path | None = None,
         on_over: EndListener | None = None, data: Path | None = None,
         first_game: bool = False) -> int:
    """Play a game: new records go to ``games_dir`` (default: the user data directory's
    ``games``); ``on_over`` is told once when the game is over (the session's end listener).
    The first-game walk-through (``guide``) comes with ``--guide``, or in the app when this is
    the person's ``first_game`` and it was never done in the data directory ``data``; it is a
    set of notes, never a question, so nothing waits on it."""
    try:
        session = open_session(args, games_dir)
    except SessionError as e:
        print(f"liverpool play: {e}", file=sys.stderr)
        return 2
    session.end_listener = on_over
    plain = bool(getattr(args, "plain", False))
    if not plain and not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("liverpool play: not a terminal, using the plain line mode (--plain)",
              file=sys.stderr)
        plain = True
    from .guide import Guide, guide_done
    guide = None
    if getattr(args, "guide", False) or (
            not plain and first_game and data is not None and not guide_done(data)):
        guide = Guide(folder=data)
    if plain:
        from .plain import run_plain
        if guide is None:
            return run_plain(session, sys.stdin, sys.stdout)
        return run_plain(session, sys.stdin, sys.stdout, guide)
    from .app import PlayApp
    try:
        PlayApp(session, guide=guide).run()
    finally:
        session.close()
    print(session.saved_message())
    return 0
