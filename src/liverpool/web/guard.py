"""The server's outer guard (an ASGI middleware): what is checked of every request before the
app sees it, and the security headers on every answer.

Domain words: *host* (the ``Host`` header: the name the client used for this server),
*origin* (the ``Origin`` header a browser sends: the site whose page made the request),
*client* (the connecting address, after a trusted proxy's ``X-Forwarded-For``), *refusal*
(an answer that changes nothing: HTTP 4xx with ``{"error", "message"}``, or a websocket closed
before it is accepted).
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .limits import Limits, RateLimiter

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
# health checks and metrics (ops.py): a load balancer or monitor may ask for them by address
PROBE_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})


def host_name(host: str) -> str:
    """``example.org:8000`` -> ``example.org``; ``[::1]:8000`` -> ``::1``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        return host.split(":", 1)[0]
    return host


@dataclass(frozen=True)
class Origins:
    """Which hosts the server answers to, which origins may use it, and where share links
    point (``docs/security.md``, "Headers, hosts and origins")."""

    public_url: str | None = None  # e.g. https://cards.example.org (no trailing slash)
    allowed_hosts: frozenset[str] | None = None  # None: any Host is served
    allowed_origins: frozenset[str] = frozenset()

    @staticmethod
    def build(public_url: str | None, allowed_hosts: Iterable[str], allowed_origins:
              Iterable[str], listen_host: str | None) -> Origins:
        """The settings of ``liverpool serve``: hosts are checked when the server listens on
        one address, or when the host named them."""
        hosts = {host_name(h) for h in allowed_hosts if h.strip()}
        url = None
        if public_url:
            parts = urlsplit(public_url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(f"--public-url {public_url!r}: give http(s)://HOST[:PORT]")
            url = f"{parts.scheme}://{parts.netloc}"
            hosts.add(parts.hostname.lower())
        wildcard = listen_host in (None, "", "0.0.0.0", "::")
        if hosts or not wildcard:
            hosts |= LOOPBACK_NAMES
            if not wildcard and listen_host:
                hosts.add(host_name(listen_host))
            checked: frozenset[str] | None = frozenset(hosts)
        else:
            checked = None
        origins = frozenset(o.strip().rstrip("/").lower() for o in allowed_origins if o.strip())
        return Origins(url, checked, origins)

    def host_ok(self, host: str) -> bool:
        return self.allowed_hosts is None or host_name(host) in self.allowed_hosts

    def origin_ok(self, origin: str, host: str) -> bool:
        """Same site as the host asked, or allowed by the host."""
        o = origin.strip().rstrip("/").lower()
        if o in self.allowed_origins or (self.public_url and o == self.public_url.lower()):
            return True
        parts = urlsplit(o)
        return bool(parts.netloc) and parts.netloc == host.strip().lower()

    def link_base(self, scheme: str, host: str) -> str:
        """Where share links point: the public URL, else the address the client used when it is
        one this server knows, else nothing (the link is a path the page completes)."""
        if self.public_url:
            return self.public_url
        known = self.allowed_hosts if self.allowed_hosts is not None else LOOPBACK_NAMES
        if host and host_name(host) in known:
            return f"{'https' if scheme in ('https', 'wss') else 'http'}://{host.strip()}"
        return ""


def ip_host(host: str) -> bool:
    """The Host header is an IP address (no name, so no DNS rebinding through it)."""
    try:
        ipaddress.ip_address(host_name(host))
    except ValueError:
        return False
    return True


def client_of(scope: Scope) -> str:
    """The client a request counts for in the per-client limits: its address (after a trusted
    proxy's ``X-Forwarded-For``, which uvicorn puts in the scope), by ``client_key``."""
    client = scope.get("client")
    return client_key(str(client[0])) if client else "unknown"


def client_key(address: str) -> str:
    """An IPv4 address as it is; an IPv6 address by its /64 network, which one subscriber
    is commonly given whole (counting each address would let it take a new one for every
    request); an IPv4-mapped IPv6 address as the IPv4 address. Anything else (a Unix
    socket's name) as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)


def client_mark(client: str) -> str:
    """What a table keeps of a client's address (``client_of``), to know it again: a hash, so
    that no address is stored."""
    return hashlib.sha256(b"liverpool-client:" + client.encode("utf-8")).hexdigest()[:32]


def network_key(client: str) -> str:
    """The network a client (``client_key``) belongs to, for the caps per network: an IPv4
    address's /24, an IPv6 client's /48 (a site is commonly given a /48, so one subscriber
    holds thousands of /64s). Anything else as it is."""
    try:
        net = ipaddress.ip_network(client, strict=False)
    except ValueError:
        return client
    prefix = 24 if net.version == 4 else 48
    return str(net.supernet(new_prefix=prefix)) if net.prefixlen > prefix else str(net)


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


class Guard:
    """Hosts, origins, content types, declared body sizes and the request rate, checked before
    the app; security headers added to every HTTP answer."""

    def __init__(self, app: ASGIApp, limits: Limits, origins: Origins,
                 rates: RateLimiter) -> None:
        self.app = app
        self.limits = limits
        self.origins = origins
        self.rates = rates

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        host = headers.get("host", "")
        refusal = await self._refusal(scope, headers, host)
        if refusal is not None:
            status, code, message, extra = refusal
            if kind == "websocket":
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": 4000 + status,
                            "reason": code})
                return
            await _answer(send, status, code, message, extra)
            return
        if kind == "websocket":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)

    async def _refusal(self, scope: Scope, headers: dict[str, str], host: str
                 ) -> tuple[int, str, str, list[tuple[bytes, bytes]]] | None:
        if not self.origins.host_ok(host) and not (
                scope.get("path") in PROBE_PATHS and ip_host(host)):
            return 400, "bad_host", f"this server does not answer for the host {host[:80]!r}", []
        method = scope.get("method", "GET")
        origin = headers.get("origin")
        if origin is not None and (scope["type"] == "websocket" or method in WRITE_METHODS) \
                and not self.origins.origin_ok(origin, host):
            return 403, "bad_origin", "requests from another site's pages are refused", []
        path: str = scope.get("path", "")
        if scope["type"] == "http" and path.startswith("/api/") and \
                not await self.rates.allow("request", client_of(scope)):
            return (429, "rate_limited", f"too many requests: at most "
                    f"{self.limits.request_rate} from one address", [(b"retry-after", b"60")])
        if scope["type"] == "http" and method in WRITE_METHODS:
            ctype = headers.get("content-type", "").split(";", 1)[0].strip().lower()
            if ctype != "application/json":
                return 415, "bad_content_type", "send the body as application/json", []
            length = headers.get("content-length")
            if length is not None:
                if not length.isdigit() or len(length) > 18:
                    return 400, "bad_request", "Content-Length is not a number", []
                if int(length) > self.limits.max_body:
                    return (413, "too_large", f"a request body has at most "
                            f"{self.limits.max_body} bytes", [])
        return None


async def _answer(send: Send, status: int, code: str, message: str,
                  extra: list[tuple[bytes, bytes]]) -> None:
    body = json.dumps({"error": code, "message": message}).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"), *extra, *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body})
