"""What a mechanism emits for accounting, apart from any accountant (dp_accounting's ``DpEvent``).

A mechanism declares one :class:`ReleaseEvent`: the *kind* of release it makes (e.g. ``l``
records of one class averaged plus Gaussian noise, ``T`` times) and the neighbouring
:class:`Relation` its guarantee is stated under. An accountant declares the kinds it can account
and the relation its bound holds under; :meth:`Accountant.supports(event)
<dpcda.privacy.accountants.Accountant.supports>` says whether its epsilon is a valid bound for a
release of that event. Accountants never name mechanisms and mechanisms never decide validity:
an epsilon from an accountant that does not support the mechanism's event carries
:data:`~dpcda.privacy.accountants.NOT_A_BOUND`.

The names in :data:`EVENTS` (mechanism name -> event) are filled by
:func:`dpcda.mechanisms.register_mechanism`, so that questions asked by name ("is ``paper`` a
bound for ``dp-cda``?") can be answered here; DP-CDA's own event (:data:`CLASS_MIXTURE`, the
project's subject and the default of every such question) is known without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Relation(Enum):
    """Neighbouring relations; ``.words`` is the sentence shown next to every epsilon."""

    #: One record's features replaced, its label kept; the class counts N_k are public.
    CLASS_FEATURES = "class-features"
    #: One record replaced by any other record, features and label (the whole record).
    REPLACE_ONE = "replace-one"
    #: One record's features replaced, its label kept (a single release of each record).
    FEATURES = "features"

    @property
    def words(self) -> str:
        return _WORDS[self]

    def covers(self, other: Relation) -> bool:
        """Whether a bound under this relation is also a bound under ``other``: every pair of
        ``other``-neighbours is a pair of neighbours here (replace-one covers every relation)."""
        return self is other or self is Relation.REPLACE_ONE


_WORDS = {
    Relation.CLASS_FEATURES: ("Two datasets are neighbours when they differ in one record's "
                              "features, its label kept; the number of records of each class is "
                              "treated as public."),
    Relation.REPLACE_ONE: "Two datasets are neighbours when one record is replaced by any other record.",
    Relation.FEATURES: ("Two datasets are neighbours when one record's features are replaced by "
                        "any other features, its label kept."),
}

#: The kinds of release the registered accountants know (an accountant lists the ones it bounds).
KINDS = {
    "class-mixture": "T_k means of l records drawn without replacement from one class k, plus "
                     "Gaussian noise (DP-CDA's Algorithm 1)",
    "mixture": "T means of l records drawn from all N records, rows clipped to c, plus Gaussian "
               "noise (DPMix; local perturbation at l = 1)",
    "gaussian-release": "every record released once through a public linear map plus Gaussian "
                        "noise (a random projection)",
    "embedding-release": "one Gaussian release of a per-class mean embedding and the class counts "
                         "(DP-MERF)",
}


@dataclass(frozen=True)
class ReleaseEvent:
    """One mechanism's release, for accounting: its ``kind`` (a key of :data:`KINDS`, or a new
    one that only a new accountant supports) and the ``relation`` its guarantee is stated under."""

    kind: str
    relation: Relation

    def __post_init__(self) -> None:
        if not isinstance(self.kind, str) or not self.kind:
            raise ValueError(f"kind must be a non-empty string (e.g. one of {', '.join(KINDS)}), "
                             f"got kind={self.kind!r}")
        if not isinstance(self.relation, Relation):
            raise ValueError(f"relation must be one of {', '.join(f'Relation.{r.name}' for r in Relation)}, "
                             f"got relation={self.relation!r}")


#: DP-CDA's release (Algorithm 1): class mixtures, stated under the class-aware relation.
CLASS_MIXTURE = ReleaseEvent("class-mixture", Relation.CLASS_FEATURES)

#: Mechanism name -> its event (filled by ``register_mechanism``; DP-CDA's is known here).
EVENTS: dict[str, ReleaseEvent] = {"dp-cda": CLASS_MIXTURE}


def event_of(mechanism: str | ReleaseEvent) -> ReleaseEvent:
    """The event of a mechanism given by name (registered) or the event itself."""
    if isinstance(mechanism, ReleaseEvent):
        return mechanism
    try:
        return EVENTS[mechanism]
    except (KeyError, TypeError):
        raise ValueError(f"mechanism must be a registered mechanism ({', '.join(EVENTS)}) or a "
                         f"ReleaseEvent, got mechanism={mechanism!r}") from None
