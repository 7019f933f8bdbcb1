"""The shuffle monitor (issue 28; docs/protection.md "The shuffle monitor"): pure, observations in, findings out.

Fed one ``DeckObservation`` a deck: the cards read in the positions the deck delivered them (a prefix; the
stub is never read) and the order the deck's cards went back into the shuffler after that round, ``None``
where a card was not read (the stub, UTH ch.10 §C(4)).  A deck letter's next observation is compared with
the order it went in.  The tests, each at a stated false-alarm rate (``RATES``, per fair deck):

* ``shelf_likelihood``  exact likelihood ratio of what was read against one pass of a 10- or 20-shelf shuffler
                        (Diaconis, Fulman, Holmes 2013), a dynamic programme over the read prefix; CUSUM;
* ``rising_sequences``  runs of consecutive cards of the order fed read in that order (riffles); CUSUM;
* ``surviving_pairs``   neighbours in the order fed still neighbours when read; Poisson tail over windows;
* ``rank_correlation``  Kendall's tau, read position against position fed; normal tail over windows;
* ``position_bias``     card-by-position counts over blocks of decks; chi-square (Wilson-Hilferty);
* ``replayed_deck``     an index of every earlier deck's first cards; a read order equal in most positions.

A CUSUM of exact likelihood ratios alarms on a fair shuffle at most once in ``e**h`` decks on average (Lorden
1971); a finding's ``p_value`` is that bound (Ville's inequality) or the test's tail.  Evidence holds numbers only:
no card is named, so no finding can show a card the rules have not revealed.  ``state()``/``from_state()``
serialise everything the monitor keeps (the daemon rebuilds it from the journal: service/shuffle_watch.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

#: the false-alarm budget per fair deck of each test (their sum is under one in 100,000)
RATES: dict[str, float] = {
    "shelf_likelihood": 2e-6,  # shared by the two shelf shufflers' CUSUMs
    "rising_sequences": 2e-6,
    "surviving_pairs": 1e-6,
    "rank_correlation": 1e-6,
    "position_bias": 1e-6,
    "replayed_deck": 1e-7,
}
SHELVES = (10, 20)  # the shelf shufflers the likelihood ratio is against, a CUSUM each
RISING_Q = 0.8  # the alternative: a run of consecutive cards fed is read in the same order with this chance
WINDOW = 25  # decks per window of the windowed tests
BLOCK = 520  # decks per block of card-by-position counts (ten a cell)
REPLAY_KEY = 3  # cards that key the index of earlier decks (at two places in the read order)
REPLAY_SAME = 0.6  # a deck read the same as an earlier one in this share of its positions (at least 6) is replayed

WORDS: dict[str, str] = {
    "position_bias": "cards fall in some positions of the deck more often than a fair shuffle allows",
    "rising_sequences": "cards come out in the order they went into the shuffler, as after too few riffles",
    "rank_correlation": "the order read follows the order the cards went into the shuffler",
    "surviving_pairs": "neighbouring cards stay together from one deck to the next",
    "shelf_likelihood": "the decks look like one pass of a shelf shuffler, not a fair shuffle",
    "replayed_deck": "a deck came out in the same order as an earlier deck",
}


@dataclass(frozen=True)
class DeckObservation:
    """One deck: ``read`` the cards in delivered positions 1, 2, ... (``None`` a card not read: the prefix before
    it counts), ``collected`` the order this deck's cards go back into the shuffler, fed first first, ``None`` for
    a card not read (the stub), empty when not known."""

    deck: str
    read: tuple[str | None, ...]
    collected: tuple[str | None, ...] = ()
    round: str | None = None


@dataclass(frozen=True)
class Finding:
    finding: str
    deck: str
    round: str | None
    evidence: dict[str, Any]
    p_value: float | None


def cusum_threshold(rate: float) -> float:
    return math.log(1.0 / rate)


def normal_upper(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def poisson_upper(k: int, lam: float) -> float:
    """P(X >= k) for X Poisson(lam)."""
    if k <= 0:
        return 1.0
    term, below = math.exp(-lam), 0.0
    for i in range(k):
        below += term
        term *= lam / (i + 1)
    return max(0.0, 1.0 - below) if below < 0.999 else _poisson_tail_direct(k, lam)


def _poisson_tail_direct(k: int, lam: float) -> float:
    total, i = 0.0, k
    term = math.exp(-lam + k * math.log(lam) - math.lgamma(k + 1)) if lam > 0 else 0.0
    while term > 1e-300 and i < k + 1000:
        total += term
        i += 1
        term *= lam / i
    return total


def chi_square_upper(x2: float, df: int) -> float:
    """Wilson-Hilferty: (X²/df)^(1/3) is nearly normal."""
    v = 2.0 / (9.0 * df)
    return normal_upper(((x2 / df) ** (1.0 / 3.0) - (1.0 - v)) / math.sqrt(v))


# -- the shelf shuffler's exact likelihood ratio ---------------------------------------------------------------

_INV_FACT = np.array([1.0 / math.factorial(i) for i in range(60)])


@lru_cache(maxsize=4096)
def _tail_coefficients(stub: int, last: int, others: int) -> np.ndarray:
    """The ways the stub's cards fill ``last`` places of the last pile (ending it) and ``others`` of earlier piles,
    by how many unused stub cards lie beyond the pile's end: coefficient ``c[p]`` of ``x**p y**(unused - p)``,
    times ``others!`` (the earlier piles' shares are divided by their factorials in the programme)."""
    unused = stub - last - others
    c = np.zeros(max(unused, 0) + 1)
    for rank in range(last, stub + 1):  # the pile's end is the rank-th stub card (counted from the far side)
        above, below = stub - rank, rank - last
        ways_last = math.comb(rank - 1, last - 1)
        for j in range(max(0, others - below), min(others, above) + 1):
            p = above - j
            c[p] += ways_last * math.comb(above, j) * math.comb(below, others - j)
    return c * math.factorial(others)


@lru_cache(maxsize=1024)
def _tail_matrix(stub: int, read: int) -> np.ndarray:
    """``_tail_coefficients`` for each count of the last pile's stub cards, 1 to ``read``, as columns."""
    return np.stack([_tail_coefficients(stub, s, read - s) for s in range(1, read + 1)], axis=1)


def shelf_log_lr(read: Sequence[int], n: int, stub: tuple[int, int] | None, remaining: Sequence[int],
                 piles_decreasing: np.ndarray) -> float:
    """log P(read | one shelf pass) - log P(read | fair), exactly (``shelf_log_lrs`` for one model)."""
    return shelf_log_lrs(read, n, stub, remaining, (piles_decreasing,))[0]


def shelf_log_lrs(read: Sequence[int], n: int, stub: tuple[int, int] | None, remaining: Sequence[int],
                  models: Sequence[np.ndarray]) -> list[float]:
    """For each model (its piles: decreasing or not), log P(read | one pass) - log P(read | fair), exactly.

    ``read``: the fed position (0-based) of each card read, in the order read, ``-1`` for a card of the stub
    (fed somewhere in ``stub`` = (first, last), order unknown); ``remaining``: the fed positions of the known
    cards not read.  The pass is the paper's: each card gets one of ``P`` equally likely piles (a shelf and a
    side); the deck is the piles in order, a decreasing pile in reverse order fed.  The programme runs over the
    read prefix with a state (pile, stub cards in it); the cards not read must all lie in later piles, or beyond
    the end of the last pile (``_tail_coefficients``).  The models' piles are stacked and run at once."""
    k = len(read)
    a, b = stub if stub is not None else (n, n - 1)
    N = b - a + 1
    u = sum(1 for f in read if f < 0)
    dec = np.concatenate(models)
    sizes = np.array([len(m) for m in models])
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    block = np.repeat(np.arange(len(models)), sizes)
    first = starts[block]  # each row's model's first row
    slices = [slice(int(st), int(st + sz)) for st, sz in zip(starts, sizes, strict=True)]
    P = sizes[block].astype(float)
    labels = np.arange(len(dec)) - first
    invf = _INV_FACT[: k + 1]
    W = np.zeros((len(dec), k + 1))
    W[:, 1 if read[0] < 0 else 0] = 1.0
    for t in range(1, k):
        prev, cur = read[t - 1], read[t]
        if prev >= 0 and cur >= 0:
            ok = dec if cur < prev else ~dec
        elif prev < 0 and cur < 0:
            ok = None
        elif prev < 0:
            ok = np.where(dec, cur < a, cur > b)
        else:
            ok = np.where(dec, prev > b, prev < a)
        closed = W @ invf
        opened = np.empty_like(closed)  # a new pile after any earlier one of the same model (summed apart:
        for sl in slices:  # one cumulative sum over all would lose a small model's digits to a large one's)
            opened[sl] = np.cumsum(closed[sl]) - closed[sl]
        if ok is not None:
            W *= ok[:, None]
        if cur < 0:
            W[:, 1:] = W[:, :-1].copy()
            W[:, 0] = 0.0
            W[:, 1] += opened
        else:
            W[:, 0] += opened
    x = (P - labels) / P  # a card not read may take the last pile's label only beyond its end
    y = (P - 1 - labels) / P
    rem = np.asarray(remaining)
    last = read[-1]
    if last >= 0:
        beyond = np.where(dec, np.sum(rem < last), np.sum(rem > last))
        stub_beyond = np.where(dec, b < last, a > last) if N > 0 else np.zeros(len(dec), dtype=bool)
        tail = x ** beyond * y ** (len(rem) - beyond) * np.where(stub_beyond, x, y) ** (N - u)
        rows = (W @ invf) * tail
        ways = math.lgamma(N + 1) - math.lgamma(N - u + 1)
    else:
        beyond = np.where(dec, np.sum(rem < a), np.sum(rem > b))
        known_tail = x ** beyond * y ** (len(rem) - beyond)
        unused = N - u
        powers = np.arange(unused + 1)
        xy = x[:, None] ** powers[None, :] * y[:, None] ** (unused - powers)[None, :]
        g = xy @ _tail_matrix(N, u)  # (pile, stub cards in it)
        rows = np.sum(W[:, 1: u + 1] * g, axis=1) * known_tail
        ways = 0.0
    totals = np.bincount(block, weights=rows, minlength=len(models))
    log_fair = math.lgamma(N + 1) - math.lgamma(N - u + 1) + math.lgamma(n - k + 1) - math.lgamma(n + 1)
    return [(math.log(tot) + ways - k * math.log(len(m)) if tot > 0 else -math.inf) - log_fair
            for tot, m in zip(totals, models, strict=True)]


def _shelf_piles(shelves: int) -> np.ndarray:
    piles: np.ndarray = np.arange(2 * shelves) % 2 == 0
    return piles  # each shelf's top placements (reversed), then its bottom ones


_MODELS = tuple(_shelf_piles(m) for m in SHELVES)
_CUSUMS = (*(f"shelf_likelihood.{m}" for m in SHELVES), "rising_sequences")


# -- the monitor -----------------------------------------------------------------------------------------------


@dataclass
class _Window:
    decks: int = 0
    observed: float = 0.0
    expected: float = 0.0  # Poisson mean (surviving pairs) or variance (rank correlation)

    def add(self, observed: float, expected: float) -> None:
        self.decks, self.observed, self.expected = self.decks + 1, self.observed + observed, self.expected + expected


@dataclass
class ShuffleMonitor:
    """Feed ``observe`` one deck at a time; it returns the findings that deck completes."""

    fed: dict[str, list[str | None]] = field(default_factory=dict)  # per deck letter, its order fed next
    cusum: dict[str, float] = field(default_factory=lambda: dict.fromkeys(_CUSUMS, 0.0))
    since: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_CUSUMS, 0))
    pairs: _Window = field(default_factory=_Window)
    kendall: _Window = field(default_factory=_Window)
    counts: dict[str, list[int]] = field(default_factory=dict)  # card -> times read at each position (this block)
    block_decks: int = 0
    history: list[tuple[str, ...]] = field(default_factory=list)  # every deck's read prefix, in order
    index: dict[str, list[int]] = field(default_factory=dict)  # first cards -> decks in ``history``
    decks: int = 0

    def observe(self, obs: DeckObservation) -> list[Finding]:
        self.decks += 1
        prefix = _prefix(obs.read)
        findings: list[Finding] = []

        def found(code: str, evidence: dict[str, Any], p: float | None) -> None:
            findings.append(Finding(code, obs.deck, obs.round, evidence, p))

        fed = self.fed.get(obs.deck)
        if fed and prefix:
            self._against_fed(prefix, fed, found)
        self._positions(prefix, found)
        self._replay(prefix, found)
        if obs.collected:
            self.fed[obs.deck] = list(obs.collected)
        return findings

    # each test ----------------------------------------------------------------------------------------------

    def _against_fed(self, prefix: list[str], fed: list[str | None], found: Any) -> None:
        n = len(fed)
        where = {c: i for i, c in enumerate(fed) if c is not None}
        unknown = [i for i, c in enumerate(fed) if c is None]
        stub = (unknown[0], unknown[-1]) if unknown else None
        contiguous = not unknown or unknown[-1] - unknown[0] + 1 == len(unknown)
        if any(c not in where for c in prefix) and not unknown:
            return  # a card that was not in the deck: the witnesses' finding
        read = [where.get(c, -1) for c in prefix]
        known = [(pos, f) for pos, f in enumerate(read) if f >= 0]
        if contiguous and sum(1 for f in read if f < 0) <= len(unknown):
            seen = set(read)
            remaining = [f for f in where.values() if f not in seen]
            for m, log_lr in zip(SHELVES, shelf_log_lrs(read, n, stub, remaining, _MODELS), strict=True):
                self._cusum(f"shelf_likelihood.{m}", log_lr, found,
                            {"log_likelihood_ratio": round(log_lr, 3), "cards_read": len(read), "shelves": m})
        # runs of consecutive positions fed, all read: their order read (disjoint runs are independent if fair)
        by_fed = {f: pos for pos, f in known}
        log_lr, runs, in_order = 0.0, 0, 0
        for f in sorted(by_fed):
            if f - 1 in by_fed:
                continue
            length = 1
            while f + length in by_fed:
                length += 1
            if length < 2:
                continue
            runs += 1
            order = [by_fed[f + i] for i in range(length)]
            perms = math.factorial(length)
            if all(p < q for p, q in zip(order, order[1:], strict=False)):
                in_order += 1
                log_lr += math.log(RISING_Q * perms)
            else:
                log_lr += math.log((1 - RISING_Q) * perms / (perms - 1))
        if runs:
            self._cusum("rising_sequences", log_lr, found, {"runs": runs, "runs_in_order": in_order})
        # neighbours fed that are neighbours read, in the same order: about Poisson, 1/k a pair if fair
        k = len(prefix)
        pairs = sum(1 for f in by_fed if f + 1 in by_fed)
        kept = sum(1 for f, pos in by_fed.items() if by_fed.get(f + 1) == pos + 1)
        self.pairs.add(kept, pairs / k if k > 1 else 0.0)
        if self.pairs.decks >= WINDOW:
            w, self.pairs = self.pairs, _Window()
            p = poisson_upper(int(w.observed), w.expected)
            if p < RATES["surviving_pairs"] * WINDOW:
                found("surviving_pairs", {"pairs_kept": int(w.observed), "expected": round(w.expected, 3),
                                          "decks": w.decks}, p)
        # Kendall's S, read position against position fed; its variance if fair (no ties)
        m = len(known)
        if m >= 2:
            s = sum((1 if (f2 - f1) > 0 else -1) for i, (_, f1) in enumerate(known) for _, f2 in known[i + 1:])
            self.kendall.add(s, m * (m - 1) * (2 * m + 5) / 18)
        else:
            self.kendall.decks += 1
        if self.kendall.decks >= WINDOW:
            w, self.kendall = self.kendall, _Window()
            if w.expected > 0:
                z = w.observed / math.sqrt(w.expected)
                p = 2 * normal_upper(abs(z))
                if p < RATES["rank_correlation"] * WINDOW:
                    found("rank_correlation", {"kendall_s": int(w.observed), "z": round(z, 2), "decks": w.decks}, p)

    def _cusum(self, name: str, log_lr: float, found: Any, evidence: dict[str, Any]) -> None:
        code = name.split(".")[0]
        share = sum(1 for c in _CUSUMS if c.split(".")[0] == code)
        h = cusum_threshold(RATES[code] / share)
        c = max(0.0, self.cusum[name] + log_lr)
        self.since[name] = self.since[name] + 1 if c > 0 else 0
        if c >= h:
            found(code, {**evidence, "cusum": round(c, 2), "threshold": round(h, 2), "decks": self.since[name]},
                  math.exp(-c))
            c, self.since[name] = 0.0, 0
        self.cusum[name] = c

    def _count(self, prefix: list[str]) -> None:
        for pos, card in enumerate(prefix[:52]):
            self.counts.setdefault(card, [0] * 52)[pos] += 1

    def _positions(self, prefix: list[str], found: Any) -> None:
        self._count(prefix)
        self.block_decks += 1
        if self.block_decks < BLOCK:
            return
        x2, df = 0.0, 0
        for pos in range(52):
            column = [row[pos] for row in self.counts.values()]
            total = sum(column)
            if total < 5 * 52:
                continue
            e = total / 52
            x2 += sum((o - e) ** 2 / e for o in column) + (52 - len(column)) * e
            df += 51
        self.counts, self.block_decks = {}, 0
        if df:
            p = chi_square_upper(x2, df)
            if p < RATES["position_bias"] * BLOCK:
                found("position_bias", {"chi_square": round(x2, 1), "degrees_of_freedom": df, "decks": BLOCK}, p)

    def _replay(self, prefix: list[str], found: Any) -> None:
        k = len(prefix)
        if k < 2 * REPLAY_KEY:
            self._remember(prefix)
            return
        keys = ["|".join(prefix[:REPLAY_KEY]), "|".join(prefix[REPLAY_KEY: 2 * REPLAY_KEY])]
        best, best_deck = 0, -1
        for key in keys:
            for d in self.index.get(key, ()):
                same = sum(1 for a, b in zip(prefix, self.history[d], strict=False) if a == b)
                if same > best:
                    best, best_deck = same, d
        need = max(6, math.ceil(REPLAY_SAME * k))
        if best >= need:
            # if fair: the chance an earlier deck agrees in a key's three places and in ``best`` places in all
            p = min(1.0, len(self.history) * 2 * _binomial_upper(k - REPLAY_KEY, best - REPLAY_KEY, 1 / 49)
                    / (52 * 51 * 50))
            found("replayed_deck", {"positions_same": best, "positions_read": k,
                                    "decks_ago": len(self.history) - best_deck}, p)
        self._remember(prefix)

    def _remember(self, prefix: list[str]) -> None:
        deck_no = len(self.history)
        self.history.append(tuple(prefix))
        if len(prefix) >= 2 * REPLAY_KEY:
            for key in ("|".join(prefix[:REPLAY_KEY]), "|".join(prefix[REPLAY_KEY: 2 * REPLAY_KEY])):
                self.index.setdefault(key, []).append(deck_no)

    # serialisation ------------------------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        return {
            "fed": self.fed, "cusum": self.cusum, "since": self.since,
            "pairs": [self.pairs.decks, self.pairs.observed, self.pairs.expected],
            "kendall": [self.kendall.decks, self.kendall.observed, self.kendall.expected],
            "counts": self.counts, "block_decks": self.block_decks,
            "history": [list(h) for h in self.history], "decks": self.decks,
        }

    def summary(self) -> dict[str, Any]:
        """The state without what the observations themselves give back (``rebuild``): small, journaled a deck."""
        return {k: v for k, v in self.state().items() if k not in ("history", "counts")}

    @classmethod
    def rebuild(cls, summary: dict[str, Any], reads: Sequence[Sequence[str | None]]) -> ShuffleMonitor:
        """The monitor after the decks read ``reads`` (every one, in order), the last leaving ``summary``."""
        m = cls.from_state({**summary, "history": [], "counts": {}})
        prefixes = [_prefix(r) for r in reads]
        for p in prefixes:
            m._remember(p)
        for p in prefixes[len(prefixes) - m.block_decks:] if m.block_decks else ():
            m._count(p)
        return m

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> ShuffleMonitor:
        def window(w: Sequence[Any]) -> _Window:
            return _Window(int(w[0]), float(w[1]), float(w[2]))

        # numbers may come back from the journal as Decimals: the monitor counts in floats and ints
        m = cls(fed={k: list(v) for k, v in state["fed"].items()},
                cusum={k: float(v) for k, v in state["cusum"].items()},
                since={k: int(v) for k, v in state["since"].items()}, pairs=window(state["pairs"]),
                kendall=window(state["kendall"]), counts={k: list(v) for k, v in state["counts"].items()},
                block_decks=int(state["block_decks"]), decks=int(state["decks"]))
        for h in state["history"]:
            m._remember(list(h))
        return m


def _prefix(read: Sequence[str | None]) -> list[str]:
    """The cards read up to the first not read, or read twice (a duplicate is the witnesses' to judge)."""
    prefix: list[str] = []
    for card in read:
        if card is None or card in prefix:
            break
        prefix.append(card)
    return prefix


def _binomial_upper(n: int, k: int, p: float) -> float:
    if k <= 0:
        return 1.0
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1))
