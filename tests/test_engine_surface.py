"""The engine's public surface (docs/engine.md): front ends read of a ``Game`` only what the
page's table lists; every name listed exists; every event kind is documented with exactly the
JSON fields it has.

How a ``Game`` is recognised in the source (a heuristic over the syntax tree, no type checker):
an expression is a game when it is

- a name in ``GAME_NAMES`` (``game``, ``g``, ...: the names the code base gives games), or a
  name the same function (or one around it) binds to a game: a parameter or variable annotated
  ``Game`` (``Game | None`` too), or assigned a game expression;
- an attribute whose name is a *game attribute*: ``game`` (``match.game``, ``self.game``,
  ``step.game``, ``result.game``), a field annotated ``Game`` in a scanned class, or an
  attribute some scanned code assigns a game expression to (``self.final = game``);
- a call of ``Game``, of a function the scanned code annotates ``-> Game``
  (``new_game_from_record(rec)``), of a method it annotates so (``replayer.at(step)``,
  ``match.run()``), or of ``clone``, ``determinized`` or ``from_view`` on anything.

Every attribute read or written on a game expression must be in the surface. A name a game is
not commonly called by, passed through a container, escapes the scan; the names used are few,
and a new one is added to ``GAME_NAMES``.
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from liverpool.bots.base import RandomBot
from liverpool.engine import Event, Game
from liverpool.engine.events import EVENT_KINDS
from liverpool.match import Match
from liverpool.rules import PRESET_NAMES, RuleSet

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "liverpool"
DOC = ROOT / "docs" / "engine.md"

# What is scanned, under src/liverpool: the front ends, the drivers and the core modules that
# follow games.
SCANNED: tuple[str, ...] = (
    "tui", "web", "benchmarks", "cli.py", "simulate.py", "soak.py", "match.py", "record.py",
    "narrate.py", "bench.py", "randomplay.py", "outofturn.py", "events.py",
)

# the names games go by in the code base
GAME_NAMES = frozenset({"game", "g", "sim", "world", "fresh"})
GAME_ATTRIBUTES = frozenset({"game"})
MAKERS = frozenset({"Game"})  # called by name
MAKING_METHODS = frozenset({"clone", "determinized", "from_view"})  # called on something

# The soak run's invariant checks read the whole state on purpose: they check the engine against
# itself (docs/engine.md, "The state itself"). Functions by file, and only these.
STATE_READERS: dict[str, frozenset[str]] = {
    "soak.py": frozenset({"cards_seen", "check_cards", "check_can_act", "check_places",
                          "check_new_hand", "check_scores", "_sizes", "check_action"}),
}


def documented_surface() -> dict[str, str]:
    """The table between the surface markers of docs/engine.md: name -> kind."""
    text = DOC.read_text(encoding="utf-8")
    body = text.split("<!-- surface: begin -->")[1].split("<!-- surface: end -->")[0]
    rows = re.findall(r"^\| `(\w+)` \| (fact|method) \|", body, re.MULTILINE)
    assert rows, "docs/engine.md lists no surface"
    return dict(rows)


SURFACE = documented_surface()


def scanned_files() -> list[Path]:
    out: list[Path] = []
    for part in SCANNED:
        path = SRC / part
        out.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return out


# ---- the scan ---------------------------------------------------------------------------------

def _is_game_type(ann: ast.expr | None) -> bool:
    if ann is None:
        return False
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return False
    if isinstance(ann, ast.Name):
        return ann.id == "Game"
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        return _is_game_type(ann.left) or _is_game_type(ann.right)
    return False


FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class Known:
    """What the scan knows makes a game, across the scanned files."""

    makers: set[str]  # functions that return a game, called by name
    methods: set[str]  # methods that return one, called on something
    attributes: set[str]  # attributes that hold one


def _known(trees: list[ast.Module]) -> Known:
    known = Known(set(MAKERS), set(MAKING_METHODS), set(GAME_ATTRIBUTES))
    for tree in trees:
        for node in tree.body:
            if isinstance(node, FunctionNode) and _is_game_type(node.returns):
                known.makers.add(node.name)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, FunctionNode) and _is_game_type(item.returns):
                        known.methods.add(item.name)
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) \
                            and _is_game_type(item.annotation):
                        known.attributes.add(item.target.id)
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Attribute) \
                    and _is_game_type(node.annotation):
                known.attributes.add(node.target.attr)
    return known


class Scan(ast.NodeVisitor):
    """Attribute reads and writes on games in one file: (line, function, attribute)."""

    def __init__(self, known: Known) -> None:
        self.known = known
        self.scopes: list[set[str]] = [set(GAME_NAMES)]
        self.functions: list[str] = []
        self.found: list[tuple[int, str, str]] = []

    def is_game(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return any(node.id in scope for scope in self.scopes)
        if isinstance(node, ast.Attribute):
            return node.attr in self.known.attributes
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name):
                return f.id in self.known.makers
            return isinstance(f, ast.Attribute) and f.attr in self.known.methods
        return False

    def _bind(self, body: list[ast.stmt], scope: set[str]) -> None:
        """Names and attributes bound to games in a function's own body (to a fixed point:
        ``b = a`` after ``a = game``)."""
        nodes = [n for stmt in body for n in _own_nodes(stmt)]
        while True:
            before = (len(scope), len(self.known.attributes))
            for n in nodes:
                if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) \
                        and _is_game_type(n.annotation):
                    scope.add(n.target.id)
                if isinstance(n, ast.Assign | ast.AnnAssign) and n.value is not None \
                        and self.is_game(n.value):
                    targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                    for t in targets:
                        if isinstance(t, ast.Name):
                            scope.add(t.id)
                        elif isinstance(t, ast.Attribute):
                            self.known.attributes.add(t.attr)
            if (len(scope), len(self.known.attributes)) == before:
                return

    def visit_Module(self, node: ast.Module) -> None:
        self._bind(node.body, self.scopes[0])
        self.generic_visit(node)

    def _function(self, node: FunctionNode) -> None:
        scope = {a.arg for a in (*node.args.posonlyargs, *node.args.args,
                                 *node.args.kwonlyargs) if _is_game_type(a.annotation)}
        self.scopes.append(scope)
        self.functions.append(node.name)
        self._bind(node.body, scope)
        self.generic_visit(node)
        self.functions.pop()
        self.scopes.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self.is_game(node.value):
            where = self.functions[0] if self.functions else "<module>"
            self.found.append((node.lineno, where, node.attr))
        self.generic_visit(node)


def _own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a statement, not entering functions (they have their own scope)."""
    if isinstance(node, FunctionNode | ast.Lambda):
        return
    yield node
    for child in ast.iter_child_nodes(node):
        yield from _own_nodes(child)


