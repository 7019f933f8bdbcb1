"""Simulated devices for tests and ``make run``: each a process of its own, speaking the real protocol.

A control port (``simulators.control``) drives each device's physical side and injects faults
(docs/protocols-serial.md §9, docs/protocols-modbus.md §7).
"""
