"""``cuzk serve``: a long-lived proving service on one machine, over HTTP (docs/serve.md).

The keys of a folder are loaded once and stay resident; one worker per device proves the witnesses clients send,
synchronously (``POST /prove``) or as journaled jobs (``POST /jobs``) that survive a crash. The modules:

    errors    the typed errors of the service and of its client, each with its HTTP status
    witness   a request's witness (.wtns bytes or JSON decimal strings) checked against a key, as .wtns bytes
    keys      the registry: every .zkey of --keys DIR by its file stem, read once
    jobs      a job in memory and the bounded queue the workers pull from
    journal   the SQLite journal of asynchronous jobs (state directory, WAL): written before the 202 reply
    worker    one worker per device: a prover per key, the next witness prepared while the current proof runs
    service   the queue, the journal, the workers and the metrics together, without HTTP
    dispatch  the jobs sent to provers outside the server's process, and those sent again when a prover dies
    process_pool   each device's worker in a process of its own (``--workers processes``): the server's side
    process_child  the prover process's side: the worker, unchanged, on a queue its pipe fills
    ray_pool  the workers as Ray actors (``--ray``, the ``ray`` extra): the same API and journal, a cluster proving
    metrics   the Prometheus metrics
    app       the aiohttp application (routes, authentication, limits) and the server's life
    client    a client of the API on the standard library alone (``cuzk groth16 prove --server``)

Only ``app`` and ``metrics`` import aiohttp and prometheus-client (the ``serve`` extra), only ``ray_pool`` imports
Ray; the client and everything the base install imports do not.
"""
