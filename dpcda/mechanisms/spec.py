"""One specification per mechanism: what the CLI, the job runner and the pages read.

A :class:`Mechanism` entry declares, as data: its parameters (:class:`Param`: name, type, range
or choices, default), what it emits for accounting (a :class:`~dpcda.privacy.events.ReleaseEvent`,
dp_accounting's ``DpEvent``), its accountants (the first is its default and must be a valid
bound for it: it ``supports`` the event; the others stay selectable, e.g. to reproduce a paper),
its default normalisation, label mode and learner, its cost model (how
:mod:`dpcda.experiments.estimate` times it), its row in the paper's tables (``paper_name``, the
key of :mod:`dpcda.evaluation.reference`), and whether it calibrates to a target epsilon or takes
a fixed noise scale. Adding a mechanism = one module with its generator and one
:func:`register_mechanism` call (docs/mechanisms.md, "Adding a mechanism"); nothing else names
mechanisms.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dpcda.privacy.events import EVENTS, ReleaseEvent
from dpcda.util.checks import check_choice, check_float, check_int
from dpcda.util.registry import Registry

PARAM_KINDS = ("int", "float", "str")
LABEL_MODES = ("hard", "soft")
#: How large l may be: "class" (mixes within one class: at most the smallest class N_k) or "n"
#: (mixes any records: at most N).
L_BOUNDS = ("class", "n")
#: How generation time grows (:mod:`dpcda.experiments.estimate`): "mixing" (T x l x d),
#: "projection" (N x d x p), "generator" (DP-MERF's steps x batch x features).
COST_MODELS = ("mixing", "projection", "generator")


@dataclass(frozen=True)
class Param:
    """One parameter of a generator. ``default=None`` with ``required=False`` means "derived"
    (e.g. ``T = N``); ``lo``/``hi`` bound numbers, ``choices`` bound strings."""

    name: str
    kind: str
    default: Any = None
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False
    choices: tuple[str, ...] = ()
    required: bool = False
    doc: str = ""

    def __post_init__(self) -> None:
        check_choice("kind", self.kind, PARAM_KINDS)

    def check(self, value, *, why: str = ""):
        """``value`` validated against the declared type and range (the shared checks)."""
        if self.kind == "int":
            return check_int(self.name, value, int(self.lo if self.lo is not None else -2**62),
                             None if self.hi is None else int(self.hi), why)
        if self.kind == "float":
            return check_float(self.name, value, lo=self.lo, lo_open=self.lo_open, hi=self.hi,
                               hi_open=self.hi_open, why=why)
        return check_choice(self.name, value, self.choices) if self.choices else str(value)


@dataclass(frozen=True)
class Mechanism:
    """A registered generator ``generate(X, y, **params) -> Release`` and its defaults."""

    name: str
    title: str
    generate: Callable[..., Any]
    summary: str
    params: tuple[Param, ...]
    #: Accountant names; the first is the default and must be valid for this mechanism.
    accountants: tuple[str, ...]
    default_normalize: str
    #: "soft": train on the release's soft labels by default; "hard": on the hard labels.
    label_mode: str = "hard"
    #: A model name (dpcda.training.list_models), or "auto": the project's rule
    #: (:func:`dpcda.training.default_model`, from the dataset and the privacy setting).
    learner: str = "auto"
    #: Calibrates its noise to a target epsilon / accepts a fixed noise scale sigma_x.
    target_epsilon: bool = True
    noise_scale: bool = True
    #: l bounded by the smallest class ("class") or by N ("n"); unused without an "l" param.
    l_bound: str = "class"
    #: Soft labels are onehot(class) + N(0, sigma_y^2) (the noise-aware LDA can undo them).
    onehot_label_noise: bool = False
    #: The release's features are no longer images (a projection): image models do not apply.
    flat_output: bool = False
    #: Its row name in the DP-CDA paper's Table 5 ("" when the paper has none).
    paper_name: str = ""
    #: The l values the Compare page runs by default (measured; see the README).
    compare_ls: tuple[int, ...] = ()
    #: Measured settings behind the defaults (shown beside them; see the README).
    notes: str = field(default="", compare=False)
    #: What a release emits for accounting (kind and neighbouring relation); required.
    event: ReleaseEvent | None = None
    #: How its generation time grows (:data:`COST_MODELS`).
    cost_model: str = "mixing"

    def __post_init__(self) -> None:
        from dpcda.privacy import ACCOUNTANTS, get_accountant

        check_choice("label_mode", self.label_mode, LABEL_MODES)
        check_choice("l_bound", self.l_bound, L_BOUNDS)
        check_choice("cost_model", self.cost_model, COST_MODELS)
        if not isinstance(self.event, ReleaseEvent):
            raise ValueError(f"mechanism {self.name!r} must declare event=ReleaseEvent(kind, relation) "
                             f"(what it emits for accounting), got event={self.event!r}")
        if not self.accountants:
            raise ValueError(f"mechanism {self.name!r} must declare at least one accountant")
        for a in self.accountants:
            get_accountant(a)  # ValueError listing the known ones
        first = get_accountant(self.accountants[0])
        if not first.supports(self.event):
            ok = [n for n, a in ACCOUNTANTS.items() if a.supports(self.event)]
            raise ValueError(f"the first accountant of mechanism {self.name!r} is its default and "
                             f"must be a valid bound for it; {first.name!r} does not support its "
                             f"event {self.event}; accountants that do: {', '.join(ok) or 'none'}")
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"mechanism {self.name!r} declares a parameter twice: {names}")
        if "normalize" in names and self.param("normalize").default != self.default_normalize:
            raise ValueError(f"mechanism {self.name!r}: the normalize parameter's default must be "
                             f"default_normalize={self.default_normalize!r}")
        if "accountant" in names and self.param("accountant").default != self.accountants[0]:
            raise ValueError(f"mechanism {self.name!r}: the accountant parameter's default must be "
                             f"its first accountant {self.accountants[0]!r}")
        if not (self.target_epsilon or self.noise_scale):
            raise ValueError(f"mechanism {self.name!r} must take a target epsilon or a noise scale")

    @property
    def default_accountant(self) -> str:
        return self.accountants[0]

    @property
    def mixes(self) -> bool:
        """Whether it has an order of mixture ``l`` to choose."""
        return "l" in self.param_names

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise ValueError(f"mechanism {self.name!r} has no parameter {name!r}; its parameters: "
                         f"{', '.join(self.param_names)}")

    def check_accountant(self, accountant: str | None) -> str:
        """The default accountant for None; else ``accountant`` if declared, or a ValueError."""
        if accountant is None:
            return self.default_accountant
        if accountant not in self.accountants:
            raise ValueError(f"accountant must be one of {', '.join(self.accountants)} for "
                             f"mechanism={self.name!r}, got accountant={accountant!r}")
        return accountant

    def is_valid_bound(self, accountant: str) -> bool:
        """Whether ``accountant`` is a valid bound for this mechanism as implemented (it
        supports this mechanism's event)."""
        from dpcda.privacy import get_accountant

        return get_accountant(accountant).supports(self.event)


MECHANISMS: Registry[Mechanism] = Registry("mechanism", plugins=True)


def register_mechanism(mech: Mechanism) -> Mechanism:
    """Add ``mech`` to :data:`MECHANISMS` (the CLI, jobs and pages then offer it) and its event to
    :data:`dpcda.privacy.events.EVENTS` (validity questions asked by its name)."""
    if not isinstance(mech, Mechanism):
        raise ValueError(f"register_mechanism takes a Mechanism, got {type(mech).__name__}")
    MECHANISMS.add(mech.name, mech)
    EVENTS[mech.name] = mech.event
    return mech


def unregister_mechanism(name: str) -> Mechanism:
    """Remove a registered mechanism (tests, plugins); returns it."""
    mech = MECHANISMS.remove(name)
    if EVENTS.get(name) is mech.event and name != "dp-cda":
        del EVENTS[name]
    return mech


def list_mechanisms() -> list[str]:
    return MECHANISMS.names()


def all_accountants() -> list[str]:
    """Every accountant some registered mechanism declares, in first-seen order."""
    out: list[str] = []
    for name in MECHANISMS:
        out += [a for a in MECHANISMS.get(name).accountants if a not in out]
    return out


def norm_param(default: str, choices: tuple[str, ...]) -> Param:
    """The ``normalize`` parameter (its words name the choices the mechanism offers)."""
    dp = ", dp-center (public range, square root, minus a mean estimated under DP; composed "\
         "into epsilon)" if "dp-center" in choices else ""
    return Param("normalize", "str", default, choices=choices,
                 doc="scale (public range, covered by the guarantee), zscore (private statistics, "
                     f"not covered by the guarantee), none{dp}")


#: The L2 clip norm parameter every built-in mechanism takes.
CLIP_PARAM = Param("c", "float", 1.0, lo=0.0, lo_open=True, doc="L2 clip norm of the rows")


# Parameters shared by the Gaussian-noise mechanisms (ranges as the generators check them).
def noise_params(accountants: tuple[str, ...], *, T_doc: str = "synthetic samples (None: N)"):
    from dpcda.privacy import list_conversions

    return (
        Param("T", "int", None, lo=1, doc=T_doc),
        Param("epsilon", "float", None, lo=0.0, lo_open=True,
              doc="target epsilon (sigma calibrated under the accountant)"),
        Param("delta", "float", 1e-5, lo=0.0, hi=1.0, lo_open=True, hi_open=True),
        Param("sigma_x", "float", None, lo=0.0, doc="feature noise std (instead of epsilon)"),
        Param("sigma_y", "float", None, lo=0.0, doc="label noise std (default ratio * sigma_x)"),
        Param("ratio", "float", 1.0, lo=0.0, lo_open=True, doc="sigma_y / sigma_x"),
        Param("accountant", "str", accountants[0], choices=accountants),
        Param("conversion", "str", "mironov", choices=tuple(list_conversions())),
        Param("max_alpha", "int", 256, lo=3, hi=2048, doc="largest RDP order"),
    )
