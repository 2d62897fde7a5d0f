"""The README's `## Python` snippet runs as written."""

import os
import pathlib

from conftest import ROOT, pcap, udp_frame


def test_readme_python_section(tmp_path, capsys):
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## Python\n", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    # The capture it reads.
    frames = [
        udp_frame(("10.0.0.1", 2944), ("10.0.0.2", 2944), b"!/1 [10.0.0.1] T=1{C=-{AV=ROOT}}"),
        udp_frame(("10.0.0.2", 2944), ("10.0.0.1", 2944), b"!/1 [10.0.0.2] P=1{C=-{AV=ROOT}}"),
    ]
    (tmp_path / "calls.pcap").write_bytes(pcap(frames))
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(code, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert "2 7" in out
    assert "10.0.0.1" in out
