"""Answers fairly, but at decision N of a game sleeps far past any time limit."""

import time

from botlib import fair, misbehave_at, run

AT = misbehave_at()


def answer(message):
    if message["n"] == AT:
        time.sleep(120)
    return fair(message)


run("sleeper", answer)
