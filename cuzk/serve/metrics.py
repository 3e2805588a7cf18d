"""The service's Prometheus metrics (``GET /metrics``), in a registry of its own:

    cuzk_queue_depth                      jobs waiting in the queue
    cuzk_jobs_running                     jobs claimed by a worker and not finished
    cuzk_proofs_total{key, outcome}       jobs ended: done, failed (a refused witness), error (an internal error),
                                          timeout, cancelled
    cuzk_job_seconds{key}                 from acceptance to the end, for the jobs done
    cuzk_phase_seconds{phase}             the engine's phases of every proof (its Recorder's engine-level spans:
                                          qap_evaluations, prove, msm_b_g2, compute_h, msm_h_g1, self_check, …)
    cuzk_requests_rejected_total{reason}  requests answered 401, 413, 422 or 429 before any job was made
    process_*                             the process's memory and CPU (prometheus-client's process collector)

No backend reports its device memory through the protocol today, so no device-memory gauge is exported (see
docs/serve.md).
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.process_collector import ProcessCollector

PHASE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)


class Metrics:
    """The metrics of one server; ``depth`` and ``running`` are read when scraped."""

    def __init__(self, depth: Callable[[], int], running: Callable[[], int]) -> None:
        disable_created_metrics()  # no *_created series: one per label set, of no use to a dashboard
        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)
        Gauge("cuzk_queue_depth", "jobs waiting in the queue", registry=self.registry).set_function(depth)
        Gauge("cuzk_jobs_running", "jobs a worker claimed", registry=self.registry).set_function(running)
        self.proofs = Counter(
            "cuzk_proofs", "jobs ended, by key and outcome", ["key", "outcome"], registry=self.registry
        )
        self.job_seconds = Histogram(
            "cuzk_job_seconds", "acceptance to result", ["key"], buckets=PHASE_BUCKETS, registry=self.registry
        )
        self.phases = Histogram(
            "cuzk_phase_seconds",
            "engine phases of the proofs",
            ["phase"],
            buckets=PHASE_BUCKETS,
            registry=self.registry,
        )
        self.rejected = Counter(
            "cuzk_requests_rejected", "requests refused before a job was made", ["reason"], registry=self.registry
        )

    def observe_phases(self, spans: list[tuple[str, float]]) -> None:
        for name, seconds in spans:
            self.phases.labels(phase=name).observe(seconds)

    def exposition(self) -> tuple[bytes, str]:
        """The text format and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


__all__ = ["PHASE_BUCKETS", "Metrics"]
