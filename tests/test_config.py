"""The table configuration (controller/config/): the examples load, every bad configuration is refused by name."""

from __future__ import annotations

import copy
import json
import math
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from controller.config.table import (
    ConfigError,
    TableConfig,
    load_config,
    max_round_win,
    payout_limit_floor,
)
from controller.supervisors import hash_id
from games.paytables import METER_MINIMUM_CLAUSES, METER_MINIMUMS, paytable
from games.registry import GAMES

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "config").glob("*.toml"))


pytestmark = pytest.mark.usefixtures("no_table_env")


# -- building configurations -------------------------------------------------------------------


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, Decimal)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(v)


def dump(data: dict[str, Any], prefix: str = "") -> str:
    """A small TOML writer: scalars first, then each table under its dotted header."""
    lines = [f"{k} = {_toml_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    out = "\n".join(lines) + "\n"
    for k, v in data.items():
        if isinstance(v, dict):
            header = f"{prefix}{k}"
            out += f"\n[{header}]\n" + dump(v, header + ".")
    return out


SUPERVISOR = hash_id(4711)

ANTES = {
    "ultimate_texas_holdem": {"ante": {"min": 5, "max": 500}, "blind": {"paytable": "A"}},
    "jackpot_holdem": {"ante": {"min": 5, "max": 500}, "xtra_bonus": {}},
    "high_card_flush": {"ante": {"min": 5, "max": 500}},
    "run_em_twice": {"ante_1": {"min": 5, "max": 500}, "ante_2": {}},
}


def base(game: str = "ultimate_texas_holdem") -> dict[str, Any]:
    return {
        "id": "t-1",
        "name": "Test table",
        "game": game,
        "seats": 6,
        "adjacent_boxes": 2,
        "payout_limit": "50000.00",
        "journal": "journal.sqlite",
        "log_format": "json",
        "dealing": {"procedure": "shuffler", "decks": 1, "deck_change_hours": 8, "stub_count_rounds": 5},
        "wagers": copy.deepcopy(ANTES[game]),
        "devices": {"shuffler": "socket://127.0.0.1:7101", "progressive": "tcp://127.0.0.1:7103",
                    "panel": "tcp://127.0.0.1:7104"},
        "supervisors": {"ids": [SUPERVISOR]},
    }


def with_progressive(cfg: dict[str, Any], letter: str, unit: int | str = 1) -> dict[str, Any]:
    """Every meter the table pays from or the rules give a minimum for, at its minimum."""
    game = cfg["game"]
    minimums = METER_MINIMUMS[(game, letter)]
    names = set(paytable(game, "progressive", letter).meters) | set(minimums)
    cfg["progressive"] = {
        "enabled": True,
        "unit": unit,
        "paytable": letter,
        "meters": {
            m: {"initial": str(minimums.get(m, Decimal(0))), "reset": str(minimums.get(m, Decimal(0))), "rate": "0.01"}
            for m in sorted(names)
        },
    }
    return cfg


def write(tmp_path: Path, cfg: dict[str, Any] | str, top: str = "") -> Path:
    """``top``: raw TOML lines placed first (top-level keys written by hand)."""
    p = tmp_path / "table.toml"
    p.write_text(top + (cfg if isinstance(cfg, str) else dump(cfg)))
    return p


def problems(path: Path) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return info.value.problems


def refused(path: Path, where: str, *words: str) -> str:
    """The one problem about ``where``; it must contain every word."""
    found = [p for p in problems(path) if p.startswith(where + ":") or p.startswith(where + " (")]
    assert found, f"no problem about {where}: {problems(path)}"
    for w in words:
        assert any(w in p for p in found), (w, found)
    return found[0]


# -- the examples ------------------------------------------------------------------------------


def test_there_is_one_example_per_game() -> None:
    assert {p.stem for p in EXAMPLES} == set(GAMES)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_each_example_loads(path: Path) -> None:
    cfg = load_config(path)
    assert cfg.game == path.stem
    assert cfg.journal.is_absolute() and cfg.journal.parent == ROOT / "var"  # relative to the file
    assert cfg.payout_limit >= payout_limit_floor(cfg)[0]
    assert cfg.progressive.enabled and cfg.devices.progressive.startswith("tcp://127.0.0.1:")
    for url in (cfg.devices.shuffler, cfg.devices.shoe):
        assert url is None or url.startswith("socket://127.0.0.1:")  # the simulators
    assert isinstance(cfg.payout_limit, Decimal)


def test_a_valid_minimal_configuration_loads(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, base()))
    assert isinstance(cfg, TableConfig)
    assert cfg.limits("blind") == (Decimal("5.00"), Decimal("500.00"))  # the Ante's
    assert cfg.journal == tmp_path / "journal.sqlite"
    assert cfg.paytable_letters() == {"blind": "A"}
    assert not cfg.progressive.enabled


