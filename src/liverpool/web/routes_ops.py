"""Routes of a server's operations: liveness ``/healthz``, readiness ``/readyz`` and Prometheus
metrics ``/metrics``, for a load balancer and a monitor (``docs/deploy.md``).

Domain words: *probe* (a load balancer's or monitor's request to ``/healthz`` or ``/readyz``),
*scrape* (a request of Prometheus to ``/metrics``; who may scrape is ``MetricsAccess``'s to
say). What they answer is ``Ops``'s (``ops``); these routes only find the server's.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from .context import context_of

router = APIRouter(include_in_schema=False)

# load balancers and monitors probe with HEAD as well as GET
PROBED = ["GET", "HEAD"]


@router.api_route("/healthz", methods=PROBED)
async def healthz(request: Request) -> Response:
    return context_of(request).ops.health()


@router.api_route("/readyz", methods=PROBED)
async def readyz(request: Request) -> Response:
    return await context_of(request).ops.ready()


@router.api_route("/metrics", methods=PROBED)
async def metrics(request: Request) -> Response:
    return context_of(request).ops.scrape(request)
