"""The dealing-shoe driver against the simulated shoe, over the real serial stack.

Each test starts ``python -m simulators.shoe``, connects ``drivers.shoe.Shoe``
and has the simulated dealer draw cards through the control port.  Waits are
on the driver's card iterator or health, each with a deadline; no sleeps.
"""

from __future__ import annotations

import asyncio

import pytest

from devices import Simulator, run, simulator, start_simulator, stop_simulator
from drivers.frame_link import FrameLink
from drivers.framing import encode_card
from drivers.serial_link import (
    DeviceOffline,
    DuplicateCardError,
    EmptyError,
    Fault,
    Health,
    JamError,
    UnreadableCardError,
)
from drivers.serial_protocol import HELLO, HELLO_REPLY, KIND_SHOE, PROTOCOL_VERSION, STATUS_REPLY, STATUS_REQ
from drivers.shoe import CARD, REPORT_ACK, CardDrawn, Shoe, ShoeState, encode_card_report

FULL_DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]
ORDER = FULL_DECK[::-1]
DRIVER = dict(
    ack_timeout=1.0, max_retries=3, reply_timeout=10.0, poll_interval=3600.0, backoff_min=0.05, backoff_max=0.5
)
QUICK = dict(DRIVER, ack_timeout=0.3, max_retries=2, poll_interval=0.3)
WAIT = 15  # seconds, for things that take milliseconds


@pytest.fixture
def sim(request):
    transport = getattr(request, "param", "socket")
    with simulator("simulators.shoe", "--transport", transport, "--seed", "5") as s:
        yield s


def drive(sim, body, **options):
    async def main():
        async with Shoe(sim.url, **{**DRIVER, **options}) as shoe:
            await shoe.wait_health(Health.ONLINE, timeout=WAIT)
            await body(shoe)

    run(main(), timeout=60)


async def take(shoe, n):
    cards = []
    async for card in shoe.cards():
        cards.append(card)
        if len(cards) == n:
            break
    return cards


async def next_card(shoe):
    return await asyncio.wait_for(shoe.next_card(), WAIT)


async def load(sim, shoe, cards=ORDER):
    await sim.acontrol("load", cards=cards)
    await shoe.status()  # the LOADED report went out before this reply: the driver has taken it
    assert shoe.loaded == len(cards)


def drawn(cards, first=1):
    return [CardDrawn(c[0], c[1], False, first + i) for i, c in enumerate(cards)]


@pytest.mark.parametrize("sim", ["socket", "pty"], indirect=True)
def test_every_card_is_reported_and_acknowledged(sim):
    async def body(shoe):
        await load(sim, shoe)
        assert (await sim.acontrol("draw", n=3))["reported"] == 3
        cards = await asyncio.wait_for(take(shoe, 3), WAIT)
        assert cards == drawn(ORDER[:3])
        assert cards[0].card == "As" and (cards[0].rank, cards[0].suit) == ("A", "s")
        status = await shoe.status()
        assert (status.state, status.position, status.remaining) == (ShoeState.READY, 3, 49)
        assert (await sim.acontrol("state"))["unacknowledged"] == 0  # each card acknowledged
        assert shoe.health is Health.ONLINE

    drive(sim, body)


def test_seeded_shoe_deals_its_seeded_order(sim):
    async def body(shoe):
        undealt = (await sim.acontrol("peek"))["cards"]
        assert sorted(undealt) == sorted(FULL_DECK)
        await sim.acontrol("draw", n=2)
        assert [c.card for c in await asyncio.wait_for(take(shoe, 2), WAIT)] == undealt[:2]

    drive(sim, body)


def test_face_up_cards(sim):
    async def body(shoe):
        await load(sim, shoe)
        await sim.acontrol("fault", fault="face_up", at=2)
        await sim.acontrol("fault", fault="face_up", at=[4, 5])
        await sim.acontrol("draw", n=5)
        cards = await asyncio.wait_for(take(shoe, 5), WAIT)
        assert [c.card for c in cards] == ORDER[:5]
        assert [c.face_up for c in cards] == [False, True, False, True, True]

    drive(sim, body)


def test_card_from_another_deck(sim):
    async def body(shoe):
        await load(sim, shoe)
        await sim.acontrol("fault", fault="duplicate", at=3)
        await sim.acontrol("draw", n=4)
        assert await asyncio.wait_for(take(shoe, 2), WAIT) == drawn(ORDER[:2])
        with pytest.raises(DuplicateCardError) as err:
            await next_card(shoe)
        assert (err.value.card, err.value.position) == (ORDER[0], 3)
        assert await next_card(shoe) == drawn([ORDER[3]], 4)[0]  # the iteration goes on

    drive(sim, body)


