"""The JSON of ``tablectl settle`` (shared/contracts/settle.md): reading a round, writing its settlement.

Reading is strict: an unknown key, a wrong number of cards, a card twice, a
wager the game does not have, a decision the rules do not allow, a missing
paytable letter -- each is a ``RoundError`` naming the field and the rule.
Nothing is guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from games.cards import Card, CardError, check_distinct, parse_card
from games.game import Game
from games.money import MAX_AMOUNT, MoneyError, display, meter_display, shown, to_money
from games.paytables import letters, paytable
from games.registry import GAMES
from games.round import Progressive, Round, RoundError, Seat, Settlement

MAX_SEATS = 6  # UTH, JHE ch.2 §A, HCF, RET ch.2 (RULINGS R1): no more than six players
PAYOUT_LIMIT_FLOOR = Decimal(50000)  # RULINGS R6; UTH ch.12 §F(1) and the like
# The most one wager may be: far above any table maximum, low enough that every payout (500 to 1
# on a Run wager, a $1,000,000 super royal) stays an exact Decimal.
MAX_WAGER = Decimal(10_000_000)

#: Limits on the JSON text itself, checked before it is read (issue 30): a round is at most four levels deep
#: (round, seats, a seat, its wagers or decisions), so 32 levels is generous, and no amount, count or seat
#: number has more than 40 characters.  Past them the reader would hit Python's recursion limit or its
#: 4,300-digit integer limit and stop with a traceback instead of one line.
MAX_DEPTH = 32
MAX_NUMBER_CHARS = 40

_TOP_KEYS = {"game", "paytables", "progressive", "payout_limit", "dealer", "community", "bonus_cards", "seats"}
_PROGRESSIVE_KEYS = {"unit", "meters", "reset", "envy", "envy_requires_progressive_wager"}


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise RoundError(where, f"must be a JSON object, not {type(value).__name__}")
    return value


def _no_unknown(obj: Mapping[str, Any], allowed: set[str] | tuple[str, ...], where: str) -> None:
    for key in obj:
        if key not in allowed:
            prefix = f"{where}." if where else ""
            raise RoundError(f"{prefix}{key}", f"unknown field; expected one of {', '.join(sorted(allowed))}")


def _money(value: Any, where: str, *, positive: bool = True, maximum: Decimal = MAX_AMOUNT) -> Decimal:
    try:
        amount = to_money(value, "the amount", maximum)
    except MoneyError as e:
        raise RoundError(where, str(e)) from None
    if positive and amount <= 0:
        raise RoundError(where, f"must be more than zero, not {shown(value)}")
    if not positive and amount < 0:
        raise RoundError(where, f"must not be negative, not {shown(value)}")
    return amount


def _cards(value: Any, where: str, count: int, clause: str) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise RoundError(where, f"must be a list of {count} cards ({clause})")
    if len(value) != count:
        raise RoundError(where, f"must hold exactly {count} cards, not {len(value)} ({clause})")
    out = []
    for i, text in enumerate(value):
        try:
            out.append(parse_card(text))
        except CardError as e:
            raise RoundError(f"{where}[{i}]", str(e)) from None
    return tuple(out)


def parse_round(obj: Any) -> Round:
    """A ``Round`` from the settle contract's JSON (already decoded, numbers as ``Decimal``/``int``)."""
    obj = _object(obj, "round")
    _no_unknown(obj, _TOP_KEYS, "")
    name = obj.get("game")
    if not isinstance(name, str) or name not in GAMES:
        raise RoundError("game", f"unknown game {shown(name)}; expected one of {', '.join(sorted(GAMES))}")
    game: Game = GAMES[name]

    paytables = _parse_paytables(game, obj.get("paytables", {}))
    dealer = _parse_dealer(game, obj)
    community = _parse_community(game, obj)
    bonus = _parse_bonus_cards(game, obj)
    seats = _parse_seats(game, obj.get("seats"))

    placed = {w for s in seats for w in s.wagers}
    for wager in sorted(placed):
        if wager in game.paytable_of and game.paytable_required(wager) and game.paytable_of[wager] not in paytables:
            raise RoundError(
                f"paytables.{game.paytable_of[wager]}",
                f"missing: a seat places {wager}, whose paytable the operator selects "
                f"({'/'.join(letters(game.name, game.paytable_of[wager]))})",
            )
    if "six_card_bonus" in placed and not bonus:
        raise RoundError("bonus_cards", "the four cards of the Six Card Bonus box are needed (UTH ch.10 §B(1))")

    progressive = _parse_progressive(game, obj.get("progressive"), paytables, "progressive" in placed)
    for seat in seats:
        amount = seat.wagers.get("progressive")
        if amount is not None and progressive is not None and amount != progressive.unit:
            raise RoundError(
                f"seats[{seat.index}].wagers.progressive",
                f"must be exactly the progressive unit {progressive.unit}, not {amount} (RULINGS R3)",
            )
    payout_limit = None
    if obj.get("payout_limit") is not None:
        payout_limit = _money(obj["payout_limit"], "payout_limit")
        if payout_limit < PAYOUT_LIMIT_FLOOR:
            raise RoundError("payout_limit", f"must be at least $50,000, not {obj['payout_limit']} (RULINGS R6)")

    groups: list[tuple[str, tuple[Card, ...]]] = [("dealer", dealer), ("community", community), ("bonus_cards", bonus)]
    groups += [(f"seats[{s.index}].cards", s.cards) for s in seats]
    try:
        check_distinct(groups)
    except CardError as e:
        raise RoundError(str(e).split(":")[0], str(e).split(": ", 1)[1]) from None

    round = Round(
        game=game.name,
        paytables=paytables,
        seats=seats,
        dealer=dealer,
        community=community,
        bonus_cards=bonus,
        progressive=progressive,
        payout_limit=payout_limit,
    )
    game.validate(round)
    for seat in seats:
        game.decision_legal(seat, round)
    return round


