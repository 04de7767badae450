"""Answers fairly, but at decision N of a game exits (code 3) without answering."""

import sys

from botlib import fair, misbehave_at, run

AT = misbehave_at()


def answer(message):
    if message["n"] == AT:
        print("quitter: leaving the table", file=sys.stderr)
        sys.exit(3)
    return fair(message)


run("quitter", answer)
