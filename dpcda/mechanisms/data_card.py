"""The data card as a typed value: :class:`DataCard` inside, JSON only at the edges.

A generator builds a :class:`DataCard` (:func:`dpcda.mechanisms.card.make_card`); a
:class:`~dpcda.mechanisms.release.Release` keeps its JSON form (``release.card``, what
``save_npz`` writes and a page offers as a download) and gives the typed form back as
``release.data_card``. The JSON is versioned: ``schema_version`` (and ``format``,
``dpcda-data-card/<version>``). Version 2 adds ``schema_version`` and, next to the privacy
block's ``warnings`` (their text, as before), ``notices``: ``[{code, message, severity}]``
(:mod:`dpcda.util.notices`), so a reader branches on codes, never on the words.
:meth:`DataCard.from_json` reads version 2 and version 1 (whose warnings carry no code) and
refuses any other version with a ValueError naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dpcda.util.notices import Notice, notices_json

#: The version :meth:`DataCard.to_json` writes; :data:`READ_VERSIONS` are the ones it reads.
SCHEMA_VERSION = 2
READ_VERSIONS = (1, 2)
FORMAT = "dpcda-data-card"


@dataclass(frozen=True)
class DataCard:
    """What a release is and what its guarantee assumes (never a seed, RNG state or noise).

    The blocks (``parameters``, ``privacy``, ``data``, ``normalization``, ``release``) keep the
    card's documented keys; ``notices`` are the privacy block's warnings with their codes.
    """

    algorithm: str
    algorithm_title: str
    parameters: dict
    privacy: dict
    data: dict
    normalization: dict
    release: dict
    postprocessing: list = field(default_factory=list)
    notices: tuple[Notice, ...] = ()
    dataset: str | None = None
    library: str = "dpcda"
    library_version: str = ""
    created_at: str = ""
    schema_version: int = SCHEMA_VERSION

    @property
    def private(self) -> bool:
        """Whether the release carries a guarantee (False when non-private or seeded)."""
        return bool(self.privacy.get("private", False))

    @property
    def codes(self) -> set[str]:
        """The codes of its notices (what pages and the report branch on)."""
        return {n.code for n in self.notices}

    def to_json(self) -> dict:
        """The card as plain JSON (the keys of version 1, plus ``schema_version`` and the privacy
        block's ``notices``)."""
        privacy = {k: v for k, v in self.privacy.items() if k != "notices"}
        privacy["warnings"] = [str(n) for n in self.notices]
        privacy["notices"] = notices_json(self.notices)
        return {
            "format": f"{FORMAT}/{self.schema_version}",
            "schema_version": self.schema_version,
            "algorithm": self.algorithm,
            "algorithm_title": self.algorithm_title,
            "library": self.library,
            "library_version": self.library_version,
            "created_at": self.created_at,
            "dataset": self.dataset,
            "parameters": self.parameters,
            "privacy": privacy,
            "data": self.data,
            "normalization": self.normalization,
            "release": self.release,
            "postprocessing": list(self.postprocessing),
        }

    @classmethod
    def from_json(cls, obj: dict) -> DataCard:
        """Read a card written by :meth:`to_json` (version 2) or by dpcda before it (version 1)."""
        if not isinstance(obj, dict):
            raise ValueError(f"a data card must be a JSON object, got {type(obj).__name__}")
        version = card_version(obj)
        privacy = dict(obj.get("privacy") or {})
        coded = privacy.pop("notices", None)
        if version >= 2 and coded is not None:
            notices = tuple(Notice.from_json(n) for n in coded)
        else:  # version 1: the text only, no codes
            notices = tuple(Notice.from_json(w) for w in privacy.get("warnings") or ())
        return cls(algorithm=obj.get("algorithm", ""), algorithm_title=obj.get("algorithm_title", ""),
                   parameters=dict(obj.get("parameters") or {}), privacy=privacy,
                   data=dict(obj.get("data") or {}), normalization=dict(obj.get("normalization") or {}),
                   release=dict(obj.get("release") or {}),
                   postprocessing=list(obj.get("postprocessing") or []), notices=notices,
                   dataset=obj.get("dataset"), library=obj.get("library", "dpcda"),
                   library_version=obj.get("library_version", ""),
                   created_at=obj.get("created_at", ""), schema_version=SCHEMA_VERSION)


def card_version(obj: dict) -> int:
    """The schema version of card JSON ``obj``: its ``schema_version``, else the one in its
    ``format`` (version 1 had only ``format: dpcda-data-card/1``); a ValueError names a version
    this dpcda cannot read."""
    version = obj.get("schema_version")
    if version is None:
        fmt = str(obj.get("format", ""))
        prefix = f"{FORMAT}/"
        version = fmt[len(prefix):] if fmt.startswith(prefix) else fmt
        try:
            version = int(version)
        except ValueError:
            raise ValueError(f"schema_version must be one of {', '.join(map(str, READ_VERSIONS))} "
                             f"(format {FORMAT}/<version>), got format={fmt!r}") from None
    if isinstance(version, bool) or version not in READ_VERSIONS:
        raise ValueError(f"schema_version must be one of {', '.join(map(str, READ_VERSIONS))}, got "
                         f"schema_version={version!r}: a card from a newer dpcda (upgrade) or not a "
                         "dpcda data card")
    return int(version)
