import sys
from pathlib import Path

# The suite runs against the source tree (also before `pip install -e .`).
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# One Chromium per test process for the browser tests (tests/web_harness.py): defined here once, so that
# every module shares it (a second Playwright in the same process refuses to start).
from web_harness import browser  # noqa: E402,F401
