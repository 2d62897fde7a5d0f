"""read_pcap: the H.248 messages of a capture in capture order, with their
packet, time, addresses, transport and encoding; problems listed."""

import pytest

import megaco

from conftest import pcap, udp_frame, vectors

MG = ("10.0.0.1", 2944)
MGC = ("10.0.0.2", 2945)


def test_udp_text_and_ber_read_back_equal(tmp_path):
    sent = []
    for (_, text), (_, ber) in list(zip(vectors("compact"), vectors("ber")))[:60]:
        sent += [("text", MG, text), ("ber", MGC, ber)]
    path = tmp_path / "c.pcap"
    path.write_bytes(pcap([udp_frame(port, port, data) for _, port, data in sent]))
    packets = list(megaco.read_pcap(path))
    assert len(packets) == len(sent)
    for i, (p, (kind, port, data)) in enumerate(zip(packets, sent)):
        assert p.number == i + 1
        assert p.time == pytest.approx(1_700_000_000 + i * 0.001)
        assert (p.src, p.dst) == (port, port)
        assert (p.transport, p.encoding) == ("udp", kind)
        assert p.ok and p.data == data
        assert p.message == megaco.decode(data, dialect="otp")
    assert repr(packets[0]).startswith("<megaco.Packet 1 10.0.0.1:2944")


def test_errors_and_problems(tmp_path):
    good = b"!/1 [10.0.0.1] T=1{C=-{AV=ROOT}}"
    bad = b"!/1 [10.0.0.1] T=x{}"
    path = tmp_path / "bad.pcap"
    path.write_bytes(pcap([udp_frame(MG, MG, good), udp_frame(MG, MG, bad), udp_frame(MG, MG, good)], cut_last=5))
    reader = megaco.read_pcap(str(path))
    packets = list(reader)
    assert [p.ok for p in packets] == [True, False]
    err = packets[1].message
    assert isinstance(err, megaco.DecodeError)
    assert (err.line, err.column, err.offset) == (1, 18, 17)
    assert len(reader.problems) == 1
    assert reader.problems[0].number == 2
    assert "truncated" in reader.problems[0].description


def test_ports_and_sniffing(tmp_path):
    msg = megaco.decode(b"!/2 [10.0.0.1] T=1{C=-{AV=ROOT}}")
    per = megaco.encode(msg, "per")
    path = tmp_path / "p.pcap"
    path.write_bytes(pcap([udp_frame(("10.0.0.1", 5000), ("10.0.0.2", 5001), per)]))
    assert [p.encoding for p in megaco.read_pcap(path)] == ["per"]
    assert list(megaco.read_pcap(path, sniff=False)) == []
    assert [p.message for p in megaco.read_pcap(path, sniff=False, ports=[5001])] == [msg]


def test_not_a_capture(tmp_path):
    path = tmp_path / "x.pcap"
    path.write_bytes(b"hello")
    with pytest.raises(megaco.CaptureError):
        megaco.read_pcap(path)
    # What the system refuses keeps its errno and the file's name.
    import errno

    with pytest.raises(megaco.CaptureError) as e:
        megaco.read_pcap(tmp_path / "missing.pcap")
    assert isinstance(e.value, OSError)
    assert (e.value.errno, e.value.filename) == (errno.ENOENT, str(tmp_path / "missing.pcap"))
    assert e.value.strerror == "No such file or directory"
    with pytest.raises(megaco.CaptureError) as e:
        megaco.read_pcap(tmp_path)
    assert (e.value.errno, e.value.filename) == (errno.EISDIR, str(tmp_path))


def test_ports_out_of_range_name_the_argument(tmp_path):
    for bad in ([70000], [-1]):
        with pytest.raises(ValueError, match=r"^ports \[.*\]: -?\d+ is out of range \(0 to 65535\)$"):
            megaco.read_pcap(tmp_path / "any.pcap", ports=bad)
