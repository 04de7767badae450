"""Answers fairly, but at decision N of a game prints a line that is not JSON."""

import sys

from botlib import fair, misbehave_at, run

AT = misbehave_at()


def answer(message):
    if message["n"] == AT:
        sys.stdout.write("I think I will discard the queen, thanks\n")
        sys.stdout.flush()
        return None
    return fair(message)


run("garbage", answer)
