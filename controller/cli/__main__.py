"""``python -m controller.cli``: the same as ``tablectl``."""

import sys

from controller.cli.main import main

sys.exit(main())