# -- the file ----------------------------------------------------------------------------------


def test_missing_file_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.toml"
    with pytest.raises(ConfigError) as info:
        load_config(missing)
    assert str(missing) in str(info.value) and "does not exist" in str(info.value)


def test_bad_toml_is_refused(tmp_path: Path) -> None:
    p = write(tmp_path, "id = \n")
    assert "not valid TOML" in problems(p)[0]


# -- unknown keys ------------------------------------------------------------------------------


def test_unknown_top_level_key(tmp_path: Path) -> None:
    cfg = base()
    cfg["payout_limt"] = 60000
    assert refused(write(tmp_path, cfg), "payout_limt") == "payout_limt: unknown key"


@pytest.mark.parametrize(
    "section, where",
    [
        (("dealing",), "dealing.shuffle"),
        (("wagers", "ante"), "wagers.ante.shuffle"),
        (("devices",), "devices.shuffle"),
    ],
)
def test_unknown_nested_key(tmp_path: Path, section: tuple[str, ...], where: str) -> None:
    cfg = base()
    node = cfg
    for k in section:
        node = node[k]
    node["shuffle"] = 1
    refused(write(tmp_path, cfg), where, "unknown key")


def test_unknown_key_inside_a_meter(tmp_path: Path) -> None:
    cfg = with_progressive(base(), "B")
    cfg["progressive"]["meters"]["major"]["reste"] = 1000
    refused(write(tmp_path, cfg), "progressive.meters.major.reste", "unknown key")


# -- game, wagers, paytables -------------------------------------------------------------------


def test_unknown_game(tmp_path: Path) -> None:
    cfg = base()
    cfg["game"] = "texas_holdem"
    refused(write(tmp_path, cfg), "game", "ultimate_texas_holdem", "'texas_holdem'")


def test_bad_paytable_letter(tmp_path: Path) -> None:
    cfg = base()
    cfg["wagers"]["trips"] = {"paytable": "F", "min": 5, "max": 100}
    refused(write(tmp_path, cfg), "wagers.trips.paytable", "A, B, C, D, E", "'F'")


def test_paytable_letter_required_where_the_rules_offer_several(tmp_path: Path) -> None:
    cfg = base()
    cfg["wagers"]["trips"] = {"min": 5, "max": 100}
    refused(write(tmp_path, cfg), "wagers.trips.paytable", "required", "UTH ch.12 §C")


def test_single_paytable_needs_no_letter(tmp_path: Path) -> None:
    cfg = base("run_em_twice")
    cfg["wagers"]["five_card_bonus"] = {"min": 5, "max": 50}
    assert load_config(write(tmp_path, cfg)).paytable_letters() == {"five_card_bonus": "A", "run": "A"}


def test_ante_has_no_paytable(tmp_path: Path) -> None:
    cfg = base()
    cfg["wagers"]["ante"]["paytable"] = "A"
    refused(write(tmp_path, cfg), "wagers.ante.paytable", "1 to 1", "UTH ch.12 §A")


@pytest.mark.parametrize(
    "game, wager",
    [
        ("high_card_flush", "trips"),
        ("jackpot_holdem", "six_card_bonus"),
        ("run_em_twice", "blind"),
        ("ultimate_texas_holdem", "flush_bonus"),
    ],
)
def test_wager_the_game_lacks(tmp_path: Path, game: str, wager: str) -> None:
    cfg = base(game)
    cfg["wagers"][wager] = {"paytable": "A", "min": 5, "max": 100}
    refused(write(tmp_path, cfg), f"wagers.{wager}", f"{game} has no such wager")


def test_decision_wagers_are_not_offered_on_their_own(tmp_path: Path) -> None:
    cfg = base()
    cfg["wagers"]["play"] = {"min": 5, "max": 100}
    refused(write(tmp_path, cfg), "wagers.play", "multiple of the Ante")


