"""``python -m cuzk.cli …``: the ``cuzk`` command line, for environments without the console script."""

from __future__ import annotations

import sys

from cuzk.cli import main

sys.exit(main())
