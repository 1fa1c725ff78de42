"""The ``ray`` engine of the CAPE sites: one Ray actor per site (docs/cape_engine.md).

Locally (``address=None`` and no ``RAY_ADDRESS``) it starts a Ray instance for the release and
stops it afterwards; with ``address="auto"`` or ``"ray://host:10001"`` it joins a running
cluster. On a cluster, site ``s``'s actor is placed on the node that advertises the custom
resource ``dpcda_site_s`` (start that node with ``ray start --resources='{"dpcda_site_3": 1}'``)
when such a node exists, so each site's process runs on its own machine. Given
:class:`~dpcda.mechanisms.sites.Sites`, the driver sends each actor its records (a simulation);
given :class:`~dpcda.mechanisms.site_source.SiteSources`, it sends only each site's public
locator, and the actor reads the site's own file on its node (:meth:`CapeSite.load`).
"""

from __future__ import annotations

import os
from pathlib import Path

_PKG_ROOT = str(Path(__file__).resolve().parents[2])


def _ray():
    try:
        import ray
    except ImportError:
        raise ValueError("engine='ray' needs Ray: pip install -r requirements-ray.txt (or "
                         "pip install -e '.[ray]'), or use engine='local'") from None
    return ray


class RayEngine:
    name = "ray"

    def __init__(self, specs, *, address: str | None = None) -> None:
        ray = _ray()
        from dpcda.mechanisms.cape_site import CapeSite

        self._started = False
        if not ray.is_initialized():
            address = address or os.environ.get("RAY_ADDRESS")
            kw = dict(log_to_driver=False)
            if address is None:
                kw["include_dashboard"] = False
            env = {"PYTHONPATH": _PKG_ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
            ray.init(address=address, runtime_env={"env_vars": env}, **kw)
            self._started = True
        nodes = {r for n in ray.nodes() if n.get("Alive") for r in n.get("Resources", {})}
        actor = ray.remote(num_cpus=0)(CapeSite)  # many sites may share a core (a simulation)
        self._actors = {}
        try:
            for sp in specs:
                s = int(sp["index"])
                res = {f"dpcda_site_{s}": 0.001} if f"dpcda_site_{s}" in nodes else None
                opts = {"resources": res} if res else {}
                self._actors[s] = actor.options(name=None, **opts).remote(**sp)
        except BaseException:
            self.close()
            raise

    def call(self, method: str, args: dict) -> dict:
        ray = _ray()
        return self._get(ray, {s: getattr(self._actors[s], method).remote(*a)
                               for s, a in args.items()})

    def stream(self, method: str, plan):
        from collections import deque

        ray = _ray()
        pending: deque = deque()
        for chunk in plan:
            pending.append({s: getattr(self._actors[s], method).remote(*a) for s, a in chunk.items()})
            if len(pending) > 2:
                yield self._get(ray, pending.popleft())
        while pending:
            yield self._get(ray, pending.popleft())

    @staticmethod
    def _get(ray, refs: dict) -> dict:
        try:
            return dict(zip(refs, ray.get(list(refs.values()))))
        except ray.exceptions.RayTaskError as exc:  # a site's ValueError, as the other engines
            if isinstance(exc.cause, ValueError):  # raise it (one line, no remote traceback)
                raise exc.cause from None
            raise

    def close(self) -> None:
        ray = _ray()
        for a in getattr(self, "_actors", {}).values():
            try:
                ray.kill(a)
            except Exception:  # noqa: BLE001 - already gone
                pass
        self._actors = {}
        if self._started and ray.is_initialized():
            ray.shutdown()
        self._started = False

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
