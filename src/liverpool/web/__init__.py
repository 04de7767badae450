"""``liverpool serve``: the web server (lobby, tables, websockets, bots, storage).

Domain words: *host* (who runs the server), *bot command* (an external bot the host allows, as
``NAME=COMMAND``; the lobby offers it by NAME), *database URL* (SQLite file by default,
``postgresql://...`` for PostgreSQL).
"""

from __future__ import annotations

import argparse
import os
import socket
import sys


def parse_bot_commands(items: list[str]) -> dict[str, str]:
    """``NAME=COMMAND`` (or ``NAME=cmd@2s:COMMAND`` with its own time limit) -> NAME: the bot
    spec. The time limit's form is checked here; the program when the server starts."""
    from ..bots import BotSpecError, make_bot
    from .seats import bot_spec

    out: dict[str, str] = {}
    for item in items:
        name, sep, command = item.partition("=")
        name, command = name.strip(), command.strip()
        if not sep or not name or not command:
            raise ValueError(f"--bot-command {item!r}: write NAME=COMMAND")
        spec = bot_spec(command)
        try:
            make_bot(spec)
        except BotSpecError as e:
            raise ValueError(f"--bot-command {name}: {e}") from None
        out[name] = spec
    return out


def check_bot_commands(commands: dict[str, str]) -> None:
    """Start each configured bot once and complete the handshake, so that a bot that cannot
    play stops the server at start-up instead of failing a table later."""
    from ..bots import close_bot, make_bot
    from ..bots.external import BotProtocolError

    for name, spec in commands.items():
        bot = make_bot(spec)
        try:
            bot.probe()  # type: ignore[attr-defined]
        except BotProtocolError as e:
            raise ValueError(f"--bot-command {name}: {e.message}") from None
        finally:
            close_bot(bot)


def _env_float(name: str, default: float) -> float:
    text = os.environ.get(name)
    if not text:
        return default
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{name}={text!r}: a number of seconds is needed") from None


def main(args: argparse.Namespace) -> int:
    import asyncio

    import uvicorn

    from .app import create_app
    from .guard import Origins
    from .limits import Limits
    from .store import StoreError, normalize_url

    try:
        commands = parse_bot_commands(list(args.bot_command or []))
        check_bot_commands(commands)
        url = normalize_url(args.db)
        limits = Limits.from_env()
        origins = Origins.build(args.public_url, args.allowed_host or [],
                                args.allowed_origin or [], args.host)
        app = create_app(url, bot_commands=commands,
                         grace=_env_float("LIVERPOOL_GRACE", 15.0),
                         bot_think=_env_float("LIVERPOOL_BOT_THINK", 0.6),
                         buy_window=_env_float("LIVERPOOL_BUY_WINDOW", 5.0),
                         hand_pause=_env_float("LIVERPOOL_HAND_PAUSE", 30.0),
                         allow_seed=os.environ.get("LIVERPOOL_ALLOW_SEED") == "1",
                         record_pause=_env_float("LIVERPOOL_TEST_RECORD_PAUSE", 0.0),
                         limits=limits, origins=origins, redis_url=args.redis or None,
                         server_id=args.server_id or f"{socket.gethostname()}:{args.port}")
    except ValueError as e:
        print(f"liverpool serve: {e}", file=sys.stderr)
        return 2
    try:  # a database that cannot be used stops the server here, in one line
        asyncio.run(_check_store(app))
    except StoreError as e:
        print(f"liverpool serve: {e}", file=sys.stderr)
        return 1
    # a wildcard address is not one a browser can open: name the machine instead
    shown = socket.gethostname() if args.host in ("0.0.0.0", "::", "") else args.host
    if ":" in shown:
        shown = f"[{shown}]"
    where = url.split("///", 1)[-1] if url.startswith("sqlite") else "PostgreSQL"
    if args.redis:
        where += ", shared with the other servers on it through Redis"
    print(f"Liverpool is served at {origins.public_url or f'http://{shown}:{args.port}'}/ "
          f"(open it in a browser; games are kept in {where})", flush=True)
    usurped = False

    def stop_usurped() -> None:  # another process took this server's id: this one goes
        nonlocal usurped
        usurped = True
        server.should_exit = True
    cluster = app.state.registry.cluster
    if cluster is not None:
        cluster.on_usurped = stop_usurped
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning",
                            ws_max_size=limits.max_message, ws_per_message_deflate=False,
                            lifespan="on", timeout_keep_alive=5, limit_concurrency=4096,
                            h11_max_incomplete_event_size=16 * 1024)
    server = uvicorn.Server(config)
    server.run()
    if usurped:
        print("liverpool serve: stopped: another process took this server's id "
              "(give each server its own --server-id)", file=sys.stderr)
        return 1
    return 0 if server.started else 1


async def _check_store(app: object) -> None:
    store = app.state.store  # type: ignore[attr-defined]
    await store.open()
    await store.close()
