"""The shuffler driver against the simulated shuffler, over the real serial stack.

Each test starts ``python -m simulators.shuffler`` (a loopback socket, or a
pseudo-terminal where marked), connects ``drivers.shuffler.Shuffler`` to it,
and injects faults through the simulator's control port.  Nothing sleeps:
every wait is on a reply, a health change or a future, with a deadline.
"""

from __future__ import annotations

import pytest

from devices import run, simulator
from drivers.serial_link import (
    CardCountError,
    DeviceOffline,
    DoorOpenError,
    DuplicateCardError,
    Fault,
    Health,
    JamError,
    NotReadyError,
    ProtocolError,
    ShuffleIncompleteError,
    UnreadableCardError,
)
from drivers.shoe import Shoe
from drivers.shuffler import Shuffler, ShuffleResult, ShufflerState

FULL_DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]
ORDER = FULL_DECK[::-1]  # As Ah Ad Ac Ks ... : the order a test scripts
# Generous for a loaded machine; the idle poll is off unless a test needs it,
# so that health reflects the exchanges the test makes.
DRIVER = dict(
    ack_timeout=1.0, max_retries=3, reply_timeout=10.0, poll_interval=3600.0, backoff_min=0.05, backoff_max=0.5
)
# Where the device is meant to go silent: fail fast.
QUICK = dict(DRIVER, ack_timeout=0.3, max_retries=2, poll_interval=0.3)


@pytest.fixture
def sim(request):
    transport = getattr(request, "param", "socket")
    with simulator("simulators.shuffler", "--transport", transport, "--seed", "11", "--shuffle-ms", "1") as s:
        yield s


def drive(sim, body, **options):
    """Run ``body(shuffler)`` with a driver connected to ``sim`` (ONLINE first)."""

    async def main():
        async with Shuffler(sim.url, **{**DRIVER, **options}) as shuffler:
            await shuffler.wait_health(Health.ONLINE, timeout=15)
            await body(shuffler)

    run(main(), timeout=60)


async def scripted(sim, shuffler, order=ORDER):
    await sim.acontrol("set_deck", cards=order)
    assert await shuffler.shuffle() == ShuffleResult(len(order), "A")


@pytest.mark.parametrize("sim", ["socket", "pty"], indirect=True)
def test_shuffle_deliver_hold_and_release(sim):
    async def body(shuffler):
        await scripted(sim, shuffler)
        stack = await shuffler.deliver(5)
        assert stack.cards == tuple(ORDER[:5]) and stack.first_position == 1 and stack.deck == "A"
        assert stack.face_up == (False,) * 5
        await shuffler.hold(2)  # the dealer's cards stay in the device
        assert (await shuffler.deliver(2)).cards == tuple(ORDER[7:9])
        status = await shuffler.status()
        assert (status.state, status.deck, status.position, status.remaining, status.held) == (
            ShufflerState.READY,
            "A",
            9,
            43,
            2,
        )
        released = await shuffler.release()
        assert released.cards == tuple(ORDER[5:7]) and released.first_position == 6
        with pytest.raises(NotReadyError):
            await shuffler.release()  # nothing held any more
        # two-deck alternation: the other deck comes into play, dealt in the seeded order
        result = await shuffler.shuffle()
        assert result == ShuffleResult(52, "B")
        undealt = (await sim.acontrol("peek"))["cards"]
        assert sorted(undealt) == sorted(FULL_DECK) and undealt != ORDER
        assert list((await shuffler.deliver(7)).cards) == undealt[:7]
        assert shuffler.health is Health.ONLINE and shuffler.faults == Fault.NONE

    drive(sim, body)


def test_stack_sizes_are_checked_before_anything_is_sent(sim):
    async def body(shuffler):
        for n in (0, 53, 2.0):
            with pytest.raises(ValueError):
                await shuffler.deliver(n)
        with pytest.raises(NotReadyError):
            await shuffler.deliver(2)  # no deck shuffled yet

    drive(sim, body)


@pytest.mark.parametrize("count", [51, 53])
def test_count_other_than_52_is_refused(sim, count):
    async def body(shuffler):
        await sim.acontrol("fault", fault="count", count=count)
        with pytest.raises(CardCountError) as err:
            await shuffler.shuffle()
        assert err.value.count == count and err.value.deck == "A"
        assert shuffler.health is Health.DEGRADED and shuffler.faults & Fault.COUNT_WRONG
        with pytest.raises(CardCountError) as err:
            await shuffler.deliver(2)  # the device will not deal that deck either
        assert err.value.count == count
        assert (await shuffler.shuffle()).deck == "B"
        assert shuffler.health is Health.ONLINE

    drive(sim, body)


