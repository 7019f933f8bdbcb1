"""The serial framing (drivers/framing.py) and the link's ARQ (drivers/frame_link.FrameLink)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from devices import run
from drivers.frame_link import FrameLink, LinkTimeout
from drivers.framing import (
    MAX_FRAME,
    SOF,
    BadFrame,
    Frame,
    FrameDecoder,
    crc16_ccitt_false,
    decode_card,
    encode_card,
    encode_frame,
)
from drivers.serial_protocol import HELLO

# -- the frame


def test_crc_is_ccitt_false():
    assert crc16_ccitt_false(b"123456789") == 0x29B1  # the catalogue check value
    assert crc16_ccitt_false(b"") == 0xFFFF


def test_frame_layout():
    raw = encode_frame(7, 0x21, b"\x05")
    assert raw[:6] == bytes((SOF, 1, 0xFE, 7, 0x21, 5))
    assert int.from_bytes(raw[6:], "big") == crc16_ccitt_false(raw[1:6])
    with pytest.raises(ValueError):
        encode_frame(0, 1, bytes(256))


def test_byte_at_a_time_and_back_to_back():
    frames = [Frame(i, 0x40 + i, bytes(range(i * 7))) for i in range(5)]
    stream = b"".join(f.encode() for f in frames)
    dec = FrameDecoder()
    got = [item for b in stream for item in dec.feed(bytes((b,)))]
    assert got == frames
    assert dec.pending == 0 and dec.stats.garbage_bytes == 0


def test_bad_crc_is_reported_then_skipped():
    good = encode_frame(1, 0x20)
    bad = bytearray(encode_frame(9, 0x21, b"abc"))
    bad[-1] ^= 0x01
    dec = FrameDecoder()
    assert dec.feed(bytes(bad) + good) == [BadFrame(9, 0x21), Frame(1, 0x20)]
    assert dec.stats.crc_errors == 1


def test_false_start_with_huge_length_waits_then_is_abandoned_on_flush():
    good = encode_frame(3, 0x30, b"xy")
    dec = FrameDecoder()
    # garbage: a start marker with a consistent ~LEN claiming 200 bytes, swallowing the good frame
    assert dec.feed(bytes((SOF, 200, 200 ^ 0xFF)) + good) == []
    assert dec.pending == 3 + len(good)
    assert dec.flush() == [Frame(3, 0x30, b"xy")]
    assert dec.pending == 0 and dec.stats.garbage_bytes == 3 and dec.stats.abandoned == 1


def test_card_codes():
    assert encode_card("As") == 0xE3 and encode_card("2c") == 0x20 and encode_card("Td") == 0xA1
    every = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    assert [decode_card(encode_card(c)) for c in every] == every
    for bad in (0x00, 0x13, 0xF0, 0x24, 0xFF):
        with pytest.raises(ValueError):
            decode_card(bad)
    for bad in ("10s", "as", "A", "Ax"):
        with pytest.raises(ValueError):
            encode_card(bad)


# -- properties of the decoder

frames_st = st.builds(
    Frame,
    seq=st.integers(0, 255),
    type=st.integers(0, 255),
    payload=st.one_of(st.binary(max_size=24), st.binary(min_size=200, max_size=255)),
)


def _cut(f: Frame, k: int) -> bytes:
    raw = f.encode()
    return raw[: 1 + k % (len(raw) - 1)]


def _corrupt(f: Frame, k: int) -> bytes:
    raw = bytearray(f.encode())
    i = 1 + k % (len(raw) - 1)
    raw[i] ^= 1 + (k >> 8) % 255
    return bytes(raw)


garbage_st = st.one_of(
    st.binary(max_size=40),
    # dense in start markers and in bytes that look like lengths
    st.lists(st.sampled_from([SOF, 0x00, 0xFF, 0x5A, 0x01, 0xFE]), max_size=24).map(bytes),
    # a false start with a consistent ~LEN: it claims the bytes after it, real frames included
    st.tuples(st.integers(0, 255), st.binary(max_size=8)).map(lambda t: bytes((SOF, t[0], t[0] ^ 0xFF)) + t[1]),
    # a frame cut short (a byte lost on the line)
    st.tuples(frames_st, st.integers(0, 10_000)).map(lambda t: _cut(*t)),
    # a frame with a corrupted byte
    st.tuples(frames_st, st.integers(0, 1 << 16)).map(lambda t: _corrupt(*t)),
)


def reference_scan(stream: bytes) -> list[tuple[int, Frame]]:
    """The decoder's specification, on a whole stream: at each offset, if a
    complete frame with a matching ~LEN and CRC starts there, take it and
    continue after it; otherwise move on by ONE byte."""
    out = []
    i = 0
    while i < len(stream):
        if stream[i] == SOF and i + 3 <= len(stream):
            n = stream[i + 1]
            end = i + 7 + n
            if stream[i + 2] == n ^ 0xFF and end <= len(stream):
                if crc16_ccitt_false(stream[i + 1 : end - 2]) == int.from_bytes(stream[end - 2 : end], "big"):
                    out.append((i, Frame(stream[i + 3], stream[i + 4], stream[i + 5 : end - 2])))
                    i = end
                    continue
        i += 1
    return out


def _feed_in_chunks(stream: bytes, cuts: list[int]) -> list[Frame | BadFrame]:
    dec = FrameDecoder()
    out: list[Frame | BadFrame] = []
    points = sorted({c % (len(stream) + 1) for c in cuts} | {0, len(stream)})
    for a, b in itertools.pairwise(points):
        out += dec.feed(stream[a:b])
        assert dec.pending < MAX_FRAME  # memory stays bounded whatever comes
    out += dec.flush()
    assert dec.pending == 0
    return out


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    parts=st.lists(st.tuples(garbage_st, frames_st), max_size=6),
    tail=garbage_st,
    cuts=st.lists(st.integers(0, 4000), max_size=12),
)
def test_frames_in_garbage_are_all_recovered_in_order(parts, tail, cuts):
    """What is guaranteed, precisely:

    1. The frames decoded from a stream are exactly those of
       ``reference_scan`` (leftmost complete CRC-valid candidate, else skip
       ONE byte), however the stream is cut into chunks, provided the
       decoder is flushed at the end (the link flushes after an
       inter-character timeout).
    2. Hence every valid frame embedded in garbage is recovered, in order --
       unless a false candidate starting in the garbage and overlapping it
       passes the ~LEN and CRC checks (1 in 2^24 for a random start marker
       in the garbage, 1 in 2^16 for one whose ~LEN happens to match).  Such a stream is excluded with ``assume``;
       on the line the ARQ recovers the frame by retransmission.
    """
    stream = b""
    starts = set()
    embedded = []
    for garbage, frame in parts:
        stream += garbage
        starts.add(len(stream))
        stream += frame.encode()
        embedded.append(frame)
    stream += tail
    decoded = [x for x in _feed_in_chunks(stream, cuts) if isinstance(x, Frame)]
    spec = reference_scan(stream)
    assert decoded == [f for _, f in spec]
    assume(all(pos in starts for pos, _ in spec))  # no false candidate passed the CRC
    assert decoded == embedded


@settings(max_examples=300, deadline=None)
@given(chunks=st.lists(st.one_of(st.binary(max_size=64), garbage_st), max_size=20))
def test_any_bytes_never_raise_and_every_byte_is_accounted_for(chunks):
    dec = FrameDecoder()
    out = []
    for chunk in chunks:
        out += dec.feed(chunk)
    out += dec.flush()
    good = [x for x in out if isinstance(x, Frame)]
    assert dec.stats.bytes_in == sum(map(len, chunks))
    assert dec.stats.garbage_bytes + sum(len(f.encode()) for f in good) == dec.stats.bytes_in
    assert dec.stats.frames == len(good)


# -- the link (ARQ) over an in-memory line with faults

Fault = str  # "ok" | "drop" | "corrupt" | "dup" | "garbage" | "split"


class Line(asyncio.Transport):
    """One direction of a line: writes reach the peer in order, through the faults given."""

    def __init__(self, faults: list[Fault] | Callable[[int], Fault] = ()) -> None:
        super().__init__()
        self.peer: FrameLink | None = None
        self.faults = faults
        self.writes = 0
        self._loop = asyncio.get_running_loop()

    def fault(self, k: int) -> Fault:
        if callable(self.faults):
            return self.faults(k)
        return self.faults[k] if k < len(self.faults) else "ok"

    def write(self, data: bytes) -> None:
        fault = self.fault(self.writes)
        self.writes += 1
        if fault == "drop":
            return
        if fault == "corrupt":
            data = data[:-1] + bytes((data[-1] ^ 0x55,))
        if fault == "garbage":
            data = bytes((SOF, 0x30, 0xCF, 0x11)) + data
        pieces = (
            [data, data]
            if fault == "dup"
            else [data[i : i + 1] for i in range(len(data))]
            if fault == "split"
            else [data]
        )
        for piece in pieces:
            self._loop.call_soon(self._deliver, piece)

    def _deliver(self, data: bytes) -> None:
        if self.peer is not None and not self.peer.is_closed:
            self.peer.data_received(data)

    def close(self) -> None:
        if self.peer is not None:
            self.peer = None


def pair(faults_ab=(), faults_ba=(), **kw):
    got_a: list[Frame] = []
    got_b: list[Frame] = []
    a = FrameLink(got_a.append, name="a", **kw)
    b = FrameLink(got_b.append, name="b", **kw)
    ab, ba = Line(faults_ab), Line(faults_ba)
    ab.peer, ba.peer = b, a
    a.connection_made(ab)
    b.connection_made(ba)
    return a, b, got_a, got_b, ab, ba


faults_st = st.lists(st.sampled_from(["ok", "ok", "drop", "corrupt", "dup", "garbage", "split"]), max_size=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    faults_ab=faults_st,
    faults_ba=faults_st,
    n_ab=st.integers(0, 6),
    n_ba=st.integers(0, 6),
)
def test_arq_delivers_every_message_once_in_order(faults_ab, faults_ba, n_ab, n_ba):
    """Lost, corrupted, repeated, split or garbled frames, both ways at once:
    each side receives exactly the messages the other sent, in order."""

    async def main():
        # ack_timeout only sets the pace; retries are enough to outlast every fault listed
        a, b, got_a, got_b, _, _ = pair(faults_ab, faults_ba, ack_timeout=0.02, max_retries=40, idle_flush=0.01)

        async def send(link, n, tag):
            for i in range(n):
                await link.send(0x40, bytes((tag, i)))

        await asyncio.gather(send(a, n_ab, 1), send(b, n_ba, 2))
        assert [f.payload for f in got_b] == [bytes((1, i)) for i in range(n_ab)]
        assert [f.payload for f in got_a] == [bytes((2, i)) for i in range(n_ba)]

    run(main())


def test_no_ack_gives_up_after_bounded_retries():
    async def main():
        a, _, _, _, ab, _ = pair(lambda k: "drop", ack_timeout=0.01, max_retries=3)
        with pytest.raises(LinkTimeout):
            await a.send(0x40, b"x")
        assert ab.writes == 4 and a.stats.retransmissions == 3 and a.stats.send_failures == 1

    run(main())


def test_nak_makes_the_sender_repeat_at_once():
    async def main():
        # a 30 s ACK timeout: only the NAK can make the retransmission happen within the test
        a, b, _, got_b, _, _ = pair(["corrupt"], ack_timeout=30, max_retries=1)
        await asyncio.wait_for(a.send(0x40, b"x"), 5)
        assert [f.payload for f in got_b] == [b"x"]
        assert b.stats.naks_sent == 1 and a.stats.naks_received == 1 and a.stats.retransmissions == 1

    run(main())


def test_duplicate_is_acknowledged_again_but_not_delivered_twice():
    async def main():
        a, b, _, got_b, _, ba = pair(faults_ba=["drop"], ack_timeout=0.02, max_retries=5)
        await a.send(0x40, b"once")  # b's first ACK is lost: a repeats, b drops the repeat and ACKs again
        assert [f.payload for f in got_b] == [b"once"]
        assert b.stats.duplicates == 1 and ba.writes == 2

    run(main())


def test_hello_starts_a_new_session():
    async def main():
        got: list[Frame] = []
        b = FrameLink(got.append, name="b")
        b.connection_made(Line())
        b.data_received(encode_frame(0, 0x40, b"old"))
        b.data_received(encode_frame(0, 0x40, b"old"))  # a repeat: dropped
        b.data_received(encode_frame(0, HELLO, b"\x01"))  # a restarted controller, seq 0 again: delivered
        b.data_received(encode_frame(1, 0x40, b"new"))
        assert [f.payload for f in got] == [b"old", b"\x01", b"new"]
        assert b.stats.duplicates == 1

    run(main())


def test_idle_flush_recovers_a_frame_behind_a_false_start():
    async def main():
        got = asyncio.get_running_loop().create_future()
        link = FrameLink(lambda f: got.set_result(f), idle_flush=0.01)
        link.connection_made(Line())
        link.data_received(bytes((SOF, 250, 250 ^ 0xFF)) + encode_frame(5, 0x40, b"late"))
        frame = await asyncio.wait_for(got, 5)
        assert frame.payload == b"late" and link.decoder.stats.abandoned == 1

    run(main())
