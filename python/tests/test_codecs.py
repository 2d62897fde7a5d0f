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
    d["message"]["mess"]["version"] = 7
    with pytest.raises(megaco.EncodeError):
        megaco.Message.from_dict(d).encode("ber")
    with pytest.raises(ValueError):
        v1.encode("xml")
    with pytest.raises(ValueError):
        v1.encode("ber", dialect="asn1")
    with pytest.raises(ValueError):
        v1.encode("per", levels=[])


def test_json_errors():
    with pytest.raises(megaco.JsonError) as e:
        megaco.Message.from_dict({"message": {}})
    assert "megaco_json" in str(e.value)
    with pytest.raises(megaco.JsonError) as e:
        megaco.Message.from_dict({"megaco_json": 2, "message": {}})
    assert "version 2" in str(e.value)
    with pytest.raises(megaco.JsonError) as e:
        megaco.Message.from_json('{"megaco_json": 1,\n "message": 5}')
    assert e.value.line == 2
