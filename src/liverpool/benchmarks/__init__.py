"""Benchmarks of the web server, kept out of the server's package: ``liverpool bench server``.

Domain words: *bench* (a run that drives a fresh server, or several, with bot clients and
measures it), *service* (several servers on one database and broker, ``benchmarks.cluster``).
The server (``liverpool.web``) never imports these; they import it.
"""
