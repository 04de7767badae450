"""Plays legally and never misbehaves (with BOT_LOG set: a record of every message)."""

from botlib import fair, run

run("fair", fair)
