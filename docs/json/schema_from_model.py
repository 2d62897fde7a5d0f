#!/usr/bin/env python3
"""Writes docs/json/megaco-message.schema.json from the model's source.

The model (crates/megaco/src/model/*.rs) is plain structs and enums inside
`model! { ... }` blocks, serialised by serde's derives with snake_case
variant names; the identifiers (Mid, TerminationId, ContextId) have
hand-written text forms. This script reads those definitions, doc
comments included, and writes the JSON Schema (draft 2020-12) of the
megaco JSON form. Run it after changing the model:

    python3 docs/json/schema_from_model.py

The Rust test in crates/megaco/src/json.rs validates every corpus message,
and many generated ones, against the committed schema, so a model change
that is not carried over fails there.
"""

import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODEL = ROOT / "crates" / "megaco" / "src" / "model"
OUT = ROOT / "docs" / "json" / "megaco-message.schema.json"

UINT = {"u8": 255, "u16": 65535, "u32": 4294967295, "u64": 18446744073709551615}


def snake(name):
    """serde's snake_case rule: an underscore before every capital but the first."""
    out = []
    for i, ch in enumerate(name):
        if i > 0 and ch.isupper():
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


def split_generics(s):
    """'A, B<C, D>' -> ['A', 'B<C, D>'] (top-level commas only)."""
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<[(":
            depth += 1
        elif ch in ">])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


class Model:
    def __init__(self):
        self.defs = {}
        self.aliases = {}

    def schema_of(self, ty):
        """The schema of a Rust type as serde_json writes it."""
        ty = ty.strip()
        m = re.fullmatch(r"\[\s*u8\s*;\s*(\d+)\s*\]", ty)
        if m:
            n = int(m.group(1))
            return {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255},
                    "minItems": n, "maxItems": n}
        m = re.fullmatch(r"(\w+)\s*<(.*)>", ty)
        if m:
            outer, inner = m.group(1), m.group(2).strip()
            if outer == "Option":
                return {"anyOf": [self.schema_of(inner), {"type": "null"}]}
            if outer in ("Vec", "SmallList"):
                return {"type": "array", "items": self.schema_of(inner)}
            if outer == "SmallVec":
                elem = re.fullmatch(r"\[(.*);\s*\d+\s*\]", inner).group(1)
                return {"type": "array", "items": self.schema_of(elem)}
            if outer == "Box":
                return self.schema_of(inner)
            raise SystemExit(f"unknown generic type {ty}")
        if ty in UINT:
            return {"type": "integer", "minimum": 0, "maximum": UINT[ty]}
        if ty == "bool":
            return {"type": "boolean"}
        if ty in ("String", "CompactString"):
            return {"type": "string"}
        if ty in self.aliases:
            return self.schema_of(self.aliases[ty])
        return {"$ref": f"#/$defs/{ty}"}

    def aliases_of(self, text):
        for m in re.finditer(r"^pub type (\w+)(?:<\w+>)? = (.+);", text, re.M):
            if m.group(1) != "SmallList":
                self.aliases[m.group(1)] = m.group(2)

    def parse(self, text):
        for block in re.finditer(r"^model! \{\n(.*?)^\}", text, re.M | re.S):
            self.parse_block(block.group(1))

    def parse_block(self, body):
        lines = body.split("\n")
        i, doc = 0, []
        while i < len(lines):
            line = lines[i].strip()
            if line.startswith("///"):
                doc.append(line[3:].strip())
            elif line.startswith("#["):
                pass
            elif m := re.match(r"pub (struct|enum) (\w+) \{$", line):
                kind, name = m.groups()
                j = i + 1
                depth = 1
                inner = []
                while depth:
                    depth += lines[j].count("{") - lines[j].count("}")
                    if depth:
                        inner.append(lines[j])
                    j += 1
                self.item(kind, name, " ".join(doc), inner)
                doc = []
                i = j
                continue
            elif line:
                doc = []
            i += 1

    def item(self, kind, name, doc, inner):
        members, doc_buf = [], []
        for raw in inner:
            line = raw.strip()
            if line.startswith("///"):
                doc_buf.append(line[3:].strip())
                continue
            if not line or line.startswith("#[") or line.startswith("//"):
                continue
            members.append((line.rstrip(","), " ".join(doc_buf)))
            doc_buf = []
        if kind == "struct":
            props, required = {}, []
            for line, d in members:
                m = re.fullmatch(r"pub (\w+): (.+)", line)
                if not m:
                    raise SystemExit(f"{name}: cannot read field {line!r}")
                field, ty = m.groups()
                s = self.schema_of(ty)
                if d:
                    s = {"description": d, **s}
                props[field] = s
                if not ty.startswith("Option<"):
                    required.append(field)
            schema = {"type": "object", "properties": props, "required": required,
                      "additionalProperties": False}
        else:
            units, alts = [], []
            for line, d in members:
                m = re.fullmatch(r"(\w+)(?:\((.+)\))?", line)
                if not m:
                    raise SystemExit(f"{name}: cannot read variant {line!r}")
                variant, ty = m.groups()
                tag = snake(variant)
                if ty is None:
                    units.append(tag)
                    continue
                s = self.schema_of(ty)
                alt = {"type": "object", "properties": {tag: s}, "required": [tag],
                       "additionalProperties": False}
                if d:
                    alt = {"description": d, **alt}
                alts.append(alt)
            if units:
                alts.insert(0, {"enum": units})
            schema = alts[0] if len(alts) == 1 else {"oneOf": alts}
        if doc:
            schema = {"description": doc, **schema}
        self.defs[name] = schema


def main():
    model = Model()
    sources = [p.read_text() for p in sorted(MODEL.glob("*.rs"))]
    for text in sources:
        model.aliases_of(text)
    for text in sources:
        model.parse(text)
    # The identifiers' text forms (crates/megaco/src/model/ids.rs).
    structural_mid = model.defs["Mid"]
    model.defs["Mid"] = {
        "description": "A message identifier in its text form: `[10.0.0.1]:2944`, "
        "`[2001:db8::1]`, `<mg1.example.net>:2944`, `MTP{0A1B}` or a device name. "
        "A mid whose text form would not read back the same (a device name outside "
        "the text grammar) is written in its structural form instead, which readers "
        "also accept.",
        "oneOf": [{"type": "string", "minLength": 1}, structural_mid],
    }
    # The versions every decoder speaks; the reader refuses others.
    version = model.defs["Message"]["properties"]["version"]
    version["minimum"], version["maximum"] = 1, 3
    model.defs["TerminationId"] = {
        "description": "A termination id in its text form: `ROOT`, `*`, `$`, "
        "`11111111/00000000/00000000`, `line/$`.",
        "type": "string",
    }
    model.defs["ContextId"] = {
        "description": "A context id: `-` (null), `$` (choose), `*` (all), or its number.",
        "anyOf": [
            {"enum": ["-", "$", "*"]},
            {"type": "integer", "minimum": 0, "maximum": 4294967295},
        ],
    }
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://github.com/megaco-rs/megaco/docs/json/megaco-message.schema.json",
        "title": "megaco JSON, format version 1",
        "description": "One Megaco/H.248 message in its envelope, as `megaco convert "
        "--to json` and `megaco::json` write it. Other fields beside `megaco_json` and "
        "`message` (as in the lines of `megaco pcap --json`) are allowed and ignored.",
        "type": "object",
        "properties": {
            "megaco_json": {"const": 1, "description": "The format version."},
            "message": {"$ref": "#/$defs/MegacoMessage"},
        },
        "required": ["megaco_json", "message"],
        "$defs": dict(sorted(model.defs.items())),
    }
    text = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
    if "--check" in sys.argv:
        if OUT.read_text() != text:
            raise SystemExit(f"{OUT} is out of date: run {sys.argv[0]}")
        return
    OUT.write_text(text)
    print(f"{OUT}: {len(model.defs)} definitions")


if __name__ == "__main__":
    main()
