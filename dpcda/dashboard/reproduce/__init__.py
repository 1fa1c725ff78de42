""""Reproduce this": a page's setting as the library call, the CLI command and a standalone script.

:mod:`~dpcda.dashboard.reproduce.core` holds the settings, the registry and the writers;
:mod:`~dpcda.dashboard.reproduce.builders` registers one builder per page (imported here, so
that importing this package is enough to reproduce any page).
"""

from dpcda.dashboard.reproduce import builders as _builders  # noqa: F401  (registers the builders)
from dpcda.dashboard.reproduce.core import (BUILDERS, RESULT_PREFIX, ReproSettings, Reproduction, command,
                                            file_stem, kwargs, list_pages, num, py, register_builder,
                                            reproduce, script, settings_from, settings_from_comparison,
                                            settings_from_sweep)

__all__ = ["BUILDERS", "RESULT_PREFIX", "ReproSettings", "Reproduction", "command", "file_stem", "kwargs",
           "list_pages", "num", "py", "register_builder", "reproduce", "script", "settings_from",
           "settings_from_comparison", "settings_from_sweep"]
