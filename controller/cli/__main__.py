"""``python -m controller.cli``: the same as ``tablectl`` (its entry point: controller/boot.py)."""

import sys

from controller.boot import main

sys.exit(main())
