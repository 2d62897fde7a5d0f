"""Megaco/H.248 (ITU-T H.248.1 v1-v3, RFC 3525) messages in Python.

Decode and encode text (pretty and compact), ASN.1 BER (standard and
Erlang/OTP dialects) and aligned PER; convert messages to and from the
megaco JSON form; read the H.248 messages of pcap and pcapng captures.

    >>> import megaco
    >>> msg = megaco.decode(b"!/1 [10.0.0.1]:2944 T=9{C=-{N=11111111/00000000/00000001{OE=1{al/of}}}}")
    >>> msg.version, msg.mid
    (1, '[10.0.0.1]:2944')
    >>> megaco.decode(megaco.encode(msg, "ber")) == msg
    True
"""

from ._megaco import (
    CaptureError,
    DecodeError,
    EncodeError,
    JsonError,
    MegacoError,
    Message,
    Packet,
    PcapReader,
    Problem,
    __version__,
    decode,
    encode,
    read_pcap,
    sniff,
    transactions,
    version_of,
)

__all__ = [
    "CaptureError",
    "DecodeError",
    "EncodeError",
    "JsonError",
    "MegacoError",
    "Message",
    "Packet",
    "PcapReader",
    "Problem",
    "__version__",
    "decode",
    "encode",
    "read_pcap",
    "sniff",
    "transactions",
    "version_of",
]
