"""Command-line interface: ``dpcda <command> ...`` (the console script installed with the
package) or, equally, ``python -m dpcda <command> ...``.

Each command lives in its own module that defines ``register(subparsers)``; the module is
imported only to build the parser, so it must keep heavy imports (torch) inside its handler.
The privacy commands never import torch and answer in well under a second.

Errors follow one rule: bad arguments or values print one line on stderr and exit with 2,
never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# Command modules, in the order their commands are listed in ``--help``.
COMMAND_MODULES = ("dpcda.cli.privacy", "dpcda.cli.generate", "dpcda.cli.jobs", "dpcda.cli.jobs_list",
                   "dpcda.cli.store", "dpcda.cli.fidelity", "dpcda.cli.audit",
                   "dpcda.cli.sites")


class UsageError(Exception):
    """Raised for a bad command line; reported as one line on stderr with exit status 2."""


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(f"{self.prog}: error: {message}")


def build_parser() -> argparse.ArgumentParser:
    invoked = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    parser = OneLineParser(
        prog="python -m dpcda" if invoked == "__main__.py" else "dpcda",
        description="DP-CDA: differentially private synthetic data by class-centric mixing.",
    )
    from dpcda import __version__

    parser.add_argument("--version", action="version", version=f"dpcda {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    for mod_name in COMMAND_MODULES:
        try:
            mod = importlib.import_module(mod_name)
        except ModuleNotFoundError as exc:  # a command module not written yet
            if exc.name == mod_name:
                continue
            raise
        mod.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return int(args.handler(args) or 0)
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"dpcda: error: {exc}".replace("\n", " "), file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into head
        return 0
