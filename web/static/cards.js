// The project's own playing cards, drawn as SVG: a card is its text in the rules' notation (rank, then suit letter).
// Used by the dealer's screen and the floor's pages (any element with a data-card attribute: a card's text, or "back").
"use strict";
const SUITS = { s: ["\u2660", "#111"], h: ["\u2665", "#c8102e"], d: ["\u2666", "#c8102e"], c: ["\u2663", "#111"] };
const SUIT_NAMES = { s: "spades", h: "hearts", d: "diamonds", c: "clubs" };
const RANK_NAMES = { A: "ace", K: "king", Q: "queen", J: "jack", T: "ten" };

function cardSVG(text) {
  if (!text || text === "back") {
    return '<svg class="cardsvg back" viewBox="0 0 60 84" role="img" aria-label="card face down">' +
      '<rect x="1" y="1" width="58" height="82" rx="6" fill="#1d3f8a" stroke="#fff" stroke-width="2"/>' +
      '<rect x="7" y="7" width="46" height="70" rx="3" fill="none" stroke="#9fb6e8" stroke-width="2"/>' +
      '<path d="M7 7 L53 77 M53 7 L7 77" stroke="#9fb6e8" stroke-width="1.5"/></svg>';
  }
  const rank = text[0] === "T" ? "10" : text[0];
  const [glyph, colour] = SUITS[text[1]];
  const name = (RANK_NAMES[text[0]] || text[0]) + " of " + SUIT_NAMES[text[1]];
  return '<svg class="cardsvg" viewBox="0 0 60 84" role="img" aria-label="' + name + '" data-text="' + text + '">' +
    '<rect x="1" y="1" width="58" height="82" rx="6" fill="#fff" stroke="#333" stroke-width="2"/>' +
    '<text x="6" y="22" font-size="20" font-weight="700" font-family="sans-serif" fill="' + colour + '">' + rank + '</text>' +
    '<text x="6" y="40" font-size="16" font-family="sans-serif" fill="' + colour + '">' + glyph + '</text>' +
    '<text x="36" y="72" font-size="30" text-anchor="middle" font-family="sans-serif" fill="' + colour + '">' + glyph + '</text></svg>';
}

function drawCards(root) {
  (root || document).querySelectorAll("[data-card]").forEach((el) => { el.innerHTML = cardSVG(el.dataset.card); });
}

if (typeof document !== "undefined") document.addEventListener("DOMContentLoaded", () => drawCards());