def test_unreadable_card_is_never_guessed(sim):
    async def body(shoe):
        await load(sim, shoe)
        await sim.acontrol("fault", fault="unreadable", at=2)
        await sim.acontrol("draw", n=3)
        assert (await next_card(shoe)).position == 1
        with pytest.raises(UnreadableCardError) as err:
            await next_card(shoe)
        assert err.value.position == 2
        assert await next_card(shoe) == drawn([ORDER[2]], 3)[0]

    drive(sim, body)


def test_jam(sim):
    async def body(shoe):
        await load(sim, shoe)
        await sim.acontrol("fault", fault="jam", at=2)
        assert (await sim.acontrol("draw", n=3))["reported"] == 2  # card 1, then the jam
        assert (await next_card(shoe)).position == 1
        with pytest.raises(JamError) as err:
            await next_card(shoe)
        assert err.value.position == 2
        assert shoe.health is Health.DEGRADED
        status = await shoe.status()
        assert status.state is ShoeState.FAULT and status.faults & Fault.JAM
        assert (await sim.acontrol("draw", n=1))["reported"] == 0  # nothing comes out of a jammed shoe
        await sim.acontrol("clear")
        await sim.acontrol("draw", n=1)
        assert await next_card(shoe) == drawn([ORDER[2]], 3)[0]  # card 2 stayed in the jam
        assert shoe.health is Health.ONLINE

    drive(sim, body)


def test_empty_shoe(sim):
    async def body(shoe):
        await load(sim, shoe, ORDER[:2])
        assert (await sim.acontrol("draw", n=5))["reported"] == 3  # two cards, then "empty" once
        assert await asyncio.wait_for(take(shoe, 2), WAIT) == drawn(ORDER[:2])
        with pytest.raises(EmptyError):
            await next_card(shoe)
        status = await shoe.status()
        assert status.state is ShoeState.EMPTY and status.faults & Fault.EMPTY
        assert shoe.health is Health.ONLINE  # an empty shoe is not a broken one
        await load(sim, shoe)
        await sim.acontrol("fault", fault="empty")  # the shoe runs out at once
        await sim.acontrol("draw", n=1)
        with pytest.raises(EmptyError) as err:
            await next_card(shoe)
        assert err.value.detail == 1

    drive(sim, body)


FALSE_START = bytes((0xA5, 200, 200 ^ 0xFF)).hex()


@pytest.mark.parametrize(
    "fault",
    [
        {"cmd": "garbage", "n": 64},
        {"cmd": "garbage", "hex": FALSE_START},
        {"cmd": "drop", "frames": "data"},
        {"cmd": "drop", "frames": "ack", "count": 2},
        {"cmd": "corrupt", "frames": "data", "count": 2},
        {"cmd": "delay", "ms": 100},
    ],
    ids=lambda f: "-".join(str(v) for v in f.values())[:24],
)
def test_line_faults_neither_lose_nor_repeat_a_card(sim, fault):
    async def body(shoe):
        await load(sim, shoe)
        await sim.acontrol(**fault)
        await sim.acontrol("draw", n=4)
        assert await asyncio.wait_for(take(shoe, 4), WAIT) == drawn(ORDER[:4])
        await sim.acontrol("delay", ms=0)
        await sim.acontrol("draw", n=1)
        assert await next_card(shoe) == drawn([ORDER[4]], 5)[0]
        assert not shoe._reports  # nothing else came: no card twice

    drive(sim, body)


def test_a_report_sent_twice_is_taken_once(sim):
    async def body(shoe):
        await load(sim, shoe)
        await sim.acontrol("draw", n=1)
        assert await next_card(shoe) == drawn(ORDER[:1])[0]
        await sim.acontrol("replay")  # the same report again, in a new frame
        await sim.acontrol("draw", n=1)
        assert await next_card(shoe) == drawn([ORDER[1]], 2)[0]

    drive(sim, body)


def test_slow_replies(sim):
    async def body(shoe):
        await load(sim, shoe)
        await sim.acontrol("delay", ms=1200)  # beyond the driver's ACK timeout
        status = await shoe.status()
        assert status.position == 0
        assert shoe.health is Health.DEGRADED
        await sim.acontrol("draw", n=1)
        assert await next_card(shoe) == drawn(ORDER[:1])[0]

    drive(sim, body, ack_timeout=0.4, max_retries=10)


def test_cards_drawn_while_unplugged_arrive_after_replug(sim):
    seen = []

    async def body(shoe):
        shoe.add_health_listener(lambda health, reason: seen.append(health))
        await load(sim, shoe)
        await sim.acontrol("unplug", mode="close")
        await shoe.wait_health(Health.OFFLINE, timeout=WAIT)
        with pytest.raises(DeviceOffline):
            await next_card(shoe)  # fail closed: no card is made up while offline
        await sim.acontrol("draw", n=2)  # the dealer goes on; the shoe keeps its reports
        await sim.acontrol("plug")
        await shoe.wait_health(Health.ONLINE, timeout=WAIT)
        assert await asyncio.wait_for(take(shoe, 2), WAIT) == drawn(ORDER[:2])
        await shoe.status()
        assert (await sim.acontrol("state"))["unacknowledged"] == 0

    drive(sim, body, **QUICK)
    assert seen[:2] == [Health.OFFLINE, Health.ONLINE]