def _parse_paytables(game: Game, value: Any) -> dict[str, str]:
    value = _object(value, "paytables")
    known = sorted(set(game.paytable_of.values()))
    out = {}
    for wager, letter in value.items():
        if wager not in known:
            raise RoundError(f"paytables.{wager}", f"{game.name} has no such paytable; expected one of "
                f"{', '.join(known)}")
        if letter not in letters(game.name, wager):
            raise RoundError(
                f"paytables.{wager}",
                f"no paytable {shown(letter)} for {wager} in {game.cite('paytables')}; expected one of "
                f"{', '.join(letters(game.name, wager))}",
            )
        out[wager] = letter
    return out


def _parse_dealer(game: Game, obj: Mapping[str, Any]) -> tuple[Card, ...]:
    if game.dealer_cards == 0:
        if obj.get("dealer") not in (None, []):
            raise RoundError("dealer", f"{game.name} has no dealer hand ({game.cite('dealer_hand')})")
        return ()
    return _cards(obj.get("dealer"), "dealer", game.dealer_cards, f"{game.cite('draw')}: the dealer's cards")


def _parse_community(game: Game, obj: Mapping[str, Any]) -> tuple[Card, ...]:
    value = obj.get("community")
    if game.community_cards == 0:
        if value not in (None, [], {}):
            raise RoundError("community", f"{game.name} has no community cards")
        return ()
    if game.community_names:  # RET: the cross, by place (RULINGS R25)
        value = _object(value if value is not None else [], "community")
        _no_unknown(value, game.community_names, "community")
        missing = [n for n in game.community_names if n not in value]
        if missing:
            raise RoundError(f"community.{missing[0]}", "missing: the cross has five places (RULINGS R25)")
        out = []
        for n in game.community_names:
            try:
                out.append(parse_card(value[n]))
            except CardError as e:
                raise RoundError(f"community.{n}", str(e)) from None
        return tuple(out)
    return _cards(value, "community", game.community_cards, f"{game.cite('completion')}: five community cards")


