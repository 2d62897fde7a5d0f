"""decode -> to_dict -> from_dict -> encode gives Erlang/OTP's bytes back,
for every corpus vector of every codec; errors carry where they happened."""

import json

import pytest

import megaco

from conftest import vectors

# How each codec's vectors were written by Erlang/OTP: BER in OTP's dialect.
OPTIONS = {
    "pretty": {},
    "compact": {},
    "ber": {"dialect": "otp"},
    "per": {},
}


@pytest.mark.parametrize("codec", ["pretty", "compact", "ber", "per"])
def test_every_vector_round_trips_through_the_dict(codec):
    count = 0
    for name, data in vectors(codec):
        decoding = "text" if codec in ("pretty", "compact") else codec
        msg = megaco.decode(data, decoding, **OPTIONS[codec])
        d = msg.to_dict()
        assert d["megaco_json"] == 1
        # The dict is plain JSON data.
        again = megaco.Message.from_dict(json.loads(json.dumps(d)))
        assert again == msg, name
        assert again.encode(codec, **OPTIONS[codec]) == data, name
        assert megaco.encode(again, codec, **OPTIONS[codec]) == data, name
        count += 1
    assert count >= 149


def test_sniff_and_version_of(corpus):
    for codec, kind in [("pretty", "text"), ("compact", "text"), ("ber", "ber"), ("per", "per")]:
        for name, data in corpus(codec):
            assert megaco.sniff(data) == kind, name
            version = megaco.decode(data, dialect="otp").version
            assert megaco.version_of(data) == version, name
            assert megaco.version_of(data, "text" if kind == "text" else kind) == version
    assert megaco.sniff(b"GET / HTTP/1.1") is None


def test_auto_decoding_and_conversions():
    msg = megaco.decode(b"!/2 [10.0.0.1]:2944 T=9{C=-{N=11111111/00000000/00000001{OE=1{al/of}}}}")
    assert (msg.version, msg.mid) == (2, "[10.0.0.1]:2944")
    for codec in ["compact", "pretty", "ber", "per"]:
        data = megaco.encode(msg, codec)
        assert megaco.decode(data) == msg, codec
    assert megaco.encode(msg, "compact") == (
        b"!/2 [10.0.0.1]:2944\nT=9{C=-{N=11111111/00000000/00000001{OE=1{al/of}}}}"
    )
    # Termination-id levels and the native mapping (names as their ASN.1
    # codes) change the binary bytes.
    ber8 = megaco.encode(msg, "ber", dialect="otp")
    assert megaco.encode(msg, "ber", dialect="otp", levels=[8, 8, 8]) == ber8
    with pytest.raises(megaco.EncodeError, match="16"):
        megaco.encode(msg, "per", levels=[8, 8, 16])
    raw = megaco.decode(ber8, "ber", dialect="otp", native=True)
    assert raw != msg
    assert megaco.encode(raw, "ber", dialect="otp", native=True) == ber8
    assert megaco.Message.from_json(msg.to_json()) == msg
    assert "Notify" in str(msg) and repr(msg).startswith("<megaco.Message !/2")


def test_text_errors_carry_line_and_column():
    with pytest.raises(megaco.DecodeError) as e:
        megaco.decode(b"!/1 [10.0.0.1]\nT=1{C=x{}}")
    err = e.value
    assert (err.codec, err.offset, err.line, err.column) == ("text", 21, 2, 7)
    assert isinstance(err, ValueError) and isinstance(err, megaco.MegacoError)


