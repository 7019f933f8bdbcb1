"""Frames of the table's serial devices (shuffler, dealing shoe), and the one-byte card code both share.

A frame is ``SOF LEN ~LEN SEQ TYPE PAYLOAD CRC-16`` (docs/protocols-serial.md §2).  ``FrameDecoder`` is
incremental and never raises on bad input: a false start loses only its start byte, so every complete,
CRC-valid frame in the stream is recovered in order (§2.1; the property tests of ``tests/test_framing.py``);
the rare false candidate that passes the CRC and hides a real frame is recovered by the retransmissions of
``drivers.frame_link``.
"""

from __future__ import annotations

from dataclasses import dataclass

SOF = 0xA5
HEADER_LEN = 5  # SOF LEN ~LEN SEQ TYPE
CRC_LEN = 2
OVERHEAD = HEADER_LEN + CRC_LEN
MAX_PAYLOAD = 255
MAX_FRAME = OVERHEAD + MAX_PAYLOAD


def _make_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_CRC_TABLE = _make_table()


def crc16_ccitt_false(data: bytes | bytearray | memoryview, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE; ``crc16_ccitt_false(b"123456789") == 0x29B1``."""
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc


@dataclass(frozen=True, slots=True)
class Frame:
    """A frame that passed its CRC."""

    seq: int
    type: int
    payload: bytes = b""

    def encode(self) -> bytes:
        return encode_frame(self.seq, self.type, self.payload)


@dataclass(frozen=True, slots=True)
class BadFrame:
    """A candidate with a plausible header whose CRC failed.

    ``seq`` and ``type`` are as read and may themselves be corrupt: the link
    uses ``seq`` only as a hint for a NAK.
    """

    seq: int
    type: int


def encode_frame(seq: int, type_: int, payload: bytes = b"") -> bytes:
    if not 0 <= seq <= 0xFF or not 0 <= type_ <= 0xFF:
        raise ValueError(f"seq and type are one byte each, got seq={seq} type={type_}")
    n = len(payload)
    if n > MAX_PAYLOAD:
        raise ValueError(f"payload of {n} bytes exceeds {MAX_PAYLOAD}")
    body = bytes((n, n ^ 0xFF, seq, type_)) + bytes(payload)
    crc = crc16_ccitt_false(body)
    return bytes((SOF,)) + body + bytes((crc >> 8, crc & 0xFF))


@dataclass(slots=True)
class DecoderStats:
    bytes_in: int = 0
    frames: int = 0
    garbage_bytes: int = 0  # bytes discarded: never part of a good frame
    false_starts: int = 0  # start markers whose ~LEN did not match
    crc_errors: int = 0  # plausible headers whose CRC failed
    abandoned: int = 0  # incomplete candidates dropped by flush()


class FrameDecoder:
    """Incremental frame decoder: feed any chunks, get frames back, never raises."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self.stats = DecoderStats()

    @property
    def pending(self) -> int:
        """Bytes held back waiting for the rest of a candidate frame."""
        return len(self._buf)

    def feed(self, data: bytes | bytearray | memoryview) -> list[Frame | BadFrame]:
        self.stats.bytes_in += len(data)
        self._buf += data
        out: list[Frame | BadFrame] = []
        self._scan(out)
        return out

    def flush(self) -> list[Frame | BadFrame]:
        """No more bytes are coming for now: abandon incomplete candidates.

        Each incomplete candidate loses only its start byte; the bytes after
        it are scanned again, so a whole frame after a false start with a
        large length is still recovered.  Afterwards nothing is pending.
        """
        out: list[Frame | BadFrame] = []
        self._scan(out)
        while self._buf:
            self.stats.abandoned += 1
            self._drop(1)
            self._scan(out)
        return out

    def _drop(self, n: int) -> None:
        self.stats.garbage_bytes += n
        del self._buf[:n]

    def _scan(self, out: list[Frame | BadFrame]) -> None:
        buf = self._buf
        stats = self.stats
        while buf:
            start = buf.find(SOF)
            if start < 0:
                self._drop(len(buf))
                return
            if start:
                self._drop(start)
            if len(buf) < 3:
                return
            n = buf[1]
            if buf[2] != n ^ 0xFF:
                stats.false_starts += 1
                self._drop(1)
                continue
            total = OVERHEAD + n
            if len(buf) < total:
                return
            crc = (buf[total - 2] << 8) | buf[total - 1]
            if crc16_ccitt_false(memoryview(buf)[1 : total - 2]) != crc:
                stats.crc_errors += 1
                out.append(BadFrame(buf[3], buf[4]))
                self._drop(1)
                continue
            out.append(Frame(buf[3], buf[4], bytes(buf[HEADER_LEN : total - 2])))
            stats.frames += 1
            del buf[:total]


# --------------------------------------------------------------------------
# Card code: one byte, rank in the high nibble (2..14, ace high), suit in the
# low nibble (0 clubs, 1 diamonds, 2 hearts, 3 spades).  As = 0xE3, 2c = 0x20.
# 0x00 means "no card" (e.g. an unreadable card); every other value is refused.
# Wherever a card is reported it is followed by a flags byte (CARD_FACE_UP,
# CARD_UNREADABLE).

RANKS = "23456789TJQKA"
CARD_FACE_UP = 0x01  # card flags byte, sent after each card code
CARD_UNREADABLE = 0x02  # the reader could not read the card; its code is NO_CARD
SUITS = "cdhs"
NO_CARD = 0x00


def encode_card(text: str) -> int:
    if len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
        raise ValueError(f"not a card: {text!r}")
    return ((RANKS.index(text[0]) + 2) << 4) | SUITS.index(text[1])


def decode_card(code: int) -> str:
    rank, suit = code >> 4, code & 0x0F
    if not 2 <= rank <= 14 or suit > 3:
        raise ValueError(f"not a card code: 0x{code:02X}")
    return RANKS[rank - 2] + SUITS[suit]