@pytest.mark.parametrize("sim", ["socket", "pty"], indirect=True)
def test_silent_shoe_goes_offline_and_comes_back(sim):
    async def body(shoe):
        await load(sim, shoe)
        await sim.acontrol("unplug", mode="silent")
        waiting = asyncio.ensure_future(shoe.next_card())
        with pytest.raises(DeviceOffline):
            await asyncio.wait_for(waiting, WAIT)  # a waiting reader is told when the shoe goes offline
        assert shoe.health is Health.OFFLINE
        await sim.acontrol("draw", n=1)
        await sim.acontrol("plug")
        await shoe.wait_health(Health.ONLINE, timeout=WAIT)
        assert await next_card(shoe) == drawn(ORDER[:1])[0]

    drive(sim, body, **QUICK)


@pytest.fixture
def start_shoe():
    started = []

    def start(*args):
        proc, url, control_url = start_simulator("simulators.shoe", *args)
        started.append(proc)
        return Simulator(proc, url, control_url)

    yield start
    for proc in started:
        stop_simulator(proc)


def test_a_restarted_shoe_is_followed_although_its_report_ids_start_again(start_shoe):
    first = start_shoe("--rid", "40000")

    async def main():
        async with Shoe(first.url, **QUICK) as shoe:
            await shoe.wait_health(Health.ONLINE, timeout=WAIT)
            await load(first, shoe)
            await first.acontrol("draw", n=2)
            assert await asyncio.wait_for(take(shoe, 2), WAIT) == drawn(ORDER[:2])
            stop_simulator(first.proc)  # power cut
            await shoe.wait_health(Health.OFFLINE, timeout=WAIT)
            port = first.url.rsplit(":", 1)[1]
            # back on the same port; its report ids now start BELOW the ones already taken
            second = start_shoe("--port", port, "--rid", "10")
            await shoe.wait_health(Health.ONLINE, timeout=WAIT)
            await load(second, shoe, ORDER[10:])
            await second.acontrol("draw", n=1)
            assert await next_card(shoe) == drawn([ORDER[10]])[0]

    run(main(), timeout=60)


def test_reports_sent_before_hello_are_neither_taken_nor_acknowledged():
    """A report that reaches a new connection before the HELLO reply may come
    from before a restart (its report id means nothing yet): the driver must
    leave it unacknowledged, so that the shoe sends it again in the session."""

    async def main():
        loop = asyncio.get_running_loop()
        acked = []
        tasks = set()

        def spawn(coro):
            task = loop.create_task(coro)
            tasks.add(task)

        def fake_shoe():
            def received(frame):
                if frame.type == HELLO:
                    spawn(link.send(HELLO_REPLY, bytes((frame.seq, KIND_SHOE, PROTOCOL_VERSION, 0, 1))))
                elif frame.type == STATUS_REQ:
                    spawn(link.send(STATUS_REPLY, bytes((frame.seq, 1, 0, 0, 52))))
                elif frame.type == REPORT_ACK:
                    acked.append(int.from_bytes(frame.payload, "big"))

            link = FrameLink(received, name="fake-shoe")
            # the moment the controller connects, a report from before: As at position 1, rid 7
            spawn(_send_when_connected(link, 7, 1, "As"))
            links.append(link)
            return link

        links = []
        server = await loop.create_server(fake_shoe, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with Shoe(f"socket://127.0.0.1:{port}", **DRIVER) as shoe:
            await shoe.wait_health(Health.ONLINE, timeout=WAIT)
            await links[0].send(CARD, encode_card_report(8, 2, encode_card("Ah"), 0))
            card = await next_card(shoe)
            assert (card.card, card.position) == ("Ah", 2)
            await shoe.status()  # the REPORT_ACK for rid 8 was sent before this
            assert acked == [8]
        server.close()

    run(main())


async def _send_when_connected(link, rid, position, card):
    await link.connected
    await link.send(CARD, encode_card_report(rid, position, encode_card(card), 0))


def test_card_values_are_never_logged(sim):
    """Hole cards are secret until the rules reveal them (DEVELOPERS: never logged in clear), at any level."""
    from structlog.testing import capture_logs

    async def body(shoe):
        await load(sim, shoe)
        await sim.acontrol("fault", fault="face_up", at=2)
        await sim.acontrol("draw", n=4)
        cards = await asyncio.wait_for(take(shoe, 4), WAIT)
        assert [c.card for c in cards] == ORDER[:4]

    with capture_logs() as logs:
        drive(sim, body)
    assert logs, "the driver logs nothing at all: the test would prove nothing"
    text = repr(logs)
    for card in ORDER[:4]:
        assert f"'{card}'" not in text, card
