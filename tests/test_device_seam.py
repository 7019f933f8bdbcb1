"""The device seam (drivers/device.py, drivers/health.py, simulators/control.py): every device type of
the registry has a driver that is a Device, a simulator and a configuration key; the one health
implementation; the one re-cancel helper; the one control protocol, where a reply without "ok" is
an error."""

from __future__ import annotations

import asyncio
import importlib.util
import json

import pytest

from controller.config.table import DevicesConfig
from devices import run
from drivers.device import DEVICE_TYPES, DEVICES, Device, Link
from drivers.health import DeviceHealth, Health, stop_task
from simulators.control import AsyncControlClient, ControlError, read_reply, serve_control

UNREACHABLE = {Link.SERIAL: "socket://127.0.0.1:9", Link.MODBUS: "tcp://127.0.0.1:9"}


def test_every_device_type_has_a_driver_a_simulator_and_a_config_key():
    assert list(DEVICES) == [t.name for t in DEVICE_TYPES]
    assert set(DEVICES) == set(DevicesConfig.model_fields)  # devices.NAME for every type, and no other

    async def main() -> None:
        for t in DEVICE_TYPES:
            assert importlib.util.find_spec(t.simulator) is not None, t.simulator
            dev = t.driver()(UNREACHABLE[t.link])  # constructed, never started: nothing is opened
            try:
                assert isinstance(dev, Device) and isinstance(dev, DeviceHealth), t.name
                assert dev.health is Health.OFFLINE
            finally:
                await dev.close()

    run(main())


def test_link_endpoints_name_what_the_unit_may_open():
    assert Link.SERIAL.endpoint("/dev/ttyUSB0") == ("device", "/dev/ttyUSB0")
    assert Link.SERIAL.endpoint("socket://10.0.0.5:7101") == ("host", "10.0.0.5")
    assert Link.MODBUS.endpoint("rtu:///dev/ttyUSB1?baud=19200") == ("device", "/dev/ttyUSB1")
    assert Link.MODBUS.endpoint("tcp://10.0.0.6:502") == ("host", "10.0.0.6")


class _Health(DeviceHealth):
    name = "test"


def test_health_tells_listeners_and_waiters_of_changes_only():
    async def main() -> None:
        dev = _Health()
        seen: list[tuple[Health, str]] = []
        remove = dev.add_health_listener(lambda h, reason: seen.append((h, reason)))
        waiter = asyncio.ensure_future(dev.wait_health(Health.DEGRADED))
        await asyncio.sleep(0)
        dev._set_health(Health.ONLINE, "answering")
        dev._set_health(Health.ONLINE, "answering still")  # same state: a better reason, nobody told
        assert not waiter.done() and dev.health_reason == "answering still"
        dev._set_health(Health.DEGRADED, "retry needed")
        assert await asyncio.wait_for(waiter, 1) is Health.DEGRADED
        remove()
        dev._set_health(Health.OFFLINE, "gone")
        assert seen == [(Health.ONLINE, "answering"), (Health.DEGRADED, "retry needed")]
        with pytest.raises(TimeoutError):
            await dev.wait_health(Health.ONLINE, timeout=0.01)

    run(main())


def test_stop_task_cancels_again_a_task_that_swallowed_the_first_cancel():
    async def main() -> None:
        swallowed = asyncio.Event()

        async def stubborn() -> None:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                swallowed.set()  # as asyncio.wait_for can on 3.11: the cancel is lost
            await asyncio.Event().wait()

        task = asyncio.ensure_future(stubborn())
        await asyncio.sleep(0)
        assert await stop_task(task, wait=0.01)
        assert swallowed.is_set() and task.cancelled()

        cancels = 0

        async def lingering() -> None:  # swallows ten cancels, then ends
            nonlocal cancels
            while cancels < 10:
                try:
                    await asyncio.Event().wait()
                except asyncio.CancelledError:
                    cancels += 1

        task = asyncio.ensure_future(lingering())
        await asyncio.sleep(0)
        assert await stop_task(task, wait=0.01, attempts=2) is False  # a caller that cannot wait forever
        await asyncio.sleep(0)
        assert not task.done() and cancels == 3  # cancelled, then again after each wait
        assert await stop_task(task, wait=0.01) and task.done() and cancels == 10

    run(main())


@pytest.mark.parametrize("line, refused", [
    (b'{"ok": false, "error": "ControlError: unknown fault"}\n', True),
    (b'{"accepted": true}\n', True),  # no "ok": an error, never a success
    (b'{"ok": "yes"}\n', True),
    (b"[1]\n", False),
    (b"not json\n", False),
    (b"", False),
])
def test_a_reply_without_ok_true_is_an_error(line, refused):
    with pytest.raises(ControlError) as caught:
        read_reply("tcp://127.0.0.1:1", "wager", line)
    assert caught.value.refused is refused
    assert read_reply("tcp://127.0.0.1:1", "wager", b'{"ok": true, "accepted": true}\n') == {"accepted": True}


def test_control_server_and_client_round_trip():
    async def handler(cmd: str, args: dict) -> dict:
        if cmd == "add":
            return {"sum": int(args["a"]) + int(args["b"])}
        raise ControlError(f"unknown command {cmd!r}")

    async def main() -> None:
        server, url = await serve_control(handler)
        async with server, AsyncControlClient(url) as client:
            assert await client("add", a=2, b=3) == {"sum": 5}
            with pytest.raises(ControlError) as caught:
                await client("nope")
            assert caught.value.refused and "unknown command" in str(caught.value)
            with pytest.raises(ControlError) as caught:
                await client("add", a=1)  # a missing argument is a refusal naming its kind
            assert caught.value.refused and "KeyError" in str(caught.value)
            reader, writer = await asyncio.open_connection(*client.address)
            writer.write(b'{"no": "cmd"}\n')
            reply = json.loads(await reader.readline())
            writer.close()
            assert reply["ok"] is False and "cmd" in reply["error"]

    run(main())
