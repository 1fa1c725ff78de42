"""``python -m dpcda``: see :mod:`dpcda.cli`."""

from dpcda.cli import main

raise SystemExit(main())