def test_progressive_is_configured_in_its_own_section(tmp_path: Path) -> None:
    cfg = base()
    cfg["wagers"]["progressive"] = {"min": 1, "max": 1}
    refused(write(tmp_path, cfg), "wagers.progressive", "[progressive]", "R3")


def test_the_antes_are_required(tmp_path: Path) -> None:
    cfg = base("run_em_twice")
    del cfg["wagers"]["ante_2"]
    refused(write(tmp_path, cfg), "wagers.ante_2", "required", "RET ch.7 §E(1)")


def test_companion_limits_must_equal_the_antes(tmp_path: Path) -> None:
    cfg = base("jackpot_holdem")
    cfg["wagers"]["xtra_bonus"] = {"min": 10}
    refused(write(tmp_path, cfg), "wagers.xtra_bonus.min", "must equal wagers.ante.min", "JHE ch.7 §F(1)")


def test_six_card_bonus_needs_trips(tmp_path: Path) -> None:
    cfg = base()
    cfg["wagers"]["six_card_bonus"] = {"paytable": "A", "min": 1, "max": 25}
    refused(write(tmp_path, cfg), "wagers.six_card_bonus", "Trips", "R21b")
    cfg["wagers"]["trips"] = {"paytable": "A", "min": 5, "max": 100}
    load_config(write(tmp_path, cfg))


@pytest.mark.parametrize("limits, where, words", [
    ({"min": 0, "max": 100}, "wagers.trips.min", ("more than 0",)),
    ({"min": 50, "max": 10}, "wagers.trips.max", ("at least the minimum (50.00)",)),
    ({"min": 5}, "wagers.trips.max", ("required",)),
    ({"min": "-5", "max": 10}, "wagers.trips.min", ("amount of dollars",)),
])
def test_table_limits(tmp_path: Path, limits: dict[str, Any], where: str, words: tuple[str, ...]) -> None:
    cfg = base()
    cfg["wagers"]["trips"] = {"paytable": "A", **limits}
    refused(write(tmp_path, cfg), where, *words)


# -- money -------------------------------------------------------------------------------------


def test_toml_floats_are_read_as_exact_decimals(tmp_path: Path) -> None:
    cfg = base()
    del cfg["payout_limit"]
    loaded = load_config(write(tmp_path, cfg, "payout_limit = 50000.10\n"))
    assert loaded.payout_limit == Decimal("50000.10") and str(loaded.payout_limit) == "50000.10"


def test_more_than_two_decimals_is_refused(tmp_path: Path) -> None:
    cfg = base()
    del cfg["payout_limit"]
    refused(write(tmp_path, cfg, "payout_limit = 50000.005\n"), "payout_limit", "more than two decimals")