def _parse_bonus_cards(game: Game, obj: Mapping[str, Any]) -> tuple[Card, ...]:
    value = obj.get("bonus_cards")
    if value is None:
        return ()
    if not game.bonus_cards:
        raise RoundError("bonus_cards", f"{game.name} has no Six Card Bonus box")
    return _cards(value, "bonus_cards", game.bonus_cards, "UTH ch.10 §B(1): the four-card Six Card Bonus box")


def _parse_seats(game: Game, value: Any) -> tuple[Seat, ...]:
    if not isinstance(value, list) or not value:
        raise RoundError("seats", "must be a list of one to six seats")
    if len(value) > MAX_SEATS:
        raise RoundError("seats", f"at most six seats, not {len(value)} ({game.cite('seats')}, RULINGS R1)")
    seats: list[Seat] = []
    numbers: set[int] = set()
    allowed = {"seat", "cards", "wagers", *game.decision_keys}
    for i, raw in enumerate(value):
        where = f"seats[{i}]"
        raw = _object(raw, where)
        _no_unknown(raw, allowed, where)
        number = raw.get("seat")
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= MAX_SEATS:
            raise RoundError(f"{where}.seat", f"must be a seat number 1 to 6, not {shown(number)} (RULINGS R1)")
        if number in numbers:
            raise RoundError(f"{where}.seat", f"seat {number} appears twice")
        numbers.add(number)
        cards = _cards(raw.get("cards"), f"{where}.cards", game.hole_cards, f"{game.cite('draw')}: each player's "
            "cards")
        wagers_raw = _object(raw.get("wagers", {}), f"{where}.wagers")
        wagers: dict[str, Decimal] = {}
        for w, amount in wagers_raw.items():
            if w not in game.wagers:
                raise RoundError(
                    f"{where}.wagers.{w}",
                    f"{game.name} has no such wager; expected one of {', '.join(game.wagers)} ({game.cite('wagers')})",
                )
            wagers[w] = _money(amount, f"{where}.wagers.{w}", maximum=MAX_WAGER)
        first_ante = game.antes[0]
        if first_ante not in wagers:
            raise RoundError(
                f"{where}.wagers.{first_ante}",
                f"missing: only a player who placed the {first_ante} receives cards "
                f"({game.clauses.procedure['manual_shoe']}, {game.clauses.procedure['shuffler']})",
            )
        decision = game.parse_decision(raw, where)
        seats.append(Seat(seat=number, cards=cards, wagers=wagers, decision=decision, index=i))
    return tuple(seats)


def _parse_progressive(game: Game, value: Any, paytables: Mapping[str, str], placed: bool) -> Progressive | None:
    if value is None:
        if placed:
            raise RoundError("progressive", "needed: a seat places a progressive wager (settle contract)")
        return None
    value = _object(value, "progressive")
    _no_unknown(value, _PROGRESSIVE_KEYS, "progressive")
    if "progressive" not in paytables:
        raise RoundError("paytables.progressive", "missing: the progressive paytable letter is needed with a "
            "progressive block")
    unit = _money(value.get("unit"), "progressive.unit")
    table = paytable(game.name, "progressive", paytables["progressive"])
    meters: dict[str, Decimal] = {}
    reset: dict[str, Decimal] = {}
    for key, target in (("meters", meters), ("reset", reset)):
        raw = _object(value.get(key, {}), f"progressive.{key}")
        for meter, amount in raw.items():
            if meter not in game.meters:
                raise RoundError(
                    f"progressive.{key}.{meter}",
                    f"{game.name} has no such meter; its meters are {', '.join(game.meters)}",
                )
            target[meter] = _money(amount, f"progressive.{key}.{meter}", positive=False)
        for meter in table.meters:
            if meter not in target:
                raise RoundError(
                    f"progressive.{key}.{meter}",
                    f"missing: progressive paytable {table.letter} pays from the {meter} meter ({table.clause})",
                )
    envy = value.get("envy")
    if envy is not None:
        if not game.has_envy or envy not in letters(game.name, "envy"):
            have = ", ".join(letters(game.name, "envy")) if game.has_envy else "none"
            raise RoundError("progressive.envy", f"no Envy Bonus table {shown(envy)} in {game.name} (tables: {have})")
        if game.envy_letter_is_progressive_letter and envy != paytables["progressive"]:
            raise RoundError(
                "progressive.envy",
                f"must be the progressive paytable's own letter {paytables['progressive']!r} (RULINGS R18a)",
            )
    requires = value.get("envy_requires_progressive_wager", True)
    if not isinstance(requires, bool):
        raise RoundError("progressive.envy_requires_progressive_wager", "must be true or false")
    return Progressive(unit=unit, meters=meters, reset=reset, envy=envy, envy_requires_progressive_wager=requires)


