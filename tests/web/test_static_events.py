"""The browser's scripts never read the game's log out of its prose: a log entry, a replay step
and the end-of-hand screen are drawn from the server's event objects (static/events.js), their
`text` shown as words only. Checked on the scripts' source: the old patterns that picked sets,
runs and passes out of log lines are gone, the one module that draws events applies no pattern
at all, and no event's text is passed to the helpers that do (those are for the engine's
reasons, which are no events).

Domain words: script (a file of liverpool/web/static), pattern (a regular expression: a literal
``/.../`` or ``RegExp``, or a string method that takes one), event text (an event's ``text``, a
sync log entry, a replay step's ``event``).
"""

from __future__ import annotations

import re
from pathlib import Path

import liverpool.web

STATIC = Path(liverpool.web.__file__).parent / "static"

# what read the log's prose before the events came: gone for good
GONE = ("CARDS_RE", "PASS_LINE", "nameMeldsInText", "kindFromCards", "msg.event",
        "event.hand_end", ".hand_end", "event.text", "event.action", "storedHandEnd")
# the string methods that apply a pattern (or may)
PATTERN_CALLS = (".match(", ".matchAll(", ".replace(", ".replaceAll(", ".search(", ".test(",
                 ".exec(", "RegExp", ".split(/")
# the helpers that find card tokens in text with a pattern (cards.js)
TOKEN_HELPERS = ("richText", "symbolize", "tableWords")
# what an event's text is called where the scripts hold it
EVENT_WORDS = ("ev", "event", "events", "entry", "log", "step", "st", "said")


def scripts() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(STATIC.glob("*.js"))}


def code_of(source: str) -> str:
    """The source without its comments and string literals (a crude lexer, enough for the
    page's scripts: no regular expression literal may stand where this one is used)."""
    out = []
    i = 0
    n = len(source)
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            i = source.find("\n", i)
            i = n if i < 0 else i
        elif source.startswith("/*", i):
            i = source.index("*/", i) + 2
        elif c in "\"'`":
            j = i + 1
            while j < n and source[j] != c:
                j += 2 if source[j] == "\\" else 1
            out.append('""')
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def method(source: str, name: str) -> str:
    """The definition of the method ``name`` (a line ``  name(args) {``), to its closing brace."""
    found = re.search(rf"^ *{re.escape(name)}\([^)]*\) *\{{", source, re.MULTILINE)
    assert found, f"no method {name}"
    start = found.start()
    i = found.end() - 1
    depth = 0
    for j in range(i, len(source)):
        depth += {"{": 1, "}": -1}.get(source[j], 0)
        if depth == 0:
            return source[start:j + 1]
    raise AssertionError(f"{name}: no end")


def calls(code: str, name: str) -> list[str]:
    """The argument text of each call ``name(...)`` in ``code``."""
    out = []
    for m in re.finditer(rf"\b{name}\(", code):
        depth = 0
        for j in range(m.end() - 1, len(code)):
            depth += {"(": 1, ")": -1}.get(code[j], 0)
            if depth == 0:
                out.append(code[m.end():j])
                break
    return out


def test_the_old_prose_readers_are_gone() -> None:
    for name, source in scripts().items():
        for word in GONE:
            assert not re.search(re.escape(word) + r"\b", source), f"{name} still has {word}"


def test_the_events_module_applies_no_pattern() -> None:
    code = code_of(scripts()["events.js"])
    for word in PATTERN_CALLS:
        assert word not in code, f"events.js: {word}"
    # no regular expression literal: outside comments and strings, no slash at all
    assert "/" not in code, "events.js: a / outside a comment (a regular expression literal?)"


def test_log_entries_and_steps_are_drawn_by_the_events_module() -> None:
    s = scripts()
    table = code_of(s["table.js"])
    replay = code_of(s["replay.js"])
    # the log: kept as the server's objects, drawn by events.js; a pass is told by its type
    for body in (method(table, "addLog"), method(table, "renderLog"),
                 method(table, "setHandEnd"), method(replay, "words")):
        for word in PATTERN_CALLS:
            assert word not in body, f"{body.splitlines()[0]}: {word}"
        for helper in TOKEN_HELPERS:
            assert f"{helper}(" not in body, f"{body.splitlines()[0]}: {helper}"
    assert "entryNodes(" in method(table, "renderLog")
    assert "entriesNodes(" in method(replay, "words")
    # a pass is told by its type, the hand's end by its hand_ended event
    assert 'ev.type === "passed"' in method(s["table.js"], "renderLog")
    assert 'ev.type === "hand_ended"' in s["table.js"]
    # no event's text reaches a helper that reads card tokens with a pattern
    for name, code in (("table.js", table), ("replay.js", replay)):
        for helper in TOKEN_HELPERS:
            for arg in calls(code, helper):
                used = set(re.findall(r"[A-Za-z_]\w*", arg))
                assert not used & set(EVENT_WORDS), f"{name}: {helper}({arg})"
