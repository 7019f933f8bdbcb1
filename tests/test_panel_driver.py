"""The dealer's button panel driver against its simulator (Modbus TCP and RTU
over a pty) and against pymodbus's own simulator datastore with our map.

What matters: every press reaches the controller exactly once, in order --
however the contact bounces, however fast the presses come, and across an
outage of the panel.  "Nothing else arrived" is proved without sleeping: a
marker press is sent last and must be the next event.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from drivers.modbus import DeviceOffline, Health
from drivers.panel import (
    KEY_REFRESH,
    MAX_PENDING,
    QUIET_POLL_INTERVAL,
    ButtonPress,
    InputFault,
    KeySwitch,
    PanelDriver,
)
from drivers.registers import BUTTONS, PANEL, PANEL_HEADER_COUNT, PANEL_RING_SIZE, Table, button_code
from modbus_helpers import WAIT, Control, peer_cell, peer_config, run, sim_fixture, start_peer, with_driver
from simulators.panel import contact_waveform, debounce

MARKER = BUTTONS[-1]  # the last button: presses recovered from the counters come in button order


sim = sim_fixture("simulators.panel")
rtu_sim = sim_fixture("simulators.panel", "--rtu")


def with_panel(sim_proc, body, **driver_kw):
    """Reset the simulator, connect a driver, run ``body(panel, ctl)``."""
    with_driver(sim_proc, PanelDriver, body, **driver_kw)


async def presses_until_marker(panel: PanelDriver, ctl: Control) -> list[ButtonPress]:
    """Press the marker, then collect every event up to and including it."""
    await ctl("press", button=MARKER)
    got = []
    while True:
        p = await panel.next_press(timeout=WAIT)
        got.append(p)
        if p.button == MARKER:
            return got


async def ordered_presses(panel: PanelDriver, ctl: Control) -> None:
    seq = ["seat_1", "bet_2x", "seat_2", "check", "seat_3", "fold", "no_more_bets", "deal", "bet_4x",
           "confirm", "undo", "void_round", "bet_1x", "bet_3x"]
    for b in seq:
        assert (await ctl("press", button=b))["registered"] == 1
    got = await presses_until_marker(panel, ctl)
    assert [(p.button, p.multiple) for p in got] == [
        ("seat_1", None), ("bet", 2), ("seat_2", None), ("check", None), ("seat_3", None), ("fold", None),
        ("no_more_bets", None), ("deal", None), ("bet", 4), ("confirm", None), ("undo", None),
        ("void_round", None), ("bet", 1), ("bet", 3), (MARKER, None)]
    assert [p.seq for p in got] == list(range(got[0].seq, got[0].seq + len(got)))
    assert not any(p.after_outage for p in got)


def test_presses_in_order_tcp(sim):
    with_panel(sim, ordered_presses)


def test_bouncing_button_is_one_press(sim):
    async def body(panel, ctl):
        assert (await ctl("press", button="no_more_bets", bounce=8))["registered"] == 1
        got = await presses_until_marker(panel, ctl)
        assert [p.button for p in got] == ["no_more_bets", MARKER]

    with_panel(sim, body)


def test_touch_shorter_than_debounce_is_no_press(sim):
    async def body(panel, ctl):
        assert (await ctl("press", button="deal", hold_ms=2))["registered"] == 0
        assert [p.button for p in await presses_until_marker(panel, ctl)] == [MARKER]

    with_panel(sim, body)


def test_debouncer_in_panel_firmware():
    assert debounce(contact_waveform(0, 60)) == 1
    assert debounce(contact_waveform(20, 60)) == 1
    assert debounce(contact_waveform(3, 1)) == 0
    # two real presses 10 ms apart (contact open 10 ms > debounce) are two
    wave = contact_waveform(2, 30) + [(t + 40, c) for t, c in contact_waveform(2, 30)]
    assert debounce(wave) == 2


def test_burst_within_one_poll_keeps_order(sim):
    """A burst of presses registered between two polls (up to the ring size)."""

    async def body(panel, ctl):
        burst = [BUTTONS[(7 * i) % len(BUTTONS)] for i in range(PANEL_RING_SIZE - 1)]
        burst = [b for b in burst if b != MARKER]
        r = await ctl("press", buttons=burst)
        assert r["registered"] == len(burst)
        got = await presses_until_marker(panel, ctl)
        names = [p.button if p.multiple is None else f"bet_{p.multiple}x" for p in got[:-1]]
        assert names == burst

    with_panel(sim, body, presses_per_poll=PANEL_RING_SIZE)  # about the ring's order, not the bound


def test_many_presses_none_lost_none_doubled(sim):
    """More presses between two polls than the ring holds: the counters still
    account for every one."""

    async def body(panel, ctl):
        want = Counter()
        got: list[ButtonPress] = []

        async def take() -> None:  # the controller takes presses as they come (the queue is bounded)
            while not got or got[-1].button != MARKER:
                got.append(await panel.next_press(timeout=WAIT))

        taker = asyncio.ensure_future(take())
        # one burst: more than the ring holds, less than the bounded queue (MAX_PENDING)
        burst = [BUTTONS[(i * 5) % len(BUTTONS)] for i in range(200)]
        burst = [b for b in burst if b != MARKER]
        want.update(burst)
        assert (await ctl("press", buttons=burst))["registered"] == len(burst)
        for _ in range(40):  # and some one at a time, as fast as the control port goes
            await ctl("press", button="seat_4")
            want["seat_4"] += 1
        await ctl("press", button=MARKER)
        await taker
        names = Counter(p.button if p.multiple is None else f"bet_{p.multiple}x" for p in got[:-1])
        assert names == want

    with_panel(sim, body, press_rate=1e6, press_burst=1000, presses_per_poll=1000)  # the counters, not the bound


def test_key_switch(sim):
    async def body(panel, ctl):
        changes: list[KeySwitch] = []
        changed = asyncio.Event()
        panel.on_key_change(lambda k: (changes.append(k), changed.set()))
        assert await panel.key_switch() == KeySwitch(False, 0)
        await ctl("key", on=True, supervisor=4711)
        assert await panel.key_switch() == KeySwitch(True, 4711)
        await asyncio.wait_for(changed.wait(), WAIT)
        assert changes[-1] == KeySwitch(True, 4711) and panel.key == KeySwitch(True, 4711)
        await ctl("key", on=False)
        assert await panel.key_switch() == KeySwitch(False, 0)

    with_panel(sim, body)


def test_polls_read_the_key_switch_only_when_it_can_have_moved(sim):
    """Issue 24 (CPU): the key switch's bit is not read at every poll; a key turned with an ID moves the
    header's supervisor_id, read at every poll, and the bit is read then; a key of ID 0 is seen by the
    refresh (KEY_REFRESH); either change is believed when two readings agree, as before."""

    async def body(panel, ctl):
        reads: Counter[str] = Counter()
        request = panel.bus.request

        async def counted(what, fn):
            reads[what.split()[1]] += 1  # "input" (the header; the ring) or "discrete" (the key switch)
            return await request(what, fn)

        panel.bus.request = counted
        changes: list[KeySwitch] = []
        changed = asyncio.Event()
        panel.on_key_change(lambda k: (changes.append(k), changed.set()))
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        while reads["input"] < 40:
            await asyncio.sleep(panel.poll_interval)
        # the refresh, plus the poll under way when the count began (at every poll it would be 40)
        assert reads["discrete"] <= (loop.time() - t0) / KEY_REFRESH + 2
        await ctl("key", on=True, supervisor=4711)
        await asyncio.wait_for(changed.wait(), WAIT)
        assert changes == [KeySwitch(True, 4711)]
        changed.clear()
        await ctl("key", on=True, supervisor=0)  # a key of ID 0: the header does not tell it
        await asyncio.wait_for(changed.wait(), WAIT)
        changed.clear()
        await ctl("key", on=False)
        await asyncio.wait_for(changed.wait(), WAIT)
        assert changes == [KeySwitch(True, 4711), KeySwitch(True, 0), KeySwitch(False, 0)]

    with_panel(sim, body)


def test_polls_every_25_ms_while_pressing_and_every_50_ms_when_quiet(sim):
    """Issue 24 (CPU): a panel left alone is polled every 50 ms (a press taken within ~50 ms), one the
    dealer is pressing every 25 ms, until quiet_after without a press."""

    async def body(panel, ctl):
        loop = asyncio.get_running_loop()
        headers: list[float] = []
        request = panel.bus.request

        async def timed(what, fn):
            if what == f"read input registers 0+{PANEL_HEADER_COUNT}":
                headers.append(loop.time())
            return await request(what, fn)

        async def gaps(n: int) -> list[float]:
            """The gaps between the next n + 1 polls."""
            del headers[:]
            while len(headers) <= n:
                await asyncio.sleep(panel.poll_interval)
            return [b - a for a, b in zip(headers, headers[1:], strict=False)]

        panel.bus.request = timed
        assert (panel.poll_interval, panel.quiet_poll_interval) == (PanelDriver.POLL_INTERVAL, QUIET_POLL_INTERVAL)
        assert panel._poll_every() == QUIET_POLL_INTERVAL  # nothing pressed yet
        assert min(await gaps(10)) >= QUIET_POLL_INTERVAL
        await ctl("press", button="deal")
        assert (await panel.next_press(timeout=WAIT)).button == "deal"
        assert panel._poll_every() == PanelDriver.POLL_INTERVAL  # the dealer is pressing
        assert min(await gaps(4)) < QUIET_POLL_INTERVAL
        await asyncio.sleep(panel.quiet_after)  # nothing pressed for quiet_after
        assert panel._poll_every() == QUIET_POLL_INTERVAL
        assert min(await gaps(4)) >= QUIET_POLL_INTERVAL

    with_panel(sim, body, quiet_after=0.5)


def test_lights_and_buzzer(sim):
    async def body(panel, ctl):
        await panel.set_light("no_more_bets", True)
        await panel.set_light("bet_3x", True)
        await panel.set_light("fault", True)
        await panel.set_light("bet_3x", False)
        out = await ctl("outputs")
        on = {n for n, v in out["lights"].items() if v}
        assert on == {"no_more_bets", "fault"}
        lights = await panel.lights()
        assert {n for n, v in lights.items() if v} == on and set(lights) == set(BUTTONS) | {"ready", "fault"}
        await panel.buzz()
        await panel.buzz()
        assert (await ctl("outputs"))["buzz_count"] == 2
        with pytest.raises(ValueError):
            await panel.set_light("seat_7", True)

    with_panel(sim, body)


async def outage_keeps_presses(panel: PanelDriver, ctl: Control) -> None:
    await ctl("stop_answering")
    await panel.wait_health(Health.OFFLINE, timeout=WAIT)
    with pytest.raises(DeviceOffline):
        await panel.set_light("deal", True)
    with pytest.raises(DeviceOffline):
        await panel.buzz()
    with pytest.raises(DeviceOffline):
        await panel.key_switch()
    await ctl("press", button="void_round")  # pressed while the controller cannot hear the panel
    out = await ctl("outputs")
    assert out["buzz_count"] == 0 and not out["lights"]["deal"]
    await ctl("resume")
    await panel.wait_health(Health.ONLINE, timeout=WAIT)
    got = await presses_until_marker(panel, ctl)
    assert [(p.button, p.after_outage) for p in got] == [("void_round", True), (MARKER, False)]
    await panel.set_light("deal", True)
    assert (await ctl("outputs"))["lights"]["deal"]


def test_stop_answering_offline_then_recovers_without_losing_presses(sim):
    with_panel(sim, outage_keeps_presses)


def test_frozen_heartbeat_goes_offline(sim):
    async def body(panel, ctl):
        await ctl("freeze_heartbeat", on=True)
        await panel.wait_health(Health.OFFLINE, timeout=WAIT)
        assert "heartbeat" in panel.health_reason
        with pytest.raises(DeviceOffline):
            await panel.buzz()
        await ctl("freeze_heartbeat", on=False)
        await panel.wait_health(Health.ONLINE, timeout=WAIT)
        await panel.buzz()

    with_panel(sim, body, heartbeat_stale_after=0.5)


def test_panel_reboot_invents_no_presses(sim):
    async def body(panel, ctl):
        await ctl("press", buttons=["seat_1", "seat_2", "seat_3"])
        got = await presses_until_marker(panel, ctl)
        assert [p.button for p in got] == ["seat_1", "seat_2", "seat_3", MARKER]
        await ctl("reboot")  # counters back to 0: neither 65533 presses nor a negative count
        got = await presses_until_marker(panel, ctl)
        assert [p.button for p in got] == [MARKER]
        assert got[0].seq == 1

    with_panel(sim, body)


def test_rtu_over_pty(rtu_sim):
    assert rtu_sim.url.startswith("rtu:///dev/")

    async def body(panel, ctl):
        await ordered_presses(panel, ctl)
        assert (await ctl("press", button="confirm", bounce=6))["registered"] == 1
        assert [p.button for p in await presses_until_marker(panel, ctl)] == ["confirm", MARKER]
        await ctl("key", on=True, supervisor=12)
        assert await panel.key_switch() == KeySwitch(True, 12)
        await outage_keeps_presses(panel, ctl)

    with_panel(rtu_sim, body)


# --------------------------------------------------------------------------
# against a peer we did not write: pymodbus's simulator datastore
# --------------------------------------------------------------------------


def test_against_pymodbus_simulator():
    """The peer is a plain register store: the test plays the panel firmware by
    writing its cells (counter, sequence number, ring), the driver must turn
    that into presses; the driver's writes must land in the peer's coils."""

    async def main():
        server, store, url = await start_peer(PANEL, {"version": 1, "boot_id": 99, "press_seq": 65534,
                                                     "count.deal": 65535}, unit=2)
        panel = PanelDriver(url)

        def firmware_press(button: str) -> None:
            seq = peer_cell(PANEL, store, "press_seq")
            seq.value = (seq.value + 1) & 0xFFFF
            c = peer_cell(PANEL, store, f"count.{button}")
            c.value = (c.value + 1) & 0xFFFF
            peer_cell(PANEL, store, f"ring.{(seq.value - 1) % PANEL_RING_SIZE}").value = button_code(button)

        try:
            await panel.start()
            await panel.wait_health(Health.ONLINE, timeout=WAIT)
            for b in ("deal", "seat_5", "bet_3x", "fold"):  # crosses 65535 -> 0 in seq and in count.deal
                firmware_press(b)
            got = [await panel.next_press(timeout=WAIT) for _ in range(4)]
            assert [(p.button, p.multiple, p.seq) for p in got] == [
                ("deal", None, 65535), ("seat_5", None, 0), ("bet", 3, 1), ("fold", None, 2)]

            store.registers[peer_first_di_cell()].value |= 1  # key switch on
            peer_cell(PANEL, store, "supervisor_id").value = 321
            assert await panel.key_switch() == KeySwitch(True, 321)

            await panel.set_light("seat_5", True)
            addr = PANEL["light.seat_5"].address
            assert store.registers[addr // 16].value & (1 << (addr % 16))
            await panel.buzz()
            assert store.registers[0].value & 1
        finally:
            await panel.close()
            await server.shutdown()

    run(main)


def test_a_counter_jump_no_person_could_press_is_a_fault_not_presses():
    """Issue: device inputs are checked, not believed. A glitched counter register (a jump of 40,000) or a
    press sequence number that leaps is reported to the fault listeners and queues nothing; the counts are
    the new baseline, so the next real press is one press."""

    async def main():
        server, store, url = await start_peer(PANEL, {"version": 1, "boot_id": 7, "press_seq": 10}, unit=2)
        panel = PanelDriver(url)
        faults: list[InputFault] = []
        panel.add_fault_listener(faults.append)
        try:
            await panel.start()
            await panel.wait_health(Health.ONLINE, timeout=WAIT)
            got_fault = asyncio.Event()
            panel.add_fault_listener(lambda reason: got_fault.set())
            peer_cell(PANEL, store, "count.fold").value = 40000  # noise on one register
            await asyncio.wait_for(got_fault.wait(), WAIT)
            assert panel.pending() == 0
            got_fault.clear()
            peer_cell(PANEL, store, "press_seq").value = 30000  # the sequence number leaps
            await asyncio.wait_for(got_fault.wait(), WAIT)
            assert panel.pending() == 0 and [f.kind for f in faults] == ["counter_jump", "counter_jump"]
            # a real press after the glitches: exactly one, from the new baseline
            seq = peer_cell(PANEL, store, "press_seq")
            seq.value += 1
            peer_cell(PANEL, store, "count.deal").value += 1
            peer_cell(PANEL, store, f"ring.{(seq.value - 1) % PANEL_RING_SIZE}").value = button_code("deal")
            p = await panel.next_press(timeout=WAIT)
            assert (p.button, p.seq) == ("deal", 30001)
            assert panel.pending() == 0 and len(faults) == 2
        finally:
            await panel.close()
            await server.shutdown()

    run(main)


def test_a_register_glitch_or_a_double_press_in_one_poll_is_a_fault_not_presses(sim):
    """Issue 30 (4): a +30 glitch on the check counter alone (the press number and the ring unchanged) made 8
    decisions.  Now what the counters, the press number and the ring do not all tell, a counter going back,
    and one button counted twice in one poll (no finger presses a debounced button twice in 25 ms) are each
    a fault: no press, the counts the new baseline, the next real press taken once
    (docs/protocols-modbus.md §5 (6))."""

    async def body(panel, ctl):
        faults: list[InputFault] = []
        seen = asyncio.Event()
        panel.add_fault_listener(lambda f: (faults.append(f), seen.set()))

        async def fault_from(cmd: str, **args) -> None:
            seen.clear()
            await ctl(cmd, **args)
            await asyncio.wait_for(seen.wait(), WAIT)
            assert panel.pending() == 0

        count = (await ctl("state"))["state"]["count.check"]
        await fault_from("glitch", point="count.check", value=(count + 30) & 0xFFFF)  # the issue's +30
        await fault_from("glitch", point="count.check", value=count)  # and back
        await fault_from("press", button="check", count=2)  # two presses of one button between two polls
        assert [f.kind for f in faults] == ["counter_jump"] * 3
        got = await presses_until_marker(panel, ctl)
        assert [p.button for p in got] == [MARKER] and len(faults) == 3

    with_panel(sim, body)


def test_the_press_queue_is_bounded(sim):
    """Presses nobody takes stop at MAX_PENDING; each press beyond is a fault, not memory."""

    async def body(panel, ctl):
        faults: list[InputFault] = []
        full = asyncio.Event()
        panel.add_fault_listener(lambda f: (faults.append(f), full.set()))
        burst = ["seat_1"] * 60
        for _ in range(MAX_PENDING // len(burst) + 1):
            await ctl("press", buttons=burst)
        await asyncio.wait_for(full.wait(), WAIT)
        assert panel.pending() == MAX_PENDING
        assert {f.kind for f in faults} == {"queue_full"}

    with_panel(sim, body, press_rate=1e6, press_burst=1000, presses_per_poll=1000)


def peer_first_di_cell() -> int:
    return -(-PANEL.span(Table.COIL) // 16)


def test_two_units_share_one_bus():
    """Progressive (unit 1) and panel (unit 2) on one line, as on an RS-485
    bus: the two drivers share one ModbusBus (one lock, one connection)."""
    from pymodbus.datastore import ModbusServerContext, ModbusSimulatorContext
    from pymodbus.server import ModbusTcpServer

    from drivers.progressive import ProgressiveDriver
    from drivers.registers import PROGRESSIVE

    async def main():
        prog_store = ModbusSimulatorContext(peer_config(PROGRESSIVE, {"version": 1, "accepted.6": 1}), None)
        panel_store = ModbusSimulatorContext(peer_config(PANEL, {"version": 1, "boot_id": 5}), None)
        server = ModbusTcpServer(ModbusServerContext(devices={1: prog_store, 2: panel_store}, single=False),
                                 address=("127.0.0.1", 0))
        await server.serve_forever(background=True)
        url = f"tcp://127.0.0.1:{server.transport.sockets[0].getsockname()[1]}"
        prog, panel = ProgressiveDriver(url), PanelDriver(url)
        try:
            assert prog.bus is panel.bus and (prog.unit, panel.unit) == (1, 2)
            await prog.start()
            await panel.start()
            await prog.wait_health(Health.ONLINE, timeout=WAIT)
            await panel.wait_health(Health.ONLINE, timeout=WAIT)
            seq = peer_cell(PANEL, panel_store, "press_seq")
            seq.value = 1
            peer_cell(PANEL, panel_store, "count.no_more_bets").value = 1
            peer_cell(PANEL, panel_store, "ring.0").value = button_code("no_more_bets")
            assert (await panel.next_press(timeout=WAIT)).button == "no_more_bets"
            await asyncio.gather(*(prog.lock_out(True) for _ in range(5)), panel.set_light("deal", True))
            assert prog_store.registers[0].value & 1
            assert await prog.accepted_seats() == {6}
        finally:
            await prog.close()
            await panel.close()
            await server.shutdown()
        assert prog.bus._closed  # the last user closed the shared connection

    run(main)
