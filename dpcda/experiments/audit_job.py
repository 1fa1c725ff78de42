"""The ``audit`` job kind: one empirical privacy audit (:mod:`dpcda.evaluation.audit`) in a worker.

Config: the fields of :class:`dpcda.evaluation.audit.AuditSettings` (``l`` and ``sigma_x``
required; ``canary`` ``"label"`` by default, ``"features"`` the label-kept canary) plus
``device``. Progress is reported as percent of the trials run (epoch 0..100); a cancel stops
the audit at its next batch. The result is :func:`dpcda.evaluation.audit.run_audit`'s plain JSON
(bounds, the tests chosen, the accountants' claims, the canary's accountant), never noise or a
seed.
"""

from __future__ import annotations


from dpcda.jobs.kinds import JobContext, register_kind

#: 2: the ``canary`` field (default ``"label"``; version 1 ran the features canary only).
AUDIT_VERSION = 2


def normalize(config: dict) -> dict:
    """Validated config with every default filled in (``ValueError`` names a bad field)."""
    from dpcda.evaluation.audit import AuditSettings

    cfg = dict(config)
    device = cfg.pop("device", "cpu")
    cfg.pop("audit_version", None)
    known = set(AuditSettings.__dataclass_fields__)
    unknown = sorted(set(cfg) - known)
    if unknown:
        raise ValueError(f"unknown audit setting(s) {', '.join(unknown)}; known: "
                         f"{', '.join(sorted(known))}, device")
    if "l" not in cfg or "sigma_x" not in cfg:
        raise ValueError("an audit job needs l and sigma_x")
    out = AuditSettings(**cfg).to_dict()
    if not isinstance(device, str):
        raise ValueError(f"device must be a string such as 'cpu' or 'cuda', got {device!r}")
    return {**out, "device": device, "audit_version": AUDIT_VERSION}


@register_kind("audit", normalize=normalize, isolated=True)
def run_audit_job(config: dict, ctx: JobContext | None = None) -> dict:
    from dpcda.evaluation.audit import AuditSettings, json_safe, run_audit

    ctx = ctx or JobContext()
    cfg = normalize(config)
    device = cfg.pop("device")
    cfg.pop("audit_version")
    s = AuditSettings(**cfg)
    ctx.message(f"running {2 * s.trials} trials of the generator ({s.canary} canary, against "
                f"{s.against})")
    last = [-1]

    def progress(done: int, total: int) -> None:
        pct = int(100 * done / total)
        if pct != last[0]:
            last[0] = pct
            ctx.progress(pct, 100, {"trials_done": done, "trials": total})
        ctx.tick()  # counts as progress; raises JobCancelled (with its reason) when told to stop

    result = run_audit(s, progress=progress, device=device)
    return json_safe(result)
