"""The poker evaluator (UTH/JHE/RET ch.6, RULINGS R8), checked against combinatorics and eval7."""

import itertools
import math
import random
from collections import Counter

import eval7
import pytest

from games.cards import DECK, CardError, check_distinct, parse_card, parse_cards
from games.poker import CATEGORY_NAMES, best_hand, lines_made, straight_top, value

# The standard counts of the 2,598,960 five-card hands (any combinatorics text; e.g. Wikipedia "Poker probability").
FIVE_CARD_COUNTS = {
    "royal_flush": 4,
    "straight_flush": 36,
    "four_of_a_kind": 624,
    "full_house": 3_744,
    "flush": 5_108,
    "straight": 10_200,
    "three_of_a_kind": 54_912,
    "two_pair": 123_552,
    "pair": 1_098_240,
    "high_card": 1_302_540,
}
DISTINCT_FIVE_CARD_RANKS = 7_462


def _suit_arrangements(multiplicities: tuple[int, ...]):
    """The ways to give each rank of a hand its suits (a rank held m times takes m different suits), one
    at least for each arrangement up to renaming the suits: suits 0-3 come into use lowest first."""

    def extend(i: int, used: int, chosen: tuple[tuple[int, ...], ...]):
        if i == len(multiplicities):
            yield chosen
            return
        for suits in itertools.combinations(range(4), multiplicities[i]):
            new = [x for x in suits if x >= used]
            if new == list(range(used, used + len(new))):
                yield from extend(i + 1, used + len(new), (*chosen, suits))

    yield from extend(0, 0, ())


def test_every_hand_up_to_the_naming_of_suits():
    """The five-card counts and the 7,462 distinct values, from one hand of every rank pattern (the 6,175
    multisets of five ranks) in every arrangement of its suits up to their names (about 160,000 hands,
    each with its suits named at random): all the arrangements of one pattern that are not a flush must
    have one value, the flushes another, and the pattern's hands (the product of C(4, m) over its ranks,
    four of them flushes when the five ranks differ) counted at those values give the standard counts.
    Every one of the 2,598,960 hands valued (about 20 s of CPU): `make soak` (tests/soak_long.py)."""
    rng = random.Random(20261126)
    card = {(c.rank, c.suit): c for c in DECK}
    counts: Counter[str] = Counter()
    values = set()
    hands = 0
    for ranks in itertools.combinations_with_replacement(range(2, 15), 5):
        pattern = sorted(Counter(ranks).items())
        if max(m for _, m in pattern) > 4:
            continue
        found: dict[bool, set[int]] = {True: set(), False: set()}
        for arrangement in _suit_arrangements(tuple(m for _, m in pattern)):
            names = rng.sample("cdhs", 4)
            hand = [card[r, names[x]] for (r, _), suits in zip(pattern, arrangement, strict=True) for x in suits]
            found[len({c.suit for c in hand}) == 1].add(value(hand))
        flushes = 4 if len(pattern) == 5 else 0
        all_hands = math.prod(math.comb(4, m) for _, m in pattern)
        assert len(found[False]) == 1 and len(found[True]) == (1 if flushes else 0), (ranks, found)
        for flush, n in ((False, all_hands - flushes), (True, flushes)):
            for v in found[flush]:
                counts[CATEGORY_NAMES[v >> 20]] += n
                values.add(v)
        hands += all_hands
    assert hands == 2_598_960
    assert dict(counts) == FIVE_CARD_COUNTS
    assert len(values) == DISTINCT_FIVE_CARD_RANKS


_EVAL7_CARD = {c: eval7.Card(c.text) for c in DECK}  # made once: building them took a quarter of the test


def _eval7_cards(cards):
    return [_EVAL7_CARD[c] for c in cards]


@pytest.mark.parametrize("size", [7, 6, 5])
def test_full_ordering_matches_eval7_on_random_hands(size):
    """Differential test: the order of hands (and their ties) equals that of eval7, an independent evaluator."""
    n = 200_000 if size == 7 else 30_000
    rng = random.Random(20261125 + size)
    hands = [rng.sample(DECK, size) for _ in range(n)]
    ours = [value(h) for h in hands]
    theirs = [eval7.evaluate(_eval7_cards(h)) for h in hands]
    pairs = sorted(zip(ours, theirs, strict=True))
    for (a, x), (b, y) in itertools.pairwise(pairs):
        # sorted by our value: theirs must not decrease, and ties must be ties in both
        assert (a == b) == (x == y), (a, b, x, y)
        assert x <= y
    # and the category agrees (eval7 names a royal flush a straight flush)
    names = {"Straight Flush": {"straight_flush", "royal_flush"}}
    for v, t in zip(ours[:5000], theirs[:5000], strict=True):
        expected = names.get(eval7.handtype(t), {eval7.handtype(t).lower().replace(" ", "_")})
        mine = CATEGORY_NAMES[v >> 20]
        assert mine in expected or (mine == "three_of_a_kind" and "trips" in expected) or (
            mine == "four_of_a_kind" and "quads" in expected
        ), (mine, eval7.handtype(t))


