"""The distribution of the net of the base game plus one side wager (games.par.combine, issue 27): the
post-stratified simulation's distribution on a short JHE run against the exact figures (mean, variance);
HCF's exact joints from the whole kernel tally (about 3 s of CPU) against the side wagers' own exact counts
and the sheets' covariances; UTH's Trips and Ultimate Pairs joints on the 10-card deck of test_par_uth's
pipeline; RET's Ultimate Pairs joint assembled from the starting hands, two of them recounted by its kernel;
the stored distributions' arithmetic and what `tablectl analyze --json` reports.  The whole recomputation:
tests/soak_par_combine.py."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from typing import Any

import numpy as np
import pytest

from games import analysis, par
from games.cards import DECK, parse_card
from games.par import combine
from games.par import ret as par_ret
from games.par import uth as par_uth
from games.paytables import letters, paytable
from games.progressive_return import line_return
from games.ultimate_pairs import ultimate_pairs_made

JHE, HCF, UTH, RET = "jackpot_holdem", "high_card_flush", "ultimate_texas_holdem", "run_em_twice"
SMALL = ("As", "Ks", "Qs", "Js", "Ts", "Ah", "Kh", "5h", "5d", "2c")  # test_par_uth's deck


def _exact_sum_is_one(dist: list[dict[str, Any]]) -> None:
    assert sum(Fraction(x["probability"]) for x in dist) == 1


def test_simulated_distribution_agrees_with_the_exact_figures() -> None:
    """3,000 JHE rounds and 40 forced rounds per rare group: the distribution (raked to the exact margins) has
    the exact E base + E side for its mean, its variance interval the stored formula's (exact variances + 2 x
    the covariance), every point its interval, and the probabilities add up to 1 within their rounding."""
    sheet = par.stored(JHE, "A", "posted")
    moments = {("progressive", x): combine.side_moments(JHE, "progressive", x) for x in ("A", "D")}
    dists: dict[tuple[str, str], dict[str, Any]] = {}
    sim = combine.simulate_cross(JHE, "A", sheet, {k: m[0] for k, m in moments.items()}, 3_000, 5, forced=40,
                                 distributions=dists)
    base_mean, base_var = Fraction(sheet["return_per_ante"]) - 1, Fraction(sheet["variance_per_ante"])
    support = {Fraction(x["net"]) for x in sheet["net"]}
    for key, d in dists.items():
        side_mean, side_var = moments[key]
        assert d["distribution_method"] == "simulation" and d["distribution_rounds"] >= 3_000
        values = d["distribution"]
        total = sum((Fraction(x["probability_decimal"]) for x in values), Fraction(0))
        assert abs(total - 1) <= Fraction(len(values), 2 * 10**12)
        for x in values:
            low, high = (Fraction(v) for v in x["probability_ci95"])
            assert 0 <= low <= Fraction(x["probability_decimal"]) <= high <= 1, x
        prob, _ = combine.strata(JHE, *key)
        assert {Fraction(x["net"]) for x in values} == {b + v for b in support for v in prob}
        # raked to the exact margins: the mean is the exact E base + E side
        assert abs(Fraction(d["distribution_mean_decimal"]) - base_mean - side_mean) < Fraction(1, 10**8), key
        formula = float(base_var + side_var) + 2 * sim[key][0]
        low_v, high_v = (float(v) for v in d["distribution_variance_ci95"])
        assert low_v <= formula <= high_v, (key, low_v, formula, high_v)


def test_hcf_exact_joints_against_the_side_wagers_own_counts() -> None:
    """Every HCF side wager's joint with the base game (both strategies): its base margin is the sheet's
    distribution, its side margin the side wager's own exact count (games.analysis, which counts the suited
    9-A line of the Progressive D and E apart), and the joint's covariance the sheet's (Flush and Straight
    Flush Bonus) or the stored combination's (Progressive)."""
    from games.analysis import _line_counts
    from games.par import hcf

    for strategy in ("optimal", "posted"):
        sheet = par.stored(HCF, None, strategy)
        base = {Fraction(x["net"]): Fraction(x["probability"]) for x in sheet["net"]}
        mean = Fraction(sheet["return_per_ante"]) - 1
        own = {(c["side_wager"], c["paytable"]): Fraction(c["covariance"]) for c in sheet["combinations"]}
        joints = combine.hcf_joints(strategy)
        assert set(joints) == set(own) | {("progressive", x) for x in letters(HCF, "progressive")}
        for (wager, x), joint in joints.items():
            table = paytable(HCF, wager, x)
            meters = combine.meters_of(HCF, wager, x)
            space, counts, losing = _line_counts(table, None)
            side: dict[Fraction, Fraction] = {Fraction(-1): Fraction(losing, space)}
            for n, line in zip(counts, table.lines, strict=True):
                v = line_return(line.pays, meters) - 1
                side[v] = side.get(v, Fraction(0)) + Fraction(n, space)
            margin_b: dict[Fraction, Fraction] = {}
            margin_s: dict[Fraction, Fraction] = {}
            for (b, s), n in joint.items():
                margin_b[b] = margin_b.get(b, Fraction(0)) + Fraction(n, hcf.SPACE)
                margin_s[s] = margin_s.get(s, Fraction(0)) + Fraction(n, hcf.SPACE)
            assert {k: v for k, v in margin_b.items() if v} == base, (wager, x)
            assert {k: v for k, v in margin_s.items() if v} == {k: v for k, v in side.items() if v}, (wager, x)
            side_mean = sum((v * p for v, p in side.items()), Fraction(0))
            cov = sum((b * s * n for (b, s), n in joint.items()), Fraction(0)) / hcf.SPACE - mean * side_mean
            if (wager, x) in own:
                assert cov == own[(wager, x)], (wager, x)
            else:
                cross, _ = combine.hcf_progressive_cross(strategy, x)
                assert cov == cross - mean * side_mean, x
            d = combine.exact_distribution(joint, hcf.SPACE)
            _exact_sum_is_one(d["distribution"])
            assert Fraction(d["distribution_mean"]) == mean + side_mean


