"""A tiny name -> object registry (the torchvision ``models`` pattern).

Every pluggable family in dpcda (accountants, conversions, datasets, mechanisms, models) is a
:class:`Registry`: ``@REG.register("name")`` adds an entry, ``REG.names()`` lists them and
``REG.get(name)`` looks one up with an error that lists the known names. A registry made with
``plugins=True`` (mechanisms, datasets) first imports the modules named in ``$DPCDA_PLUGINS``
(:mod:`dpcda.util.plugins`) whenever it is read.
"""

from __future__ import annotations

from typing import Callable, Generic, Iterator, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    """An ordered mapping from names to objects, with a helpful lookup error."""

    def __init__(self, kind: str, *, plugins: bool = False) -> None:
        self.kind = kind
        self.plugins = plugins
        self._items: dict[str, T] = {}

    def _read(self) -> dict[str, T]:
        if self.plugins:
            from dpcda.util.plugins import load_plugins

            load_plugins()
        return self._items

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: ``@REG.register("name")`` registers the decorated object under ``name``."""

        def deco(obj: T) -> T:
            self.add(name, obj)
            return obj

        return deco

    def add(self, name: str, obj: T) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"{self.kind} name must be a non-empty string, got {name!r}")
        if name in self._items:
            raise ValueError(f"{self.kind} {name!r} is already registered")
        self._items[name] = obj

    def get(self, name: str) -> T:
        try:
            return self._read()[name]
        except (KeyError, TypeError):
            known = ", ".join(self._items) or "(none)"
            raise ValueError(f"unknown {self.kind} {name!r}; known: {known}") from None

    def remove(self, name: str) -> T:
        """Unregister ``name`` (ValueError listing the known names if absent); returns it."""
        obj = self.get(name)
        del self._items[name]
        return obj

    def names(self) -> list[str]:
        return list(self._read())

    def __contains__(self, name: object) -> bool:
        return name in self._read()

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._read()))

    def __len__(self) -> int:
        return len(self._read())