def game_attributes(files: list[Path]) -> dict[Path, list[tuple[int, str, str]]]:
    """Per file, every attribute read or written on a game: (line, top function, name)."""
    trees = [ast.parse(f.read_text(encoding="utf-8"), str(f)) for f in files]
    known = _known(trees)
    out = {}
    for f, tree in zip(files, trees, strict=True):
        scan = Scan(known)
        scan.visit(tree)
        out[f] = scan.found
    return out


# ---- the tests --------------------------------------------------------------------------------

def test_front_ends_use_only_the_documented_surface() -> None:
    outside = []
    for f, found in game_attributes(scanned_files()).items():
        allowed = STATE_READERS.get(f.name, frozenset()) if f.parent == SRC else frozenset()
        for line, function, name in found:
            if name not in SURFACE and function not in allowed:
                outside.append(f"{f.relative_to(ROOT)}:{line}: {function} reads Game.{name}")
    assert not outside, ("reads of a Game outside its documented surface (docs/engine.md); "
                         "use a view, the events or a documented method, or document it:\n"
                         + "\n".join(outside))


def test_the_scan_finds_games_by_their_names_annotations_and_makers() -> None:
    source = '''
from liverpool.engine import Game

class Holder:
    kept: Game

def f(game: Game, other: "Game | None", x: int) -> None:
    game.hands
    other.stock
    copy = game.clone()
    copy.melds
    x.hands
    self.match.game.known
    new_game_from_record(rec).turn
    w = Game.from_view(view, rng)
    w.pack

def new_game_from_record(rec) -> Game: ...

def g_user(h: Holder) -> None:
    h.kept.discard
    ok = h.kept.view_for(None)
    ok.hand
'''
    path = Path("sample.py")
    tree = ast.parse(source)
    scan = Scan(_known([tree]))
    scan.visit(tree)
    names = [n for _, _, n in scan.found]
    assert names == ["hands", "stock", "clone", "melds", "known", "turn", "pack", "discard",
                     "view_for"], (path, names)