def test_jam_at_card_n_of_a_stack(sim):
    async def body(shuffler):
        await scripted(sim, shuffler)
        await shuffler.deliver(2)
        await sim.acontrol("fault", fault="jam", at=4)
        with pytest.raises(JamError) as err:
            await shuffler.deliver(5)  # cards 3..7: the second card jams
        assert err.value.position == 4
        assert shuffler.health is Health.DEGRADED
        with pytest.raises(JamError):
            await shuffler.deliver(2)  # latched until the dealer clears it
        status = await shuffler.status()
        assert status.state is ShufflerState.FAULT and status.faults & Fault.JAM
        await sim.acontrol("clear")
        with pytest.raises(NotReadyError):
            await shuffler.deliver(2)  # cards removed: the deck must be shuffled again
        assert (await shuffler.shuffle()).deck == "B"
        assert shuffler.health is Health.ONLINE

    drive(sim, body)


def test_jam_during_shuffle(sim):
    async def body(shuffler):
        await sim.acontrol("fault", fault="jam")
        with pytest.raises(JamError) as err:
            await shuffler.shuffle()
        assert err.value.position == 0
        await sim.acontrol("clear")
        assert (await shuffler.shuffle()).count == 52

    drive(sim, body)


def test_shuffle_not_completed(sim):
    async def body(shuffler):
        await sim.acontrol("fault", fault="shuffle_incomplete")
        with pytest.raises(ShuffleIncompleteError):
            await shuffler.shuffle()
        with pytest.raises(NotReadyError):
            await shuffler.deliver(2)
        assert (await shuffler.shuffle()).count == 52

    drive(sim, body)


def test_door_open(sim):
    async def body(shuffler):
        await sim.acontrol("door", open=True)
        with pytest.raises(DoorOpenError):
            await shuffler.shuffle()
        assert shuffler.health is Health.DEGRADED
        assert (await shuffler.status()).faults & Fault.DOOR_OPEN
        await sim.acontrol("door", open=False)
        assert (await shuffler.shuffle()).count == 52
        assert shuffler.health is Health.ONLINE

    drive(sim, body)


def test_face_up_cards_are_reported_with_their_stack(sim):
    async def body(shuffler):
        await scripted(sim, shuffler)
        await sim.acontrol("fault", fault="face_up", at=2)
        stack = await shuffler.deliver(2)
        assert stack.cards == tuple(ORDER[:2]) and stack.face_up == (False, True)
        await sim.acontrol("fault", fault="face_up", at=[4, 5])  # two face-up cards
        stack = await shuffler.deliver(3)
        assert stack.cards == tuple(ORDER[2:5]) and stack.face_up == (False, True, True)

    drive(sim, body)


def test_card_from_another_deck(sim):
    async def body(shuffler):
        await scripted(sim, shuffler)
        await sim.acontrol("fault", fault="duplicate", at=4)
        with pytest.raises(DuplicateCardError) as err:
            await shuffler.deliver(5)
        assert err.value.card == ORDER[0] and err.value.position == 4
        assert err.value.delivered.cards == (*ORDER[:3], ORDER[0], ORDER[4])

    drive(sim, body)


def test_unreadable_card_is_never_guessed(sim):
    async def body(shuffler):
        await scripted(sim, shuffler)
        await sim.acontrol("fault", fault="unreadable", at=2)
        with pytest.raises(UnreadableCardError) as err:
            await shuffler.deliver(2)
        assert err.value.position == 2

    drive(sim, body)


FALSE_START = bytes((0xA5, 200, 200 ^ 0xFF)).hex()  # a start marker claiming 200 bytes