def test_uth_joints_on_a_small_deck() -> None:
    """UTH's enumeration on test_par_uth's 10-card deck (every two-card hand its own class): the Trips and
    Ultimate Pairs joints' base margin is the sheet's distribution, the Trips covariance the sheet's own,
    the Ultimate Pairs margin and cross moment those of the hands counted one by one."""
    deck = np.array(sorted(parse_card(c).index for c in SMALL))
    reps = np.array(list(combinations(deck, 2)), dtype=np.int64)
    setup = par_uth.Setup(deck, reps)
    result = par_uth.enumerate_all(setup, workers=1)
    names = [f"{DECK[int(a)].text}{DECK[int(b)].text}" for a, b in reps]
    weights = [1] * len(reps)
    hands = [((DECK[int(a)], DECK[int(b)]), q) for q, (a, b) in enumerate(reps)]
    for letter, strategy in (("A", "optimal"), ("B", "posted")):
        sheet = par_uth.sheet(setup, result, letter, strategy, names, weights)
        joints, space = combine.uth_joints(setup, result, letter, strategy, weights, hands)
        assert space == sheet["space"]
        base = {Fraction(x["net"]): Fraction(x["probability"]) for x in sheet["net"]}
        mean = Fraction(sheet["return_per_ante"]) - 1
        evs = [Fraction(h["ev"]) for h in sheet["starting_hands"]]
        trips = {c["paytable"]: Fraction(c["covariance"]) for c in sheet["combinations"]}
        for (wager, x), joint in joints.items():
            margin: dict[Fraction, int] = {}
            for (b, _), n in joint.items():
                margin[b] = margin.get(b, 0) + n
            assert {b: Fraction(n, space) for b, n in margin.items() if n} == base
            d = combine.exact_distribution(joint, space)
            _exact_sum_is_one(d["distribution"])
            side_mean = sum((s * n for (_, s), n in joint.items()), Fraction(0)) / space
            cross = sum((b * s * n for (b, s), n in joint.items()), Fraction(0)) / space
            if wager == "trips":
                assert cross - mean * side_mean == trips[x]
                continue
            table = paytable(UTH, "ultimate_pairs", x)
            nets = []
            for cards, _ in hands:
                line = table.line_for(ultimate_pairs_made(cards))
                nets.append(Fraction(-1) if line is None else line_return(line.pays, {}) - 1)
            assert side_mean == sum(nets, Fraction(0)) / len(hands)
            assert cross == sum((e * v for e, v in zip(evs, nets, strict=True)), Fraction(0)) / len(hands)


@pytest.mark.parametrize("strategy", ["optimal", "posted"])
def test_ret_ultimate_pairs_joint_is_the_sheets_covariance(strategy: str) -> None:
    """RET Ultimate Pairs A-E: the joint assembled from the 169 classes (each a point mass at its stored
    value here: the covariance needs only the classes' means) has the side wager's own exact moments
    (games.analysis's count) as its side margin and the sheet's covariance, exactly."""
    sheet = par.stored(RET, "A", strategy)
    ev = {h["hand"]: Fraction(h["ev"]) for h in sheet["starting_hands"]}
    joints = combine.ret_joints([{ev[name]: par_ret.PER_HOLE} for name, _, _ in par_ret.HANDS])
    space = 1326 * par_ret.PER_HOLE
    mean = Fraction(sheet["return_per_ante"]) - 1
    own = {c["paytable"]: Fraction(c["covariance"]) for c in sheet["combinations"]}
    assert set(joints) == {("ultimate_pairs", x) for x in letters(RET, "ultimate_pairs")} and set(own) == {
        x for _, x in joints}
    for (wager, x), joint in joints.items():
        assert sum(joint.values()) == space
        side_mean, side_var = combine.side_moments(RET, wager, x)
        side = sum((s * n for (_, s), n in joint.items()), Fraction(0)) / space
        assert side == side_mean
        assert sum((s * s * n for (_, s), n in joint.items()), Fraction(0)) / space - side * side == side_var
        cross = sum((b * s * n for (b, s), n in joint.items()), Fraction(0)) / space
        assert cross - mean * side == own[x], x
    # C pays A♥A♦ apart (R22): one of the six pairs of aces (AA marked by a base net no other class has)
    marked = combine.ret_joints([{Fraction(1 if name == "AA" else 0): par_ret.PER_HOLE}
                                 for name, _, _ in par_ret.HANDS])[("ultimate_pairs", "C")]
    assert {v: n for (b, v), n in marked.items() if b == 1} == {100: par_ret.PER_HOLE, 30: 5 * par_ret.PER_HOLE}


