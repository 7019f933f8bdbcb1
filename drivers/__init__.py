"""The device drivers: the table's devices in bytes and registers, no rules (docs/protocols.md).

One driver per device type, each a ``drivers.device.Device``; the serial link in its layers (``framing``,
``frame_link``, ``serial_protocol``, ``serial_link``) and the Modbus bus (``modbus``, ``registers``) beneath them.
"""
