import sys
from pathlib import Path

# The suite runs against the source tree (also before `pip install -e .`).
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The browser tests' Chromium (tests/web_harness.py), one fixture for every module.
from web_harness import browser  # noqa: E402,F401