@pytest.mark.parametrize(("strategy", "hand"), [("optimal", "KQs"), ("posted", "T9o")])
def test_ret_starting_hand_histogram_recounted(strategy: str, hand: str) -> None:
    """One starting hand's base-net histogram by RET's kernel (ret_histograms, about 2 s of CPU): its outcomes
    are the hand's, its mean the stored value, its decision the stored one, its values among the sheet's."""
    sheet = par.stored(RET, "A", strategy)
    stored = next(h for h in sheet["starting_hands"] if h["hand"] == hand)
    hid = [name for name, _, _ in par_ret.HANDS].index(hand)
    value, k1, hist = combine.ret_histograms(strategy, "A", [hid], workers=1)[hid]
    assert sum(hist.values()) == par_ret.PER_HOLE
    assert Fraction(sum(k * n for k, n in hist.items()), par_ret.PER_HOLE) == Fraction(stored["ev"]) \
        == Fraction(value, par_ret.PER_HOLE)
    assert stored["decision"] == (f"first_run_{k1}x" if k1 else "fold")
    assert {Fraction(k) for k in hist} <= {Fraction(x["net"]) for x in sheet["net"]}
    assert len(hist) > 1  # played on: a distribution, not the fold's one value


def test_aces_against_aces_counts_every_board() -> None:
    boards = np.array([[c.index for c in b] for b in combinations([c for c in DECK if c.rank != 14][:9], 5)])
    counts = combine.aces_against_aces_counts("B", boards)
    assert sum(counts.values()) == len(boards) and set(counts) <= {Fraction(-6), Fraction(0), *(
        5 + b for b in par_uth.blind_net("B"))}


@pytest.mark.parametrize(("game", "letter"), combine.SHEETS)
@pytest.mark.parametrize("strategy", ["optimal", "posted"])
def test_stored_distributions_add_up(game: str, letter: str | None, strategy: str) -> None:
    stored = combine.stored(game, letter, strategy)
    assert stored is not None
    base = par.stored(game, letter, strategy)
    for c in stored["combinations"]:
        method = c["distribution_method"]
        if method == "exact":
            _exact_sum_is_one(c["distribution"])
            assert Fraction(c["distribution_variance"]) == Fraction(c["variance_per_ante"])
            assert Fraction(c["distribution_mean"]) == Fraction(base["return_per_ante"]) \
                + Fraction(c["side_return_per_ante"]) - 2
        elif method == "simulation":
            assert c["method"] == "simulation"
            mean = Fraction(base["return_per_ante"]) + Fraction(c["side_return_per_ante"]) - 2
            assert abs(Fraction(c["distribution_mean_decimal"]) - mean) < Fraction(1, 10**8), c["side_wager"]
            low, high = (float(x) for x in c["distribution_variance_ci95"])
            assert low <= float(c["variance_per_ante_decimal"]) <= high, (c["side_wager"], c["paytable"])
        else:
            assert method == "not computed" and (c.get("why") or c.get("distribution_why"))
    own = {(c["side_wager"], c["paytable"]) for c in base.get("combinations", [])}
    assert {(c["side_wager"], c["paytable"]) for c in stored["sheet_combinations"]} == own


def test_analyze_json_gives_the_distributions() -> None:
    r = analysis.analyze(JHE, "base", "A", strategy="posted")
    by = {(c["side_wager"], c["paytable"]): c for c in r["combinations"]}
    progressive = by[("progressive", "A")]
    assert progressive["distribution_method"] == "simulation" and len(progressive["distribution_variance_ci95"]) == 2
    assert {"net", "probability_decimal", "probability_ci95"} <= set(progressive["distribution"][0])
    bonus = by[("player_bonus", "A")]  # the sheet's own: its covariance exact, its distribution simulated
    assert bonus["method"] == "exact" and bonus["distribution_method"] == "simulation"
    assert len(bonus["distribution_variance_ci95"]) == 2


def test_every_two_card_hand_has_its_class() -> None:
    """The whole deck's 1,326 hands each stand for their class's histogram: as many as the class weighs."""
    _, names, weights = par_uth.starting_hands()
    hands = combine.uth_hands(names)
    assert len(hands) == 1326
    for q, w in enumerate(weights):
        assert sum(1 for _, k in hands if k == q) == w, names[q]
