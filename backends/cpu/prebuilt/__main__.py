"""``python -m cuzk.backends.cpu.prebuilt``: build the shipped generic kernels (:mod:`.build`)."""

import sys

from cuzk.backends.cpu.prebuilt.build import main

sys.exit(main())
