"""The identifiers a page shows a person: every snake_case token in its rendered text and its labels.

``unsaid_identifiers(page)`` reads ``document.body.innerText`` (what is drawn, not the markup) and every
``title`` and ``aria-label`` attribute, and returns the tokens that look like a code (``three_of_a_kind``,
``ultimate_texas_holdem``): a screen must show each in words (web/words.py, web/static/words.js ``say``).
A browser test asserts the list is empty; the floor's pages and the dealer's screen use it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

IDENTIFIER = re.compile(r"[a-z0-9]+_[a-z0-9_]+")

_TEXTS = """() => [document.body.innerText,
  ...[...document.querySelectorAll('[title], [aria-label]')].flatMap(
    e => [e.getAttribute('title') || '', e.getAttribute('aria-label') || '']),
  document.title]"""


def identifiers(texts: list[str]) -> list[str]:
    """The snake_case tokens in ``texts``, each once, in the order found."""
    return list(dict.fromkeys(t for text in texts for t in IDENTIFIER.findall(text)))


def unsaid_identifiers(page: Page) -> list[str]:
    """Every snake_case token the page shows: its rendered text, its titles and aria-labels, its title."""
    texts: list[str] = page.evaluate(_TEXTS)
    return identifiers(texts)