def test_binary_errors_carry_the_offset(corpus):
    name, data = corpus("ber")[3]
    with pytest.raises(megaco.DecodeError) as e:
        megaco.decode(data[: len(data) // 2], "ber")
    assert e.value.codec == "ber"
    assert 0 <= e.value.offset <= len(data) // 2
    assert e.value.line is None and e.value.column is None
    with pytest.raises(megaco.DecodeError) as e:
        megaco.version_of(b"MEGACO/9 <mg>")
    assert e.value.codec == "text"


def test_encode_and_option_errors():
    v1 = megaco.decode(b"!/1 [10.0.0.1] T=1{C=-{AV=ROOT}}")
    d = v1.to_dict()
    # A version no codec speaks is refused on the way in.
    d["message"]["mess"]["version"] = 7
    with pytest.raises(megaco.JsonError, match="unsupported protocol version 7"):
        megaco.Message.from_dict(d)
    # BER holds a message without transactions; text cannot.
    bare = b"0\x13\xa1\x11\x80\x01\x01\xa1\x08\xa0\x06\x80\x04\n\x00\x00\x01\xa2\x02\xa1\x00"
    with pytest.raises(megaco.EncodeError):
        megaco.decode(bare, "ber").encode("compact")
    with pytest.raises(ValueError):
        v1.encode("xml")
    with pytest.raises(ValueError):
        v1.encode("ber", dialect="asn1")
    with pytest.raises(ValueError):
        v1.encode("per", levels=[])


def test_a_misspelt_key_is_an_error_not_a_lost_value():
    msg = megaco.decode(b"!/1 [10.0.0.1] T=1{C=-{AV=ROOT}}")
    d = msg.to_dict()
    command = d["message"]["mess"]["body"]["transactions"][0]["request"]["actions"][0]["command_requests"][0]
    command["optinal"] = True
    with pytest.raises(megaco.JsonError, match="unknown field `optinal`") as e:
        megaco.Message.from_dict(d)
    # Where, in the dict; no line or column of a text the caller never saw.
    path = "message.mess.body.transactions[0].request.actions[0].command_requests[0].optinal"
    assert e.value.path == path
    assert str(e.value).startswith(f"at {path}: ")
    assert (e.value.line, e.value.column) == (None, None)


def test_json_errors():
    with pytest.raises(megaco.JsonError) as e:
        megaco.Message.from_dict({"message": {}})
    assert "megaco_json" in str(e.value)
    with pytest.raises(megaco.JsonError) as e:
        megaco.Message.from_dict({"megaco_json": 2, "message": {}})
    assert "version 2" in str(e.value)
    with pytest.raises(megaco.JsonError) as e:
        megaco.Message.from_json('{"megaco_json": 1,\n "message": 5}')
    assert (e.value.line, e.value.path) == (2, "message")
    # Malformed JSON at the root: a position, no path.
    with pytest.raises(megaco.JsonError) as e:
        megaco.Message.from_json('{"megaco_json": 1 "message"')
    assert (e.value.line, e.value.column, e.value.path) == (1, 19, None)


def _from_model(d):
    """What `transactions` must say of a decoded message's dict."""
    out = []
    body = d["message"]["mess"]["body"]
    if "error" in body:
        out.append({"kind": "message_error", "error": body["error"]["error_code"]})
    for t in body.get("transactions", []):
        (kind, v), = t.items()
        if kind == "request":
            out.append({"kind": "request", "id": v["transaction_id"]})
        elif kind == "reply":
            result = v["result"]
            out.append({
                "kind": "reply",
                "id": v["transaction_id"],
                "error": result["error"]["error_code"] if "error" in result else None,
                "imm_ack_required": v["imm_ack_required"],
                "segment": v["segment_number"],
                "complete": v["segmentation_complete"],
            })
        elif kind == "pending":
            out.append({"kind": "pending", "id": v["transaction_id"]})
        elif kind == "response_ack":
            ranges = [(a["first_ack"], a["last_ack"] if a["last_ack"] is not None else a["first_ack"]) for a in v]
            out.append({"kind": "ack", "ranges": ranges})
        elif kind == "segment_reply":
            out.append({
                "kind": "segment_reply",
                "id": v["transaction_id"],
                "segment": v["segment_number"],
                "complete": v["segmentation_complete"],
            })
    return out


@pytest.mark.parametrize("codec", ["pretty", "compact", "ber"])
def test_transactions_agree_with_the_decoded_message(codec):
    count = 0
    for name, data in vectors(codec):
        expected = _from_model(megaco.decode(data, **OPTIONS[codec]).to_dict())
        assert megaco.transactions(data, **OPTIONS[codec]) == expected, name
        count += len(expected)
    assert count >= 149


def test_transactions_of_every_kind_and_errors():
    data = (b'!/3 [10.0.0.1] P=5/1/END{IA,C=1{A=a{M{TS{SI=IV}}},ER=400{"bad"}},C=2} '
            b"K{1,2-5} PN=4{} SM=7/2/& P=9{ER=402{}} T=3{C=1{N=a{OE=1{al/of}}}}")
    assert megaco.transactions(data) == [
        {"kind": "reply", "id": 5, "error": None, "imm_ack_required": True, "segment": 1, "complete": True},
        {"kind": "ack", "ranges": [(1, 1), (2, 5)]},
        {"kind": "pending", "id": 4},
        {"kind": "segment_reply", "id": 7, "segment": 2, "complete": True},
        {"kind": "reply", "id": 9, "error": 402, "imm_ack_required": False, "segment": None, "complete": False},
        {"kind": "request", "id": 3},
    ]
    assert megaco.transactions(b'!/1 [1.2.3.4] ER=400{"x"}') == [{"kind": "message_error", "error": 400}]
    # The actions are not read: a request whose action is not H.248 still
    # gives its id; a broken header is an error that says where.
    assert megaco.transactions(b"!/1 [10.0.0.1] T=8{C=1{no such command}}") == [{"kind": "request", "id": 8}]
    with pytest.raises(megaco.DecodeError) as e:
        megaco.transactions(b"!/1 [10.0.0.1] T=x{C=1{}}")
    assert e.value.offset == 17
    # PER has no outline: sniffed as neither text nor BER, it is refused.
    _, per = next(iter(vectors("per")))
    with pytest.raises(megaco.DecodeError):
        megaco.transactions(per)
    with pytest.raises(ValueError):
        megaco.transactions(data, "per")


# What `megaco convert --to native` writes for this message (the native
# format, header byte 0xa0), which this package does not read.
NATIVE = bytes.fromhex("a0000100010203040180170101000101000000010504524f4f540000000000")


def test_auto_names_what_it_cannot_read_instead_of_a_per_error():
    # Bytes with no signature: not "PER ... unsupported protocol version".
    for data, shown in [
        (b"garbage", '"garbage"'),
        (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", '"GET / HTTP/1.1\\r\\n"…'),
        (b"\xee\x01\x02\x03", "ee 01 02 03"),
        (b"\xef\xbb\xbf!/1 [10.0.0.1] T=1{}", "byte-order mark"),
    ]:
        with pytest.raises(megaco.DecodeError) as e:
            megaco.decode(data)
        err = e.value
        assert str(err).startswith("not a Megaco message (it starts "), str(err)
        assert shown in str(err), str(err)
        assert "PER" not in str(err).split("which")[0]
        assert (err.codec, err.offset, err.line, err.column) == (None, 0, None, None)
    with pytest.raises(megaco.DecodeError, match="^empty: not a Megaco message$"):
        megaco.decode(b"")
    # The native format is named, with the way to read it.
    assert megaco.sniff(NATIVE) == "native"
    with pytest.raises(megaco.DecodeError) as e:
        megaco.decode(NATIVE)
    assert e.value.codec == "native" and e.value.offset == 0
    assert "native format" in str(e.value) and "does not read" in str(e.value)
    # The same sniffing for the outline and the version.
    for call in (megaco.transactions, megaco.version_of):
        with pytest.raises(megaco.DecodeError, match="^not a Megaco message"):
            call(b"garbage")
        with pytest.raises(megaco.DecodeError, match="native format"):
            call(NATIVE)
    # A named encoding is still tried as asked, and says what failed.
    with pytest.raises(megaco.DecodeError) as e:
        megaco.decode(b"garbage", "per")
    assert e.value.codec == "per"


def test_decode_error_codec_takes_the_documented_values(corpus):
    seen = set()
    _, ber = corpus("ber")[0]
    _, per = corpus("per")[0]
    for data, encoding in [
        (b"!/1 [10.0.0.1] T=x{}", "auto"),
        (ber[:5], "auto"),
        (per[:3], "per"),
        (NATIVE, "auto"),
        (b"\x01", "auto"),
    ]:
        with pytest.raises(megaco.DecodeError) as e:
            megaco.decode(data, encoding)
        seen.add(e.value.codec)
    assert seen == {"text", "ber", "per", "native", None}


def test_the_module_docstring_examples_run():
    import doctest

    result = doctest.testmod(megaco)
    assert result.attempted >= 3
    assert result.failed == 0


def test_mid_is_read_from_the_model_even_without_transactions(corpus):
    # Every vector: the mid as the compact text encoder writes it.
    for name, data in corpus("compact"):
        msg = megaco.decode(data)
        assert msg.mid == data.split()[1].decode(), name
    # A BER message with no transaction decodes; text cannot hold it, but
    # its mid is still there.
    bare = b"0\x13\xa1\x11\x80\x01\x01\xa1\x08\xa0\x06\x80\x04\n\x00\x00\x01\xa2\x02\xa1\x00"
    msg = megaco.decode(bare, "ber")
    assert msg.mid == "[10.0.0.1]"
    with pytest.raises(megaco.EncodeError):
        msg.encode("compact")


def test_the_outline_of_per_bytes_is_a_decode_error_with_its_attributes():
    per = megaco.encode(megaco.decode(b"!/1 [1.1.1.1] T=1{C=-{AV=ROOT}}"), "per")
    with pytest.raises(megaco.DecodeError) as e:
        megaco.transactions(per)
    assert (e.value.codec, e.value.offset, e.value.line, e.value.column) == ("per", 0, None, None)
    assert "decode() reads PER" in str(e.value)


def test_bytearray_and_memoryview_read_as_bytes(corpus):
    _, text = corpus("compact")[0]
    _, ber = corpus("ber")[0]
    for data, options in [(text, {}), (ber, {"dialect": "otp"})]:
        want = megaco.decode(data, **options)
        for view in (bytearray(data), memoryview(data), memoryview(b"xx" + data)[2:]):
            assert megaco.decode(view, **options) == want
            assert megaco.sniff(view) == megaco.sniff(data)
            assert megaco.version_of(view) == want.version
            assert megaco.transactions(view, **options) == megaco.transactions(data, **options)
    for wrong in ["!/1 [10.0.0.1] T=1{}", None, 5, [1, 2]]:
        with pytest.raises(TypeError, match="expected bytes, bytearray or memoryview, not "):
            megaco.decode(wrong)


def test_levels_out_of_range_name_the_argument():
    msg = megaco.decode(b"!/1 [10.0.0.1] T=1{C=-{AV=ROOT}}")
    for bad in ([256], [8, -1]):
        with pytest.raises(ValueError, match=r"^levels \[.*\]: -?\d+ is out of range"):
            msg.encode("ber", levels=bad)


def test_a_message_hashes_copies_and_pickles_by_value():
    import copy
    import pickle

    a = megaco.decode(b"!/1 [10.0.0.1] T=1{C=-{AV=ROOT}}")
    b = megaco.decode(megaco.encode(a, "ber"))
    c = megaco.decode(b"!/1 [10.0.0.1] T=2{C=-{AV=ROOT}}")
    assert a == b and hash(a) == hash(b)
    assert len({a, b, c}) == 2
    assert copy.copy(a) is a and copy.deepcopy(a) is a
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(c, protocol))
        assert back == c and back.encode("compact") == c.encode("compact")