def test_every_name_the_surface_lists_exists() -> None:
    game = Game(RuleSet.preset("standard"), 3, seed=1)
    missing = [name for name in SURFACE if not hasattr(game, name)]
    assert not missing, f"docs/engine.md lists what a Game does not have: {missing}"
    for name, kind in SURFACE.items():
        assert callable(getattr(game, name)) == (kind == "method"), \
            f"{name} is listed as a {kind}"


def events_of_every_kind() -> dict[str, Event]:
    """One event of each kind seen in random games of every preset, and of one table that
    cuts the deck."""
    seen: dict[str, Event] = {}
    tables = [(RuleSet.preset(p), 4, 0) for p in PRESET_NAMES]
    tables.append((RuleSet.preset("standard", {"cut_bonus": 10}), 3, 1))
    for rules, players, seed in tables:
        game = Game(rules, players, seed=seed)
        heard: list[Event] = []
        Match(game, [RandomBot()] * players, listener=heard.append).run()
        for e in heard:
            seen.setdefault(e.kind, e)
    return seen


def documented_fields() -> dict[str, set[str]]:
    """Per event kind, the JSON fields its section of docs/engine.md lists."""
    text = DOC.read_text(encoding="utf-8").split("\n## Events\n")[1]
    out: dict[str, set[str]] = {}
    for section in re.split(r"^### ", text, flags=re.MULTILINE)[1:]:
        head = re.match(r"`(\w+)`", section)
        if head is None:
            continue
        fields: set[str] = set()
        for row in re.findall(r"^\| ((?:`\w+`(?:, )?)+) \|", section, re.MULTILINE):
            fields.update(re.findall(r"`(\w+)`", row))
        out[head.group(1)] = fields
    return out


@pytest.fixture(scope="module")
def every_kind() -> dict[str, Event]:
    return events_of_every_kind()


def test_every_event_kind_is_documented_with_its_json_fields(
        every_kind: dict[str, Event]) -> None:
    docs = documented_fields()
    assert set(EVENT_KINDS) <= set(docs), \
        f"event kinds docs/engine.md does not describe: {set(EVENT_KINDS) - set(docs)}"
    assert set(every_kind) == set(EVENT_KINDS), "the games played did not show every kind"
    for kind, e in every_kind.items():
        keys = set(e.to_json()) - {"type"}
        assert keys == docs[kind], f"{kind}: JSON {sorted(keys)}, documented {sorted(docs[kind])}"


def test_a_seats_form_hides_only_what_the_page_says(every_kind: dict[str, Event]) -> None:
    """The per-seat form differs from the event only in the fields docs/engine.md marks as
    hidden (written in bold there), and only for other seats."""
    hidden = {"cut": {"count"}, "drew": {"card"}, "bought": {"penalty_cards"},
              "called": {"penalty_card"}}
    text = DOC.read_text(encoding="utf-8")
    for kind, fields in hidden.items():
        for name in fields:
            row = re.search(rf"^\| `{name}` \|.*$", text.split(f"### `{kind}`")[1],
                            re.MULTILINE)
            assert row is not None and "**null for every" in row.group(0), (kind, name)
    rng = random.Random(0)
    for kind, e in every_kind.items():
        full = e.to_json()
        for seat in (None, *rng.sample(range(4), 2)):
            shown = e.for_seat(seat).to_json()
            changed = {k for k in full if full[k] != shown[k]}
            assert changed <= hidden.get(kind, set()), (kind, seat, changed)
            if e.actor is not None and seat == e.actor and kind != "called":
                assert not changed, (kind, seat)
