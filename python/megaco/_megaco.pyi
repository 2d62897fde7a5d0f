"""Type stubs of the native module (megaco._megaco)."""

import os
from typing import Any, Dict, Iterator, List, Literal, Optional, Sequence, Tuple, Union

__version__: str

Dialect = Literal["standard", "otp"]
WireEncoding = Literal["compact", "pretty", "ber", "per"]
Data = Union[bytes, bytearray, memoryview]
"""A message's bytes; a bytearray or memoryview is copied once."""

class MegacoError(ValueError):
    """Base class of the errors of this package."""

class DecodeError(MegacoError):
    """Bytes that do not decode."""

    codec: Optional[Literal["text", "ber", "per", "native"]]
    """The decoder that failed: "text", "ber" or "per". With encoding
    "auto" (and ``version_of`` without one) bytes no decoder was tried on:
    "native" for the native format (``megaco convert --to native``), which
    this package does not read, and None for bytes that are no Megaco
    message (no text, BER or PER signature, or empty); offset is then 0."""
    offset: int
    """0-based byte offset where the decoder stopped."""
    line: Optional[int]
    """For text: the 1-based line."""
    column: Optional[int]
    """For text: the 1-based column (in bytes)."""

class EncodeError(MegacoError):
    """A message that cannot be written in the encoding asked for."""

class JsonError(MegacoError):
    """A dict or JSON text that is not the megaco JSON form. ``path`` says
    where, as keys and indices from the document's root
    (``message.mess.body.transactions[0].request``); ``line`` and
    ``column`` are set for JSON text only (``from_json``), not for a dict."""

    line: Optional[int]
    column: Optional[int]
    path: Optional[str]

class CaptureError(OSError):
    """A capture file that cannot be opened, or is not pcap or pcapng. When
    the system refused it (missing, a directory, no permission), ``errno``,
    ``strerror`` and ``filename`` are set as in Python's own OSErrors."""

class Message:
    """One Megaco/H.248 message (any protocol version). Immutable: compares
    and hashes by value; copies are the message itself; pickles as its
    megaco JSON form."""

    @property
    def version(self) -> int: ...
    @property
    def mid(self) -> str:
        """The sender's mid in text form, e.g. ``[10.0.0.1]:2944``."""
    def to_dict(self) -> Dict[str, Any]:
        """``{"megaco_json": 1, "message": {...}}``, as ``megaco convert --to json`` prints."""
    def to_json(self) -> str: ...
    @staticmethod
    def from_dict(d: Dict[str, Any]) -> "Message": ...
    @staticmethod
    def from_json(text: str) -> "Message": ...
    def encode(
        self,
        encoding: WireEncoding,
        *,
        dialect: Dialect = "standard",
        levels: Optional[Sequence[int]] = None,
        native: bool = False,
    ) -> bytes: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __copy__(self) -> "Message": ...
    def __deepcopy__(self, memo: Any) -> "Message": ...
    def __reduce__(self) -> Tuple[Any, Tuple[str]]: ...

class Packet:
    """One H.248 message found in a capture."""

    number: int
    """The packet that completed it, numbered from 1 as Wireshark does."""
    time: float
    """Seconds since the epoch."""
    src: Tuple[str, int]
    dst: Tuple[str, int]
    transport: Literal["udp", "tcp", "sctp"]
    encoding: Literal["text", "ber", "per"]
    data: bytes
    message: Union[Message, DecodeError]
    """The decoded message, or the error that says why it did not decode."""
    @property
    def ok(self) -> bool: ...

class Problem:
    """Something in a capture that could not be read."""

    number: int
    """The packet concerned; for an error of the file itself (a record cut
    short, a corrupt block), the last packet read before it (0 if none was)."""
    time: float
    description: str

class PcapReader(Iterator[Packet]):
    problems: List[Problem]
    """What could not be read so far."""
    def __iter__(self) -> "PcapReader": ...
    def __next__(self) -> Packet: ...

def decode(
    data: Data,
    encoding: Literal["auto", "text", "pretty", "compact", "ber", "per"] = "auto",
    *,
    dialect: Dialect = "standard",
    levels: Optional[Sequence[int]] = None,
    native: bool = False,
) -> Message:
    """Decodes one message. For BER, ``dialect="standard"`` (the default)
    reads the values of both dialects; ``dialect="otp"`` reads OTP's raw
    values only and takes a standard-wrapped value for its raw octets."""
def encode(
    msg: Message,
    encoding: WireEncoding,
    *,
    dialect: Dialect = "standard",
    levels: Optional[Sequence[int]] = None,
    native: bool = False,
) -> bytes: ...
def sniff(data: Data) -> Optional[Literal["text", "ber", "per", "native"]]: ...
def version_of(data: Data, encoding: Optional[Literal["text", "pretty", "compact", "ber", "per"]] = None) -> int: ...
def transactions(
    data: Data,
    encoding: Literal["auto", "text", "pretty", "compact", "ber"] = "auto",
    *,
    dialect: Dialect = "standard",
    levels: Optional[Sequence[int]] = None,
    native: bool = False,
) -> List[Dict[str, Any]]:
    """The transactions of a text or BER message from its outline, without
    decoding it: one dict per transaction, `kind` ("request", "reply",
    "pending", "ack", "segment_reply") with `id`, and for a reply `error`
    (a code or None), `imm_ack_required`, `segment`, `complete`; for an
    ack `ranges` ([(first, last)]); for a segment reply `segment` and
    `complete`. A message whose whole body is an error descriptor gives
    [{"kind": "message_error", "error": code}]. The actions are skipped
    unread, so a message whose actions do not decode may still be read."""
def read_pcap(
    path: Union[str, "os.PathLike[str]"],
    *,
    ports: Optional[Sequence[int]] = None,
    sniff: bool = True,
    dialect: Dialect = "standard",
    levels: Optional[Sequence[int]] = None,
    native: bool = False,
) -> PcapReader: ...
