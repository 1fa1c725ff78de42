"""The engines' transport measured alone: S sites answer R rounds, each with one uint64 message
of N values (a CAPE chunk: 2^21 values = 16.8 MB), summed mod 2^64 by the coordinator.

    PYTHONPATH=. python benchmarks/bench_engine_transport.py --engine local   # or ray, inline
    /path/to/venv-with-flwr/bin/python benchmarks/bench_engine_transport.py --engine flower

The sites' payload is a fixed public pattern (no private data, no randomness): this measures
start-up, per-round overhead and peak memory of the engine, not the protocol's work. ``flower``
needs ``flwr[simulation]`` (not a dependency of dpcda: measured in a throwaway virtual
environment) and needs nothing of dpcda. Figures: docs/cape_engine.md.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np


class Site:
    """A stateful site: its own message buffer, a round counter."""

    def __init__(self, index: int, n: int) -> None:
        self.index, self.n, self.rounds = index, n, 0

    def message(self, r: int):
        self.rounds += 1
        return np.full(self.n, self.index * 1_000_003 + r + 1, dtype=np.uint64)


def _expect(S, n, r):
    return np.full(n, sum(i * 1_000_003 + r + 1 for i in range(S)), dtype=np.uint64)


def run_ray(S, R, n):
    import ray

    t0 = time.perf_counter()
    ray.init(include_dashboard=False, log_to_driver=False)
    actors = [ray.remote(num_cpus=0)(Site).remote(i, n) for i in range(S)]
    ray.get([a.message.remote(-1) for a in actors])
    up = time.perf_counter() - t0
    t1 = time.perf_counter()
    for r in range(R):
        msgs = ray.get([a.message.remote(r) for a in actors])
        total = msgs[0].copy()
        for m in msgs[1:]:
            total += m
        assert (total == _expect(S, n, r)).all()
    rounds = time.perf_counter() - t1
    ray.shutdown()
    return up, rounds


def run_local(S, R, n):
    import os
    import sys
    from pathlib import Path

    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(here.parent))
    os.environ["PYTHONPATH"] = str(here) + os.pathsep + os.environ.get("PYTHONPATH", "")
    from dpcda.mechanisms.cape_engine import LocalEngine

    t0 = time.perf_counter()
    eng = LocalEngine([dict(index=i, n=n) for i in range(S)], party="bench_engine_transport:Site")
    eng.call("message", {s: (-1,) for s in range(S)})
    up = time.perf_counter() - t0
    t1 = time.perf_counter()
    plan = [{s: (r,) for s in range(S)} for r in range(R)]
    for r, msgs in enumerate(eng.stream("message", plan)):
        total = msgs[0].copy()
        for s in range(1, S):
            total += msgs[s]
        assert (total == _expect(S, n, r)).all()
    rounds = time.perf_counter() - t1
    eng.close()
    return up, rounds


def run_flower(S, R, n):
    from flwr.app import ArrayRecord, ConfigRecord, Context, Message, RecordDict
    from flwr.clientapp import ClientApp
    from flwr.serverapp import Grid, ServerApp
    from flwr.simulation import run_simulation

    client = ClientApp()
    times = {}

    @client.query()
    def query(msg: Message, context: Context) -> Message:
        i = int(context.node_config["partition-id"])
        r = int(msg.content["cfg"]["round"])
        state = context.state  # a ClientApp is not kept between rounds: state lives here
        state["rounds"] = ConfigRecord({"n": int(state["rounds"]["n"]) + 1 if "rounds" in state else 1})
        arr = np.full(n, i * 1_000_003 + r + 1, dtype=np.uint64)
        return Message(RecordDict({"m": ArrayRecord([arr])}), reply_to=msg)

    server = ServerApp()

    @server.main()
    def main(grid: Grid, context: Context) -> None:
        nodes = list(grid.get_node_ids())
        while len(nodes) < S:  # the simulated nodes register asynchronously
            time.sleep(0.1)
            nodes = list(grid.get_node_ids())
        t1 = time.perf_counter()
        for r in range(-1, R):
            if r == 0:
                t1 = time.perf_counter()
            out = grid.send_and_receive([Message(RecordDict({"cfg": ConfigRecord({"round": r})}),
                                                 dst_node_id=nd, message_type="query")
                                         for nd in nodes])
            out = list(out)
            bad = [m.error for m in out if m.has_error()]
            if bad or len(out) != len(nodes):
                raise RuntimeError(f"{len(out)} replies of {len(nodes)}: {bad[:1]}")
            msgs = [m.content["m"].to_numpy_ndarrays()[0] for m in out]
            total = msgs[0].copy()
            for m in msgs[1:]:
                total += m
            if r >= 0:
                assert (total == _expect(S, n, r)).all()
            else:
                times["up"] = time.perf_counter() - t0
        times["rounds"] = time.perf_counter() - t1

    t0 = time.perf_counter()
    run_simulation(server_app=server, client_app=client, num_supernodes=S,
                   backend_config={"client_resources": {"num_cpus": 1}})
    return times["up"], times["rounds"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", choices=("ray", "flower", "local"), required=True)
    ap.add_argument("--sites", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--values", type=int, default=1 << 21)
    a = ap.parse_args()
    run = {"ray": run_ray, "flower": run_flower, "local": run_local}[a.engine]
    up, rounds = run(a.sites, a.rounds, a.values)
    mb = a.values * 8 / 2**20
    print(f"{a.engine}: S={a.sites}, {a.rounds} rounds of {mb:.1f} MB per site: start-up {up:.1f} s, "
          f"{rounds / a.rounds:.3f} s per round ({a.sites * mb * a.rounds / rounds:.0f} MB/s), "
          f"driver peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
