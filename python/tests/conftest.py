"""Shared by the tests: the repository's corpus vectors and a small pcap writer."""

import pathlib
import struct

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
VECTORS = ROOT / "corpus" / "vectors"

CODECS = {"pretty": ".txt", "compact": ".txt", "ber": ".ber", "per": ".per"}


def vectors(codec):
    """(name, bytes) of every vector of one codec, sorted by name."""
    files = sorted((VECTORS / codec).glob("*" + CODECS[codec]))
    assert len(files) >= 149, f"{codec}: {len(files)} vectors"
    return [(f.stem, f.read_bytes()) for f in files]


@pytest.fixture
def corpus():
    return vectors


def _checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s > 0xFFFF:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def udp_frame(src, dst, payload):
    """An Ethernet/IPv4/UDP frame; src and dst are (address, port)."""
    sa = bytes(int(x) for x in src[0].split("."))
    da = bytes(int(x) for x in dst[0].split("."))
    udp = struct.pack("!HHHH", src[1], dst[1], 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0, sa, da)
    ip = ip[:10] + struct.pack("!H", _checksum(ip)) + ip[12:]
    return b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + ip + udp


def pcap(frames, cut_last=0):
    """A pcap file (microsecond timestamps) of Ethernet frames 1 ms apart;
    `cut_last` bytes are missing from the end of the file."""
    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1)
    for i, f in enumerate(frames):
        out += struct.pack("<IIII", 1_700_000_000, i * 1000, len(f), len(f)) + f
    return out[: len(out) - cut_last] if cut_last else out