@pytest.mark.parametrize(
    "fault",
    [
        {"cmd": "garbage", "n": 64},
        {"cmd": "garbage", "hex": FALSE_START},
        {"cmd": "drop", "frames": "ack"},
        {"cmd": "drop", "frames": "data"},
        {"cmd": "corrupt", "frames": "ack"},
        {"cmd": "corrupt", "frames": "data"},
        {"cmd": "delay", "ms": 100},
    ],
    ids=lambda f: "-".join(str(v) for v in f.values())[:24],
)
def test_line_faults_change_nothing_dealt(sim, fault):
    async def body(shuffler):
        await scripted(sim, shuffler)
        await sim.acontrol(**fault)
        assert (await shuffler.deliver(5)).cards == tuple(ORDER[:5])
        link, decoder = shuffler.link_stats
        device = await sim.acontrol("stats")
        if fault["cmd"] == "garbage":
            assert decoder.garbage_bytes >= len(bytes.fromhex(fault.get("hex", ""))) or decoder.garbage_bytes >= 64
        elif fault == {"cmd": "drop", "frames": "ack"}:
            assert link.retransmissions >= 1 and shuffler.health is Health.DEGRADED
        elif fault == {"cmd": "drop", "frames": "data"}:
            assert device["link"]["retransmissions"] >= 1
        elif fault == {"cmd": "corrupt", "frames": "ack"}:
            assert decoder.crc_errors >= 1 and link.retransmissions >= 1
        elif fault == {"cmd": "corrupt", "frames": "data"}:
            assert link.naks_sent >= 1 and device["link"]["naks_received"] >= 1
            assert shuffler.health is Health.DEGRADED
        await sim.acontrol("delay", ms=0)
        assert (await shuffler.deliver(2)).cards == tuple(ORDER[5:7])  # and the next exchange is clean
        assert shuffler.health is Health.ONLINE

    drive(sim, body)


def test_slow_replies_beyond_the_ack_timeout(sim):
    async def body(shuffler):
        await scripted(sim, shuffler)
        await sim.acontrol("delay", ms=1200)  # slower than the ACK timeout: the driver repeats, then gets it
        assert (await shuffler.deliver(2)).cards == tuple(ORDER[:2])
        assert shuffler.link_stats[0].retransmissions >= 1
        assert shuffler.health is Health.DEGRADED
        await sim.acontrol("delay", ms=0)
        await shuffler.status()  # frames still queued behind the delay go out first: may be slow
        await shuffler.status()
        assert shuffler.health is Health.ONLINE

    drive(sim, body, ack_timeout=0.4, max_retries=10)


@pytest.mark.parametrize("sim", ["socket", "pty"], indirect=True)
def test_silent_device_goes_offline_and_comes_back(sim):
    async def body(shuffler):
        await scripted(sim, shuffler)
        await sim.acontrol("unplug", mode="silent")
        with pytest.raises(DeviceOffline):
            await shuffler.deliver(2)
        assert shuffler.health is Health.OFFLINE
        with pytest.raises(DeviceOffline):
            await shuffler.deliver(2)  # at once: nothing is queued for later
        await sim.acontrol("plug")
        await shuffler.wait_health(Health.ONLINE, timeout=15)
        stack = await shuffler.deliver(2)  # the device never saw the failed commands
        assert stack.cards == tuple(ORDER[:2]) and stack.first_position == 1

    drive(sim, body, **QUICK)


def test_unplugged_port_reconnects_with_backoff(sim):
    seen = []

    async def body(shuffler):
        shuffler.add_health_listener(lambda health, reason: seen.append(health))
        await scripted(sim, shuffler)
        await sim.acontrol("unplug", mode="close")
        await shuffler.wait_health(Health.OFFLINE, timeout=15)  # noticed without a command
        with pytest.raises(DeviceOffline):
            await shuffler.shuffle()
        await sim.acontrol("plug")
        await shuffler.wait_health(Health.ONLINE, timeout=15)
        assert (await shuffler.deliver(3)).cards == tuple(ORDER[:3])

    drive(sim, body, **QUICK)
    assert seen[:2] == [Health.OFFLINE, Health.ONLINE]


def test_wrong_device_on_the_port_is_refused(sim):
    async def main():
        shoe = Shoe(sim.url, **DRIVER)
        with pytest.raises(ProtocolError, match="wrong device"):
            await shoe._connect()
        assert shoe.health is Health.OFFLINE
        await shoe.close()

    run(main())


def test_card_values_are_never_logged(sim):
    """The undealt order and the cards of a stack are secret: never logged, at any level."""
    from structlog.testing import capture_logs

    async def body(shuffler):
        await scripted(sim, shuffler)
        await sim.acontrol("fault", fault="face_up", at=3)
        stack = await shuffler.deliver(5)
        assert stack.cards == tuple(ORDER[:5])

    with capture_logs() as logs:
        drive(sim, body)
    assert logs, "the driver logs nothing at all: the test would prove nothing"
    text = repr(logs)
    for card in ORDER[:5]:
        assert f"'{card}'" not in text, card