def test_a_binary_float_is_refused_for_money(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A JSON number in an environment variable is a binary float by the time it reaches the model.
    monkeypatch.setenv("TABLE_WAGERS", json.dumps({"ante": {"min": 5.1, "max": 500}, "blind": {"paytable": "A"}}))
    msg = refused(write(tmp_path, base()), "wagers.ante.min", "binary floating-point", "string", "integer")
    assert "TABLE_WAGERS" in msg


def test_amount_strings_and_integers(tmp_path: Path) -> None:
    cfg = base()
    cfg["wagers"]["ante"] = {"min": "5.50", "max": 500}
    assert load_config(write(tmp_path, cfg)).limits("ante") == (Decimal("5.50"), Decimal("500.00"))
    cfg["wagers"]["ante"]["min"] = "five"
    refused(write(tmp_path, cfg), "wagers.ante.min", "amount of dollars")


# -- payout limit (RULINGS R6) -------------------------------------------------------------------


def test_payout_limit_below_50000(tmp_path: Path) -> None:
    cfg = base()
    cfg["payout_limit"] = "49999.99"
    refused(write(tmp_path, cfg), "payout_limit", "at least 50000.00", "$50,000", "R6")


def test_max_round_win_sums_every_covered_wager_at_its_minimum(tmp_path: Path) -> None:
    cfg = base()
    cfg["wagers"]["ante"]["min"] = 10
    cfg["wagers"]["trips"] = {"paytable": "A", "min": 5, "max": 100}
    cfg["wagers"]["six_card_bonus"] = {"paytable": "A", "min": 5, "max": 100}  # not covered (R6)
    loaded = load_config(write(tmp_path, with_progressive(cfg, "B")))
    total, parts = max_round_win(loaded)
    # ante 1 to 1, blind A royal 500 to 1, play 4x the ante 1 to 1, trips A royal 50 to 1
    assert parts == {
        "ante": Decimal("10.00"), "blind": Decimal("5000.00"), "play": Decimal("40.00"), "trips": Decimal("250.00")
    }
    assert total == Decimal("5300.00")


def test_max_round_win_run_em_twice_uses_the_run_paytable(tmp_path: Path) -> None:
    loaded = load_config(write(tmp_path, base("run_em_twice")))
    total, parts = max_round_win(loaded)
    # two Antes of 5 at 1 to 1; three bets of 3x 5 at the Run paytable's royal, 500 to 1
    assert parts == {
        "ante_1": Decimal(5),
        "ante_2": Decimal(5),
        "first_run": Decimal(7500),
        "second_run": Decimal(7500),
        "center": Decimal(7500),
    }
    assert total == Decimal("22510.00")


def test_payout_limit_below_the_most_a_player_could_win(tmp_path: Path) -> None:
    cfg = base()
    cfg["wagers"]["ante"]["min"] = 100  # blind royal alone: 500 x 100 = 50,000
    cfg["wagers"]["bad_beat"] = {"paytable": "A", "min": 5, "max": 25}  # straight flush 10,000 to 1
    cfg["payout_limit"] = 60000
    msg = refused(
        write(tmp_path, cfg),
        "payout_limit",
        "must be at least 100500.00",
        "most one player could win",
        "UTH ch.12 §F(1)",
    )
    assert "bad_beat 50000.00" in msg
    cfg["payout_limit"] = "100500.00"
    load_config(write(tmp_path, cfg))


# -- dealing -----------------------------------------------------------------------------------


def test_hand_dealing_needs_a_shuffler(tmp_path: Path) -> None:
    cfg = base("high_card_flush")
    cfg["dealing"].update(procedure="hand", deck_change_hours=4)
    del cfg["devices"]["shuffler"]
    refused(write(tmp_path, cfg), "dealing.procedure", "automated shuffler", "HCF ch.9 §A(1)")


@pytest.mark.parametrize("procedure, hours, ok", [
    ("hand", 4, True), ("hand", "4.5", False), ("shuffler", 8, True), ("shuffler", 9, False),
    ("manual_shoe", 9, False), ("automated_shoe", 8, True),
])
def test_deck_change_interval(tmp_path: Path, procedure: str, hours: Any, ok: bool) -> None:
    cfg = base()
    cfg["dealing"].update(procedure=procedure, deck_change_hours=hours)
    cfg["devices"]["shoe"] = "/dev/ttyUSB1"
    p = write(tmp_path, cfg)
    if ok:
        load_config(p)
    else:
        refused(p, "dealing.deck_change_hours", f"at most {4 if procedure == 'hand' else 8}", "UTH ch.3 §C")


def test_two_decks_need_a_shuffler(tmp_path: Path) -> None:
    cfg = base("run_em_twice")
    cfg["dealing"].update(procedure="manual_shoe", decks=2)
    cfg["devices"] = {"shoe": "socket://127.0.0.1:7102"}
    refused(write(tmp_path, cfg), "dealing.decks", "RET ch.3 §B")
    cfg["dealing"]["decks"] = 3
    refused(write(tmp_path, cfg), "dealing.decks", "ch.3 §B")


def test_shoe_dealing_needs_the_shoe(tmp_path: Path) -> None:
    cfg = base()
    cfg["dealing"]["procedure"] = "automated_shoe"
    refused(write(tmp_path, cfg), "dealing.procedure", "devices.shoe")


def test_stub_count_interval(tmp_path: Path) -> None:
    cfg = base("high_card_flush")
    cfg["dealing"].update(procedure="manual_shoe", stub_count_rounds=6)
    cfg["devices"]["shoe"] = "/dev/ttyUSB1"
    refused(write(tmp_path, cfg), "dealing.stub_count_rounds", "at most 5", "HCF ch.8 §G")


def test_dealer_cards_left_in_the_shuffler(tmp_path: Path) -> None:
    cfg = base("jackpot_holdem")
    cfg["dealing"]["dealer_cards"] = "in_shuffler"
    load_config(write(tmp_path, cfg))
    cfg["dealing"]["procedure"] = "hand"
    cfg["dealing"]["deck_change_hours"] = 4
    refused(write(tmp_path, cfg), "dealing.dealer_cards", 'procedure = "shuffler"', "JHE ch.10 §B(3)")
    cfg = base("run_em_twice")
    cfg["dealing"]["dealer_cards"] = "in_shuffler"
    refused(write(tmp_path, cfg), "dealing.dealer_cards", "no dealer hand")


def test_seats_and_adjacent_boxes(tmp_path: Path) -> None:
    cfg = base()
    cfg["seats"] = 7
    refused(write(tmp_path, cfg), "seats", "6", "ch.2 §A")
    cfg["seats"] = 3
    cfg["adjacent_boxes"] = 4
    refused(write(tmp_path, cfg), "adjacent_boxes", "at most the number of seats (3)")


# -- progressive -------------------------------------------------------------------------------

PROGRESSIVE_TABLES = sorted(METER_MINIMUMS)


@pytest.mark.parametrize("game, letter", PROGRESSIVE_TABLES, ids=[f"{g}-{letter}" for g, letter in PROGRESSIVE_TABLES])
def test_meters_at_the_minimum_load_and_below_it_are_refused(tmp_path: Path, game: str, letter: str) -> None:
    # JHE E returns more than the wager at a $1 unit (RULINGS R24d, tested below): a $5 unit here
    cfg = with_progressive(base(game), letter, unit=5 if (game, letter) == ("jackpot_holdem", "E") else 1)
    loaded = load_config(write(tmp_path, cfg))
    assert loaded.progressive.paytable == letter
    clause = METER_MINIMUM_CLAUSES[(game, letter)]
    short = clause.split(" ")[0]
    for meter, minimum in METER_MINIMUMS[(game, letter)].items():
        if minimum == 0:
            continue
        low = copy.deepcopy(cfg)
        low["progressive"]["meters"][meter]["reset"] = str(minimum - Decimal("0.01"))
        msg = refused(
            write(tmp_path, low),
            f"progressive.meters.{meter}.reset",
            f"must be at least {minimum:.2f} ({short} ch.12 §",
        )
        if game != "jackpot_holdem":
            assert msg.endswith(f"({clause})")
        low["progressive"]["meters"][meter]["initial"] = str(minimum - 1)
        refused(write(tmp_path, low), f"progressive.meters.{meter}.initial", f"must be at least {minimum:.2f}")


def test_meter_minimum_message_cites_the_clause(tmp_path: Path) -> None:
    cfg = with_progressive(base(), "B")
    cfg["progressive"]["meters"]["major"]["reset"] = "999.99"
    assert refused(write(tmp_path, cfg), "progressive.meters.major.reset") == (
        "progressive.meters.major.reset: must be at least 1000.00 (UTH ch.12 §D(3)(b)(ii))"
    )
    cfg = with_progressive(base("jackpot_holdem"), "C")
    cfg["progressive"]["meters"]["heart"]["reset"] = 999
    assert refused(write(tmp_path, cfg), "progressive.meters.heart.reset").endswith("(JHE ch.12 §E(6)(c))")


def test_initial_below_reset(tmp_path: Path) -> None:
    cfg = with_progressive(base("high_card_flush"), "C")
    cfg["progressive"]["meters"]["meter"].update(initial="6000.00", reset="7000.00")
    refused(write(tmp_path, cfg), "progressive.meters.meter.initial", "at least the reset amount (7000.00)")


def test_every_meter_the_paytable_pays_from_is_required(tmp_path: Path) -> None:
    cfg = with_progressive(base("run_em_twice"), "D")
    del cfg["progressive"]["meters"]["minor"]
    refused(write(tmp_path, cfg), "progressive.meters.minor", "required", "RET ch.12 §F(4)")


def test_a_meter_the_paytable_does_not_use_is_refused(tmp_path: Path) -> None:
    cfg = with_progressive(base(), "A")
    cfg["progressive"]["meters"]["mega"] = {"initial": 10000, "reset": 10000, "rate": "0.01"}
    refused(write(tmp_path, cfg), "progressive.meters.mega", "unknown meter")


def test_rates(tmp_path: Path) -> None:
    cfg = with_progressive(base(), "C")
    cfg["progressive"]["meters"]["mega"]["rate"] = 1
    refused(write(tmp_path, cfg), "progressive.meters.mega.rate", "less than 1")
    cfg["progressive"]["meters"]["mega"]["rate"] = "0"
    refused(write(tmp_path, cfg), "progressive.meters.mega.rate", "greater than 0")
    for m in ("mega", "major", "minor"):
        cfg["progressive"]["meters"][m]["rate"] = "0.4"
    refused(write(tmp_path, cfg), "progressive.meters", "less than 1")


# -- RULINGS R24d: no progressive that returns 100 % or more at its reset amounts ------------------------

# Five-card hands (R24a, R29), the standard closed forms: royal flush (by suit: one each), straight
# flush, four of a kind, full house, flush, straight, three of a kind, out of C(52,5).
ROYAL, STRAIGHT_FLUSH, QUADS, FULL_HOUSE, FLUSH, STRAIGHT, TRIPS = 4, 36, 624, 3744, 5108, 10200, 54912
FIVE_CARD_HANDS = 2598960


def cut3(x: Fraction) -> str:
    return f"{math.floor(x * 1000) / 1000:.3f}"


def test_jhe_progressive_e_at_a_one_dollar_unit_does_not_start(tmp_path: Path) -> None:
    # JHE ch.12 §D(6) at the minimum meters of §E: star 10,000 (diamond royal), spade 10,000 (the other
    # three royals), heart 5,000 (straight flush), diamond 1,000 (quads), club 250 (full house), then
    # flush 50 for 1, straight 30 for 1, trips 10 for 1.
    meters = 10000 * 1 + 10000 * 3 + 5000 * STRAIGHT_FLUSH + 1000 * QUADS + 250 * FULL_HOUSE
    fixed = 50 * FLUSH + 30 * STRAIGHT + 10 * TRIPS
    at_one = Fraction(meters + fixed, FIVE_CARD_HANDS)
    assert at_one >= 1
    cfg = with_progressive(base("jackpot_holdem"), "E", unit=1)
    msg = refused(write(tmp_path, cfg), "progressive", "R24d", "Progressive E", "$1 unit", cut3(at_one))
    assert cut3(at_one) == "1.112"  # the figure the ruling names
    assert len(problems(write(tmp_path, cfg))) == 1 and "\n" not in msg
    # at $2 the meters pay the same dollars on twice the wager (R3): below 1, so the table starts
    at_two = Fraction(meters, 2 * FIVE_CARD_HANDS) + Fraction(fixed, FIVE_CARD_HANDS)
    assert at_two < 1
    assert load_config(write(tmp_path, with_progressive(base("jackpot_holdem"), "E", unit=2))).progressive.unit == 2


def test_the_return_counts_the_envy_bonus_of_a_full_table(tmp_path: Path) -> None:
    # UTH ch.12 §D(1)(b) with the major meter reset at $290,000: below 1 alone, 1 or more with the Envy
    # Bonus of §D(6)(b) ($1,000 a royal, $300 a straight flush) from the five other seats of a full table.
    fixed = 300 * QUADS + 50 * FULL_HOUSE + 40 * FLUSH + 30 * STRAIGHT + 9 * TRIPS  # "X for 1"
    alone = Fraction(290000 * ROYAL + 250 * STRAIGHT_FLUSH + fixed, FIVE_CARD_HANDS)
    envy = 5 * Fraction(1000 * ROYAL + 300 * STRAIGHT_FLUSH, FIVE_CARD_HANDS)
    assert alone < 1 <= alone + envy
    cfg = with_progressive(base(), "B")
    cfg["progressive"]["meters"]["major"].update(initial="290000.00", reset="290000.00")
    assert load_config(write(tmp_path, cfg)).progressive.envy is None
    cfg["progressive"]["envy"] = "B"
    refused(write(tmp_path, cfg), "progressive", "R24d", "Envy B", cut3(alone + envy))


def test_hcf_return_counts_seven_cards(tmp_path: Path) -> None:
    # HCF ch.12 §E(1)(c): 100% of the meter for a seven- or six-card straight flush, $200, $40, $3.
    # Seven-card runs: 4 suits x 8; six-card runs: 4 x (45 + 7 x 44 + 45) (R17).  With $5,000,000
    # on the meter those two lines alone return (32 + 1592) x 5,000,000 / C(52,7) > 1.
    assert Fraction((32 + 1592) * 5_000_000, math.comb(52, 7)) >= 1
    cfg = with_progressive(base("high_card_flush"), "C")
    load_config(write(tmp_path, cfg))
    cfg["progressive"]["meters"]["meter"].update(initial="5000000.00", reset="5000000.00")
    refused(write(tmp_path, cfg), "progressive", "R24d", "HCF Progressive C")


def test_progressive_needs_its_system_unit_and_paytable(tmp_path: Path) -> None:
    cfg = base()
    cfg["progressive"] = {"enabled": True}
    del cfg["devices"]["progressive"]
    p = write(tmp_path, cfg)
    refused(p, "devices.progressive", "UTH ch.2 §C")
    refused(p, "progressive.unit", "R3")
    refused(p, "progressive.paytable", "A, B, C, D")


@pytest.mark.parametrize("device", ["panel", "progressive"])
def test_every_table_needs_its_panel_and_its_bet_sensors(device: str, tmp_path: Path) -> None:
    """P46: without a panel no round can be driven; without the progressive system's unit no wager can be
    read (its bet sensors, P37), Progressive offered or not: such a table could never finish a round."""
    cfg = base()
    del cfg["devices"][device]
    refused(write(tmp_path, cfg), f"devices.{device}", "P46")


def test_a_table_without_its_supervisors_allow_list_does_not_start(tmp_path: Path) -> None:
    """P93: with no supervisor listed no opening step, validation, void or resume could be done."""
    cfg = base()
    del cfg["supervisors"]
    refused(write(tmp_path, cfg), "supervisors.ids", "P93")
    cfg["supervisors"] = {"ids": []}
    refused(write(tmp_path, cfg), "supervisors.ids", "P93")


@pytest.mark.parametrize("entry", ["4711", "scrypt$16384$8$1$00$11", "sha256$" + "0" * 64,
                                   SUPERVISOR.replace("$16384$", "$1024$")])
def test_a_supervisor_id_in_clear_or_weakly_hashed_is_refused(entry: str, tmp_path: Path) -> None:
    """P93: the allow-list holds salted scrypt hashes only, at a cost of at least N = 2**14."""
    cfg = base()
    cfg["supervisors"] = {"ids": [SUPERVISOR, entry]}
    refused(write(tmp_path, cfg), "supervisors.ids.1", "tablectl supervisor hash" if "1024" not in entry else "2**14")


def test_supervisor_hash_prints_an_entry_the_table_takes(tmp_path: Path) -> None:
    """``tablectl supervisor hash`` < ID: a salted entry (two runs differ) that matches that ID only; 0 refused."""
    import io

    from controller.cli.main import main
    from controller.supervisors import matches

    entries = []
    for _ in range(2):
        out = io.StringIO()
        assert main(["supervisor", "hash"], stdin=io.StringIO("812\n"), stdout=out, stderr=io.StringIO()) == 0
        entries.append(out.getvalue().strip())
    assert entries[0] != entries[1]
    assert all(matches(e, 812) and not matches(e, 813) for e in entries)
    cfg = base()
    cfg["supervisors"] = {"ids": entries}
    assert load_config(write(tmp_path, cfg)).supervisors.ids == tuple(entries)
    for bad in ("0", "65536", "x", ""):
        err = io.StringIO()
        assert main(["supervisor", "hash"], stdin=io.StringIO(bad), stdout=io.StringIO(), stderr=err) == 2
        assert len(err.getvalue().splitlines()) == 1


def test_envy_letters(tmp_path: Path) -> None:
    cfg = with_progressive(base("high_card_flush"), "D")
    cfg["progressive"]["envy"] = "D"
    load_config(write(tmp_path, cfg))
    cfg["progressive"]["envy"] = "C"
    refused(write(tmp_path, cfg), "progressive.envy", "R18a")
    cfg = with_progressive(base("high_card_flush"), "A")
    cfg["progressive"]["envy"] = "A"
    refused(write(tmp_path, cfg), "progressive.envy", "C, D or E")
    cfg = with_progressive(base("jackpot_holdem"), "A")
    cfg["progressive"]["envy"] = "A"
    refused(write(tmp_path, cfg), "progressive.envy", "no Envy Bonus")
    cfg = with_progressive(base("run_em_twice"), "A")
    cfg["progressive"]["envy"] = "C"
    assert load_config(write(tmp_path, cfg)).progressive.envy_requires_progressive_wager is True


# -- devices -----------------------------------------------------------------------------------


@pytest.mark.parametrize("device, url, ok", [
    ("shuffler", "/dev/ttyUSB0", True),
    ("shuffler", "socket://127.0.0.1:5020", True),
    ("shuffler", "tcp://127.0.0.1:5020", False),
    ("shoe", "socket://127.0.0.1", False),
    ("shoe", "COM3", False),
    ("progressive", "tcp://127.0.0.1:5020", True),
    ("progressive", "rtu:///dev/ttyUSB0?baud=115200&parity=N", True),
    ("progressive", "/dev/ttyUSB2", True),
    ("progressive", "socket://127.0.0.1:5020", False),
    ("panel", "tcp://127.0.0.1", False),
    ("panel", "rtu:///dev/ttyUSB0?parity=X", False),
])
def test_device_urls(tmp_path: Path, device: str, url: str, ok: bool) -> None:
    cfg = base()
    cfg["devices"][device] = url
    p = write(tmp_path, cfg)
    if ok:
        assert getattr(load_config(p).devices, device) == url
    else:
        refused(p, f"devices.{device}")


# -- environment -------------------------------------------------------------------------------


def test_env_overrides_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = with_progressive(base(), "B")
    p = write(tmp_path, cfg)
    monkeypatch.setenv("TABLE_PAYOUT_LIMIT", "75000.50")
    monkeypatch.setenv("TABLE_PROGRESSIVE__METERS__MAJOR__RESET", "1500")
    monkeypatch.setenv("TABLE_PROGRESSIVE__METERS__MAJOR__INITIAL", "2000")
    monkeypatch.setenv("TABLE_DEVICES__PANEL", "tcp://127.0.0.1:7105")
    monkeypatch.setenv("TABLE_DEVICES__SHOE", "null")
    monkeypatch.setenv("TABLE_PROGRESSIVE__ENABLED", "false")
    loaded = load_config(p)
    assert loaded.payout_limit == Decimal("75000.50")
    assert loaded.progressive.meters["major"].reset == Decimal("1500.00")
    assert loaded.progressive.meters["minor"].reset == Decimal("250.00")  # the file's, merged
    assert loaded.devices.panel == "tcp://127.0.0.1:7105" and loaded.devices.shoe is None


def test_bad_env_value_is_refused_naming_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = write(tmp_path, base())
    monkeypatch.setenv("TABLE_PAYOUT_LIMIT", "lots")
    assert refused(p, "payout_limit").startswith("payout_limit (from environment TABLE_PAYOUT_LIMIT): ")
    monkeypatch.setenv("TABLE_PAYOUT_LIMIT", "40000")
    refused(p, "payout_limit", "TABLE_PAYOUT_LIMIT", "at least 50000.00")


def test_unknown_env_variable_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = write(tmp_path, base())
    monkeypatch.setenv("TABLE_PAYOUT_LIMT", "60000")
    monkeypatch.setenv("TABLE_DEALING__SHUFFLE", "1")
    found = problems(p)
    assert "TABLE_DEALING__SHUFFLE (environment): unknown setting dealing.shuffle" in found
    assert "TABLE_PAYOUT_LIMT (environment): unknown setting payout_limt" in found


def test_config_path_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLE_CONFIG", str(write(tmp_path, base())))
    assert load_config(None).id == "t-1"


# -- all problems at once ----------------------------------------------------------------------


def test_every_problem_is_listed(tmp_path: Path) -> None:
    cfg = base()
    cfg["seats"] = 0
    cfg["log_format"] = "xml"
    cfg["dealing"]["procedure"] = "deck"
    cfg["wagers"]["ante"]["min"] = "1.001"
    p = write(tmp_path, cfg)
    found = problems(p)
    assert {f.split(":")[0] for f in found} == {"seats", "dealing.procedure", "wagers.ante.min", "log_format"}
    with pytest.raises(ConfigError) as info:
        load_config(p)
    assert str(info.value).startswith(f"{p}: 4 problems:\n  ")


def test_bad_nested_env_value_names_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = write(tmp_path, with_progressive(base(), "B"))
    monkeypatch.setenv("TABLE_PROGRESSIVE__METERS__MAJOR__RESET", "999")
    assert refused(p, "progressive.meters.major.reset") == (
        "progressive.meters.major.reset (from environment TABLE_PROGRESSIVE__METERS__MAJOR__RESET): "
        "must be at least 1000.00 (UTH ch.12 §D(3)(b)(ii))"
    )
    # a table given whole as JSON is merged with the file's: only its own keys are blamed on it
    monkeypatch.delenv("TABLE_PROGRESSIVE__METERS__MAJOR__RESET")
    monkeypatch.setenv("TABLE_PROGRESSIVE", json.dumps({"unit": "0"}))
    assert refused(p, "progressive.unit").startswith("progressive.unit (from environment TABLE_PROGRESSIVE): ")
