"""What shipping a key through Ray's object store costs an actor, beside reading it from a path every node sees
(how ``cuzk serve --ray`` gets its keys to the actors: the head puts each .zkey once, each actor fetches it once).

    python benchmarks/serve/ray_keys.py KEY.zkey [KEY.zkey …]

On a local cluster of two Ray nodes (Ray's test utilities), an actor on the second node: the seconds to read the
file from its path, and to fetch it from the object store and write it to a temporary file (what ProverActor does
before it reads the key as the local server does). Parsing the key is the same in both and not counted.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import ray
from ray.cluster_utils import Cluster


@ray.remote(num_cpus=1)
class Fetcher:
    def read_path(self, path: str) -> tuple[float, int]:
        began = time.perf_counter()
        size = len(Path(path).read_bytes())
        return time.perf_counter() - began, size

    def fetch(self, refs: list) -> tuple[float, int]:
        began = time.perf_counter()
        blob = ray.get(refs[0])
        with tempfile.NamedTemporaryFile(suffix=".zkey") as file:
            file.write(blob)
            file.flush()
        return time.perf_counter() - began, len(blob)


def main() -> None:
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    cluster.add_node(num_cpus=1, object_store_memory=1 << 30)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, logging_level="WARNING", log_to_driver=False)
    try:
        fetcher = Fetcher.remote()
        print("| key | MiB | read from a path s | ray.put on the head s | fetch + write in the actor s |")
        print("|---|---|---|---|---|")
        for path in sys.argv[1:]:
            read_s, size = ray.get(fetcher.read_path.remote(path))
            began = time.perf_counter()
            ref = ray.put(Path(path).read_bytes())
            put_s = time.perf_counter() - began
            fetch_s, _ = ray.get(fetcher.fetch.remote([ref]))
            name = f"{Path(path).parent.name}/{Path(path).name}"
            print(f"| {name} | {size / 2**20:.1f} | {read_s:.3f} | {put_s:.3f} | {fetch_s:.3f} |")
            del ref
    finally:
        ray.shutdown()
        cluster.shutdown()


if __name__ == "__main__":
    main()
