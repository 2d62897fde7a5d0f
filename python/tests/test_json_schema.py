"""The committed JSON Schema is the one the model's source gives, and the
package's dicts have the shape it describes."""

import json
import subprocess
import sys

import megaco

from conftest import ROOT


def test_schema_is_current():
    script = ROOT / "docs" / "json" / "schema_from_model.py"
    run = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_dicts_have_the_documented_shape():
    schema = json.loads((ROOT / "docs" / "json" / "megaco-message.schema.json").read_text())
    msg = megaco.decode(b"!/2 [10.0.0.1]:2944 T=9{C=-{N=11111111/00000000/00000001{OE=1{al/of}}}}")
    d = msg.to_dict()
    assert set(d) == set(schema["required"])
    mess = d["message"]["mess"]
    assert mess["mid"] == "[10.0.0.1]:2944"
    action = mess["body"]["transactions"][0]["request"]["actions"][0]
    assert action["context_id"] == "-"
    notify = action["command_requests"][0]["command"]["notify"]
    assert notify["termination_ids"] == ["11111111/00000000/00000001"]
    top = schema["$defs"]["MegacoMessage"]
    assert set(d["message"]) == set(top["properties"])
