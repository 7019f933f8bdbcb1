"""`tablectl settle` as shared/contracts/settle.md defines it: input forms, output form, refusals."""

import copy
import io
import json
from decimal import Decimal
from pathlib import Path

import pytest

from controller.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = json.loads((ROOT / "docs/examples/settle-uth.json").read_text())


def run(stdin: str, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["settle", *args], stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def example(**changes):
    r = copy.deepcopy(EXAMPLE)
    r.update(changes)
    return r


def test_single_round_pretty_or_one_line_gives_the_same_settlement():
    code1, out1, _ = run(json.dumps(EXAMPLE, indent=4))
    code2, out2, _ = run(json.dumps(EXAMPLE))
    assert code1 == code2 == 0
    assert json.loads(out1) == json.loads(out2)


def test_file_argument_and_stdin_agree(tmp_path):
    f = tmp_path / "round.json"
    f.write_text(json.dumps(EXAMPLE))
    assert run("", str(f))[1] == run(json.dumps(EXAMPLE))[1]


def test_missing_file_is_refused_with_its_name(tmp_path):
    code, out, err = run("", str(tmp_path / "nope.json"))
    assert code == 2 and out == "" and "nope.json" in err


def test_json_lines_one_settlement_per_line_bad_line_reported_in_place():
    bad = example(game="baccarat")
    lines = [json.dumps(EXAMPLE), json.dumps(bad), json.dumps(EXAMPLE)]
    code, out, err = run("\n".join(lines) + "\n")
    assert code == 2
    results = [json.loads(x) for x in out.splitlines()]
    assert len(results) == 3
    assert results[1] == {"line": 2, "error": results[1]["error"]}
    assert "game" in results[1]["error"]
    assert results[0] == results[2] and results[0]["game"] == "ultimate_texas_holdem"


def test_json_lines_all_good_exit_zero():
    code, out, _ = run(json.dumps(EXAMPLE) + "\n" + json.dumps(EXAMPLE) + "\n")
    assert code == 0 and len(out.splitlines()) == 2


def test_json_lines_unparsable_line_reported():
    code, out, _ = run(json.dumps(EXAMPLE) + "\n{not json\n")
    assert code == 2
    second = json.loads(out.splitlines()[1])
    assert second["line"] == 2 and "not valid JSON" in second["error"]


def _refused(round_obj, field_fragment):
    code, out, err = run(json.dumps(round_obj, default=str) if not isinstance(round_obj, str) else round_obj)
    assert code == 2, out
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert field_fragment in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize(
    "change, field",
    [
        ({"game": "baccarat"}, "game"),
        ({"colour": "red"}, "colour"),
        ({"payout_limit": 49999.99}, "payout_limit"),
        ({"dealer": ["Qh"]}, "dealer"),
        ({"community": ["2c", "3d", "4h", "5s"]}, "community"),
        ({"community": ["2c", "3d", "4h", "5s", "Qh"]}, "community"),  # Qh is the dealer's: a card twice
        ({"dealer": ["Qh", "Qx"]}, "dealer[1]"),
        ({"paytables": {"blind": "Z", "trips": "A", "progressive": "B"}}, "paytables.blind"),
        ({"paytables": {"blind": "A", "trips": "A", "progressive": "B", "lucky": "A"}}, "paytables.lucky"),
        ({"seats": []}, "seats"),
        ({"seats": [{"seat": i, "cards": [], "wagers": {}} for i in range(1, 8)]}, "seats"),
    ],
)
def test_refusals_name_the_field(change, field):
    _refused(example(**change), field)


def test_seat_refusals():
    r = example()
    r["seats"][0]["seat"] = 7
    _refused(r, "seats[0].seat")
    r = example()
    r["seats"][1]["seat"] = 1
    _refused(r, "seats[1].seat")
    r = example()
    r["seats"][1]["cards"] = ["As", "2d"]  # As is seat 1's
    _refused(r, "seats[1].cards")
    r = example()
    del r["seats"][1]["wagers"]["ante"]
    _refused(r, "seats[1].wagers.ante")
    r = example()
    r["seats"][0]["wagers"]["lucky_lucky"] = 5
    _refused(r, "seats[0].wagers.lucky_lucky")
    r = example()
    r["seats"][0]["wagers"]["trips"] = -5
    _refused(r, "seats[0].wagers.trips")
    r = example()
    r["seats"][0]["wagers"]["trips"] = "5"
    _refused(r, "seats[0].wagers.trips")
    r = example()
    r["seats"][0]["hat"] = 1
    _refused(r, "seats[0].hat")


def test_more_than_two_decimals_refused():
    text = json.dumps(EXAMPLE).replace('"trips": 5', '"trips": 5.001')
    _refused(text, "seats[0].wagers.trips")


def test_not_json_and_not_an_object_refused():
    _refused("{oops", "not valid JSON")
    _refused("[1, 2]", "JSON object")
    _refused('{"game": NaN}', "NaN")


def test_duplicate_key_refused():
    text = json.dumps(EXAMPLE)[:-1] + ', "game": "high_card_flush"}'
    _refused(text, "game")


def test_progressive_block_refusals():
    r = example()
    del r["progressive"]
    _refused(r, "progressive")
    r = example()
    r["progressive"]["meters"]["grand"] = 5
    _refused(r, "progressive.meters.grand")
    r = example()
    del r["progressive"]["reset"]["minor"]
    _refused(r, "progressive.reset.minor")
    r = example()
    r["seats"][0]["wagers"]["progressive"] = 5
    _refused(r, "seats[0].wagers.progressive")
    r = example()
    r["progressive"]["envy"] = "Q"
    _refused(r, "progressive.envy")
    r = example()
    r["progressive"]["unit"] = 0
    _refused(r, "progressive.unit")


def test_amounts_exact_never_float():
    """0.10 + 0.20 style sums stay exact, and 3 to 2 on an odd amount rounds half up to the cent."""
    r = example()
    r["seats"] = [
        {"seat": 2, "cards": ["Ah", "Kh"], "wagers": {"ante": Decimal("0.05"), "blind": Decimal("0.05")}, "play": 1}
    ]
    r["community"] = ["2h", "7h", "9h", "3c", "4d"]  # the player's ace-high heart flush beats the dealer's queens
    code, out, err = run(json.dumps(r, default=str).replace('"0.05"', "0.05"))
    assert code == 0, err
    seat = json.loads(out, parse_float=Decimal)["seats"][0]
    # UTH ch.12 §B(1)(e): flush 3 to 2 on $0.05 = 0.075 -> 0.08 (half up)
    assert seat["wagers"]["blind"] == {
        "amount": Decimal("0.05"), "result": "win", "net": Decimal("0.08"), "line": "flush"
    }
    assert seat["net"] == Decimal("0.05") + Decimal("0.08") + Decimal("0.05")