def json_depth(text: str) -> int:
    """How deeply the JSON text's arrays and objects nest (brackets inside strings not counted)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _number(text: str, convert: Any) -> Any:
    if len(text) > MAX_NUMBER_CHARS:
        raise RoundError("input", f"a number of {len(text):,} characters: at most {MAX_NUMBER_CHARS}")
    return convert(text)


def json_number_hooks() -> dict[str, Any]:
    """``json.loads`` hooks: integers and decimals exact (``Decimal``, never float) and of bounded size."""
    return {"parse_float": lambda t: _number(t, Decimal), "parse_int": lambda t: _number(t, int)}


def check_json_depth(text: str) -> None:
    """Refuse JSON nested deeper than any round is (``MAX_DEPTH``), before it is read."""
    depth = json_depth(text)
    if depth > MAX_DEPTH:
        raise RoundError("input", f"nested {depth:,} levels deep: a round is at most {MAX_DEPTH}")


def settle(obj: Any) -> Settlement:
    round = parse_round(obj)
    return GAMES[round.game].settle(round)


def settlement_json(s: Settlement) -> dict[str, Any]:
    """The settlement as the contract's JSON object (amounts as ``Decimal``, written by ``dumps``)."""
    out: dict[str, Any] = {"game": s.game}
    if s.dealer is not None:
        out["dealer"] = s.dealer
    seats = []
    for seat in s.seats:
        wagers = {}
        for name, w in seat.wagers.items():
            entry: dict[str, Any] = {"amount": display(w.amount), "result": w.result, "net": display(w.net)}
            if w.line is not None:
                entry["line"] = w.line
            if w.from_seats is not None:
                entry["from_seats"] = list(w.from_seats)
            wagers[name] = entry
        seats.append(
            {
                "seat": seat.seat,
                **seat.hand,
                "wagers": wagers,
                "limited_by": display(seat.limited_by),
                "net": display(seat.net),
            }
        )
    out["seats"] = seats
    out["meters"] = {k: meter_display(v) for k, v in s.meters.items()}
    return out


def dumps(value: Any, indent: int | None = None) -> str:
    """JSON text in which ``Decimal`` amounts are written exactly (never through float)."""
    import json

    def enc(v: Any, level: int) -> str:
        if isinstance(v, Decimal):
            return str(v)
        if isinstance(v, dict):
            items = [f"{json.dumps(k, ensure_ascii=False)}: {enc(x, level + 1)}" for k, x in v.items()]
            return _join("{", "}", items, indent, level)
        if isinstance(v, (list, tuple)):
            return _join("[", "]", [enc(x, level + 1) for x in v], indent, level)
        return json.dumps(v, ensure_ascii=False)

    return enc(value, 0)


def _join(open_: str, close: str, items: list[str], indent: int | None, level: int) -> str:
    if not items:
        return open_ + close
    # A container of plain values stays on one line, as the contract's examples show it.
    if indent is None or not any(i.endswith(("}", "]")) for i in items):
        return open_ + ", ".join(items) + close
    pad = " " * (indent * (level + 1))
    return open_ + "\n" + ",\n".join(pad + i for i in items) + "\n" + " " * (indent * level) + close
