"""The measured accuracy the Sites page shows for the normalisation it is set to, and the words
that say what each value was measured on (not a page itself; docs/dashboard.md, "Sites").

The shipped table (:mod:`dpcda.experiments.sites_table`) holds ``scale`` releases at many S and
``dp-center`` releases where they were measured. For ``dp-center`` the page shows dp-center's
own accuracy where the table has a row for it and ``scale``'s elsewhere, every value naming the
normalisation it was measured on, and says "Measured on scale releases" only where that is so.
"""

from __future__ import annotations

from dataclasses import dataclass

from dpcda.dashboard.sites import MODES, accuracy_by_sites

#: How the page names each mode (its table rows and figure lines).
MODE_TITLES = {"centralized": "centralized (trusted curator)", "cape": "CAPE (correlated noise)",
               "local": "local (each site alone)"}
_SHORT = {"centralized": "centralized", "cape": "CAPE", "local": "local"}
SCALE = "scale"


@dataclass(frozen=True)
class Measured:
    """One shown accuracy: the mean over ``runs``, and what it was measured with and on."""

    accuracy: float
    runs: int
    learner: str
    commit: str
    normalize: str


@dataclass(frozen=True)
class SitesAccuracy:
    """The measured accuracy at one (dataset, ε, split) for ``normalize``: ``own`` its rows,
    ``scale`` the ``scale`` rows (``{mode: {S: (accuracy, runs, learner, commit)}}``, as
    :func:`~dpcda.dashboard.sites.accuracy_by_sites` returns)."""

    normalize: str
    own: dict
    scale: dict

    def at(self, mode: str, S: int) -> Measured | None:
        """The accuracy shown for ``mode`` at ``S``: ``normalize``'s own row if there is one,
        else ``scale``'s (None where neither was measured)."""
        for norm, table in ((self.normalize, self.own), (SCALE, self.scale)):
            got = table.get(mode, {}).get(S)
            if got is not None:
                return Measured(*got, normalize=norm)
        return None

    def fallback_modes(self, S: int) -> tuple[str, ...]:
        """The modes whose accuracy at ``S`` is shown from ``scale`` releases in place of
        ``normalize``'s own (none when the page is set to ``scale``)."""
        if self.normalize == SCALE:
            return ()
        return tuple(m for m in MODES
                     if (got := self.at(m, S)) is not None and got.normalize != self.normalize)

    def own_sites(self) -> list[int]:
        """Every S at which ``normalize``'s own accuracy was measured (any mode)."""
        return sorted({s for m in MODES for s in self.own.get(m, {})})

    def column(self, S: int) -> str:
        """The accuracy column's header: names ``scale`` when every value in it is scale's in
        place of ``normalize``'s."""
        fb = self.fallback_modes(S)
        shown = [m for m in MODES if self.at(m, S) is not None]
        if fb and len(fb) == len(shown):
            return f"accuracy (measured on {SCALE})"
        return "accuracy (measured)"

    def cell(self, mode: str, S: int) -> str:
        """The table cell for ``mode`` at ``S``: value, runs, learner, commit; its normalisation
        named when it is not the one the page is set to."""
        got = self.at(mode, S)
        if got is None:
            near = sorted(set(self.own.get(mode, {})) | set(self.scale.get(mode, {})))
            return "not measured at this S" + (f" (measured at S = {', '.join(map(str, near))})"
                                               if near else "")
        on = f"on {got.normalize}, " if got.normalize != self.normalize else ""
        return (f"{got.accuracy:.3f} ({on}{got.runs} run{'s' * (got.runs > 1)}, {got.learner}, "
                f"commit {got.commit})")

    def note(self, S: int) -> str | None:
        """Where the reader is told an accuracy is ``scale``'s, not ``normalize``'s ("Measured
        on scale releases"); None where every accuracy at ``S`` is ``normalize``'s own."""
        n = self.normalize
        if n == SCALE:
            return None
        where = self.own_sites()
        if not where:
            return (f"**Measured on scale releases.** Every accuracy on this page (table and "
                    f"figure) is of releases normalised by `scale`: no {n} release was measured "
                    f"at this dataset, ε and split, so none of them is {n}'s accuracy. Its ε "
                    f"above is {n}'s own.")
        fb = self.fallback_modes(S)
        if not fb:
            return None
        return (f"**Measured on scale releases** at S = {S} ({', '.join(_SHORT[m] for m in fb)}): "
                f"no {n} release was measured there, so these accuracies are scale's, not "
                f"{n}'s. {n} was measured at S = {', '.join(map(str, where))} (its own values "
                f"there, and the figure's markers). Its ε above is {n}'s own.")

    def own_caption(self, S: int) -> str | None:
        """Where every accuracy at ``S`` is ``normalize``'s own (not ``scale``): what it was
        measured on, beside ``scale``'s at the same S."""
        n = self.normalize
        if n == SCALE or self.fallback_modes(S):
            return None
        own = {m: got for m in MODES if (got := self.at(m, S)) is not None}
        if not own:
            return None
        vs = [f"{_SHORT[m]} {self.scale[m][S][0]:.3f}" for m in own if S in self.scale.get(m, {})]
        runs = sorted({g.runs for g in own.values()})
        commits = sorted({g.commit for g in own.values()})
        return (f"**{n}'s own accuracy** at S = {S}: every value in the table was measured on "
                f"{n} releases ({'/'.join(map(str, runs))} runs, commit {', '.join(commits)})"
                + (f"; scale releases at the same setting: {', '.join(vs)}" if vs else "")
                + f". In the figure, {n}'s measurements are the markers and scale's the lines.")

    def series(self) -> list[dict]:
        """The figure's series: ``scale``'s lines per mode and, for another normalisation, its
        own measured points (markers). Each: ``name``, ``mode``, ``normalize``, ``xs``,
        ``ys``, ``lines`` (drawn as a line)."""
        out = []
        tables = [(SCALE, self.scale)] + ([(self.normalize, self.own)]
                                          if self.normalize != SCALE else [])
        for norm, table in tables:
            for mode in MODES:
                pts = sorted(table.get(mode, {}).items())
                if not pts:
                    continue
                name = MODE_TITLES[mode] if self.normalize == SCALE else f"{MODE_TITLES[mode]}, {norm}"
                out.append({"name": name, "mode": mode, "normalize": norm,
                            "xs": [p[0] for p in pts], "ys": [p[1][0] for p in pts],
                            "lines": norm == SCALE})
        return out

    def figure_title(self, dataset: str, epsilon: float, split: str) -> str:
        """The figure's title: which normalisation its points were measured on."""
        on = "scale releases"
        if self.normalize != SCALE and self.own_sites():
            on = f"{self.normalize} releases (markers) where measured, scale releases (lines)"
        return f"Measured accuracy against S ({dataset}, ε = {epsilon:g}, {split}, {on})"


def sites_accuracy(rows, *, dataset: str, epsilon: float, split: str, alpha: float | None,
                   normalize: str = SCALE) -> SitesAccuracy:
    """What the page shows from the measured table's ``rows`` at this setting for
    ``normalize`` (today's default learner's rows)."""
    kw = dict(dataset=dataset, epsilon=epsilon, split=split, alpha=alpha)
    scale = accuracy_by_sites(rows, **kw)
    own = scale if normalize == SCALE else accuracy_by_sites(rows, normalize=normalize, **kw)
    return SitesAccuracy(normalize=normalize, own=own, scale=scale)


__all__ = ["MODE_TITLES", "Measured", "SitesAccuracy", "sites_accuracy"]