def test_best_hand_cards_are_the_hand():
    rng = random.Random(7)
    for _ in range(20_000):
        cards = rng.sample(DECK, 7)
        hand = best_hand(cards)
        assert len(hand.cards) == 5 and set(hand.cards) <= set(cards)
        assert value(hand.cards) == hand.value == value(cards)


@pytest.mark.parametrize(
    "cards, name, shown",
    [
        # UTH ch.6 §B: the ace plays low only in A-2-3-4-5, shown 5 high first
        ("As Ks 2c 3d 4h 5s 9c", "straight", "5s 4h 3d 2c As"),
        ("Qh Qs 2c 3d 4h 5s 9c", "pair", "Qh Qs 9c 5s 4h"),
        ("Ah Kh Qh Jh Th 9h 8h", "royal_flush", "Ah Kh Qh Jh Th"),
        ("9h Kh Qh Jh Th 2c 8h", "straight_flush", "Kh Qh Jh Th 9h"),
        ("Ah 2h 3h 4h 5h Kc Kd", "straight_flush", "5h 4h 3h 2h Ah"),
        ("Kh Ah 2c 3d 4s Qc Jd", "high_card", "Ah Kh Qc Jd 4s"),  # K-A-2-3-4 is no straight
        ("7c 7d 7h 9s 9c 9d 2s", "full_house", "9s 9c 9d 7c 7d"),  # two trips: the higher is the three
        ("5c 5d 5h 5s Kc Kd Ah", "four_of_a_kind", "5c 5d 5h 5s Ah"),
        ("4c 4d 8h 8s Jc Jd 2s", "two_pair", "Jc Jd 8h 8s 4c"),  # third pair plays as the kicker
        ("2d 7d 9d Jd Kd Ad 3c", "flush", "Ad Kd Jd 9d 7d"),
    ],
)
def test_named_hands(cards, name, shown):
    hand = best_hand(parse_cards(cards.split()))
    assert hand.name == name
    assert " ".join(c.text for c in hand.cards) == shown


@pytest.mark.parametrize(
    "better, worse",
    [
        ("As Ad Kc 7d 3h", "As Ad Qc Jd 9h"),  # R8: the pair first, then kickers highest first
        ("Ks Kd 2c 2d 3h", "Qs Qd Jc Jd Ah"),  # two pair: the higher pair decides
        ("Ks Kd 3c 3d 2h", "Ks Kh 2c 2s Ah"),  # then the lower pair
        ("6s 5d 4c 3d 2h", "5s 4d 3c 2d Ah"),  # A-5 is the lowest straight
        ("2s 2d 2c 3d 3h", "Ks Qs 9s 8s 7s"),  # categories first (UTH ch.6 §D, RET ch.6 §C)
    ],
)
def test_comparisons(better, worse):
    assert value(parse_cards(better.split())) > value(parse_cards(worse.split()))


def test_suits_never_break_ties():
    # R8 (UTH ch.6 §C, RET ch.6 §B: all suits are equal in rank)
    assert value(parse_cards("As Kd Qc Jd 9h".split())) == value(parse_cards("Ad Kc Qh Js 9s".split()))


def test_straight_top():
    assert straight_top(sum(1 << r for r in (14, 2, 3, 4, 5))) == 5
    assert straight_top(sum(1 << r for r in (13, 14, 2, 3, 4))) == 0
    assert straight_top(sum(1 << r for r in (10, 11, 12, 13, 14, 2))) == 14


@pytest.mark.parametrize(
    "cards, made, not_made",
    [
        ("Ts Td 2c 5h 8d",
         {"pair", "pair_of_tens_or_better", "pair_of_6s_to_10s", "pair_of_6s_or_better", "less_than_a_straight"},
         {"pair_of_jacks_or_better"}),
        ("Js Jd 2c 5h 8d",
         {"pair_of_jacks_or_better", "pair_of_tens_or_better", "pair_of_6s_or_better"},
         {"pair_of_6s_to_10s"}),
        ("5s 5d 2c Kh 8d", {"pair"}, {"pair_of_6s_or_better", "pair_of_6s_to_10s", "pair_of_tens_or_better"}),
        ("5s 6d 7c 8h 9d", {"straight"}, {"less_than_a_straight"}),
    ],
)
def test_lines_made(cards, made, not_made):
    got = lines_made(best_hand(parse_cards(cards.split())))
    assert made <= got
    assert not (not_made & got)


@pytest.mark.parametrize("text", ["10s", "as", "AS", "Ax", "A", "", "Ahh", " As"])
def test_bad_cards_are_refused(text):
    with pytest.raises(CardError):
        parse_card(text)


def test_non_string_card_refused():
    with pytest.raises(CardError):
        parse_card(14)


def test_a_card_twice_is_refused_naming_both_places():
    with pytest.raises(CardError, match="seats.*already in dealer"):
        check_distinct([("dealer", parse_cards(["As", "Kd"])), ("seats[0].cards", parse_cards(["As", "2c"]))])
    with pytest.raises(CardError, match="appears twice"):
        check_distinct([("community", parse_cards(["As", "As"]))])


def test_best_hand_needs_five_to_seven_cards():
    with pytest.raises(ValueError):
        best_hand(parse_cards(["As", "Ks", "Qs", "Js"]))
