//! The JSON form of the model, a documented and versioned contract.
//!
//! A message is written inside an envelope that names the format version:
//!
//! ```json
//! {"megaco_json": 1, "message": {"auth_header": null, "mess": {…}}}
//! ```
//!
//! `message` is the model ([`MegacoMessage`]) as its serde derives write
//! it in human-readable formats. The shape is described by the JSON
//! Schema `docs/json/megaco-message.schema.json` and by
//! `docs/json/README.md`; every corpus message is checked against the
//! schema by the tests. The version changes when a document valid for one
//! version would mean something else, or be refused, under the next.
//!
//! Readers take the envelope and ignore fields beside `megaco_json` and
//! `message`, so the JSON Lines of `megaco pcap --json` (which add the
//! packet, time, addresses, …) read back as messages too.
//!
//! ```
//! let msg = megaco::text::decode(b"!/1 [10.0.0.1]:2944 T=9{C=-{AV=ROOT}}")?;
//! let json = megaco::json::to_string(&msg)?;
//! assert!(json.starts_with(r#"{"megaco_json":1,"message":{"#));
//! assert_eq!(megaco::json::from_str(&json)?, msg);
//!
//! // Other fields are ignored; the version is checked.
//! let line = json.replacen('{', r#"{"packet":7,"#, 1);
//! assert_eq!(megaco::json::from_str(&line)?, msg);
//! let future = json.replacen(r#""megaco_json":1"#, r#""megaco_json":2"#, 1);
//! assert!(matches!(
//!     megaco::json::from_str(&future),
//!     Err(megaco::json::JsonError::Version { found: 2 })
//! ));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::MegacoMessage;

/// The version of the JSON form this crate writes and reads.
pub const FORMAT_VERSION: u64 = 1;

/// The envelope's version field.
pub const VERSION_KEY: &str = "megaco_json";

#[derive(Serialize)]
struct EnvelopeRef<'a> {
    megaco_json: u64,
    message: &'a MegacoMessage,
}

#[derive(Deserialize)]
struct Envelope {
    megaco_json: u64,
    message: MegacoMessage,
}

/// Why JSON could not be read (or, rarely, written).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JsonError {
    /// Not JSON, or JSON that does not fit the model: where and why.
    #[error("{}", describe(*.line, *.column, .path, .message))]
    Syntax {
        /// 1-based line (0 when read from a [`Value`], which has none).
        line: usize,
        /// 1-based column (0 when read from a [`Value`]).
        column: usize,
        /// Where in the document, as keys and indices from its root
        /// (`message.mess.body.transactions[0]`); empty when the JSON
        /// itself is malformed or the error is the document's as a whole.
        path: String,
        /// What was wrong.
        message: String,
    },
    /// A JSON object without the `megaco_json` version field.
    #[error("not a megaco JSON document: no \"megaco_json\" version field (expected {{\"megaco_json\": 1, \"message\": {{…}}}})")]
    MissingVersion,
    /// A format version this crate does not read.
    #[error("megaco JSON format version {found}; this version of the library reads version {FORMAT_VERSION}")]
    Version {
        /// The version found.
        found: u64,
    },
    /// A message of a protocol version other than 1 to 3.
    #[error("message.mess.version: unsupported protocol version {found} (1 to 3)")]
    ProtocolVersion {
        /// The version found.
        found: u8,
    },
}

/// `JsonError::Syntax`'s text: the position when there is one, then
/// [`JsonError::without_position`].
fn describe(line: usize, column: usize, path: &str, message: &str) -> String {
    let at = if line > 0 {
        format!("line {line}, column {column}: ")
    } else {
        String::new()
    };
    at + &at_path(path, message)
}

/// `at PATH: message`, or the message alone without a path.
fn at_path(path: &str, message: &str) -> String {
    if path.is_empty() {
        message.to_string()
    } else {
        format!("at {path}: {message}")
    }
}

impl JsonError {
    /// The error without its line and column: for callers that give the
    /// position their own way (`file:line:column:`), or whose input had
    /// no text the reader saw (a dict dumped to JSON).
    ///
    /// ```
    /// let e = megaco::json::from_str(r#"{"megaco_json": 1, "message": 5}"#).unwrap_err();
    /// assert!(e.to_string().starts_with("line 1, column "));
    /// assert!(e.without_position().starts_with("at message: invalid type"));
    /// ```
    pub fn without_position(&self) -> String {
        match self {
            JsonError::Syntax { path, message, .. } => at_path(path, message),
            other => other.to_string(),
        }
    }

    fn at(path: String, e: serde_json::Error) -> Self {
        let text = e.to_string();
        // serde_json appends " at line L column C"; keep the message alone.
        let message = match text.rfind(" at line ") {
            Some(i) => text[..i].to_string(),
            None => text,
        };
        JsonError::Syntax {
            line: e.line(),
            column: e.column(),
            path,
            message,
        }
    }
}

impl From<serde_json::Error> for JsonError {
    fn from(e: serde_json::Error) -> Self {
        JsonError::at(String::new(), e)
    }
}

/// The envelope read from `de`, or the error with the path where it
/// occurred. The path's last segment is `?` when the error is in reading
/// a key; that segment is left out, and the root (`.`) is no path.
fn read_envelope<'de, D>(de: D) -> Result<Envelope, (String, serde_json::Error)>
where
    D: serde::Deserializer<'de, Error = serde_json::Error>,
{
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let path = match path.strip_suffix(".?").unwrap_or(&path) {
            "." | "?" => String::new(),
            p => p.to_string(),
        };
        (path, e.into_inner())
    })
}

/// The message as one line of JSON, in its envelope.
pub fn to_string(msg: &MegacoMessage) -> Result<String, JsonError> {
    Ok(serde_json::to_string(&envelope(msg))?)
}

/// The message as indented JSON, in its envelope.
pub fn to_string_pretty(msg: &MegacoMessage) -> Result<String, JsonError> {
    Ok(serde_json::to_string_pretty(&envelope(msg))?)
}

/// The message as JSON bytes, in its envelope.
pub fn to_vec(msg: &MegacoMessage) -> Result<Vec<u8>, JsonError> {
    Ok(serde_json::to_vec(&envelope(msg))?)
}

/// Writes the message as JSON, in its envelope.
pub fn to_writer(writer: impl std::io::Write, msg: &MegacoMessage) -> Result<(), JsonError> {
    Ok(serde_json::to_writer(writer, &envelope(msg))?)
}

/// The message as a [`serde_json::Value`], in its envelope.
pub fn to_value(msg: &MegacoMessage) -> Result<Value, JsonError> {
    Ok(serde_json::to_value(envelope(msg))?)
}

/// The model alone as a [`serde_json::Value`] (what the envelope's
/// `message` holds), for embedding in other documents.
pub fn message_to_value(msg: &MegacoMessage) -> Result<Value, JsonError> {
    Ok(serde_json::to_value(msg)?)
}

fn envelope(msg: &MegacoMessage) -> EnvelopeRef<'_> {
    EnvelopeRef {
        megaco_json: FORMAT_VERSION,
        message: msg,
    }
}

/// Reads a message from JSON bytes (an envelope).
pub fn from_slice(bytes: &[u8]) -> Result<MegacoMessage, JsonError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let read =
        read_envelope(&mut de).and_then(|e| de.end().map(|()| e).map_err(|x| (String::new(), x)));
    match read {
        Ok(e) => check(e),
        Err((path, e)) => Err(diagnose(
            serde_json::from_slice::<Value>(bytes).ok(),
            path,
            e,
        )),
    }
}

/// Reads a message from a JSON string (an envelope).
#[allow(clippy::should_implement_trait)]
pub fn from_str(text: &str) -> Result<MegacoMessage, JsonError> {
    from_slice(text.as_bytes())
}

/// Reads a message from a [`serde_json::Value`] (an envelope).
pub fn from_value(value: Value) -> Result<MegacoMessage, JsonError> {
    match read_envelope(value.clone()) {
        Ok(e) => check(e),
        Err((path, e)) => Err(diagnose(Some(value), path, e)),
    }
}

fn check(e: Envelope) -> Result<MegacoMessage, JsonError> {
    if e.megaco_json != FORMAT_VERSION {
        return Err(JsonError::Version {
            found: e.megaco_json,
        });
    }
    // What every decoder refuses, the JSON form refuses too: no codec
    // could write the message.
    let version = e.message.mess.version;
    if !(1..=3).contains(&version) {
        return Err(JsonError::ProtocolVersion { found: version });
    }
    Ok(e.message)
}

/// A version problem explains a failure better than the model's error.
fn diagnose(value: Option<Value>, path: String, e: serde_json::Error) -> JsonError {
    if let Some(Value::Object(o)) = value {
        match o.get(VERSION_KEY) {
            None => return JsonError::MissingVersion,
            Some(v) => {
                if let Some(found) = v.as_u64().filter(|&n| n != FORMAT_VERSION) {
                    return JsonError::Version { found };
                }
            }
        }
    }
    JsonError::at(path, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_where_and_what() {
        let msg = crate::text::decode(b"!/1 [10.0.0.1] T=9{C=-{AV=ROOT}}").unwrap();
        let json = to_string_pretty(&msg).unwrap();
        assert_eq!(from_str(&json).unwrap(), msg);
        let e = from_str("{\"megaco_json\": 1,\n \"message\": 5}").unwrap_err();
        assert!(
            matches!(&e, JsonError::Syntax { line: 2, path, .. } if path == "message"),
            "{e}"
        );
        // A misspelt key deep in the message: its path, from the text or a
        // Value (which has no lines).
        let bad = json.replace("\"transaction_id\"", "\"transaction_idd\"");
        let at = "message.mess.body.transactions[0].request.transaction_idd";
        for e in [
            from_str(&bad).unwrap_err(),
            from_value(serde_json::from_str(&bad).unwrap()).unwrap_err(),
        ] {
            assert!(
                matches!(&e, JsonError::Syntax { path, .. } if path == at),
                "{e}"
            );
            assert!(
                e.to_string().contains(&format!("at {at}: unknown field")),
                "{e}"
            );
        }
        assert!(from_value(serde_json::from_str(&bad).unwrap())
            .unwrap_err()
            .to_string()
            .starts_with("at message."));
        assert!(matches!(from_str("[1]"), Err(JsonError::Syntax { .. })));
        assert!(matches!(
            from_str(r#"{"message": {}}"#),
            Err(JsonError::MissingVersion)
        ));
        assert!(matches!(
            from_str("{"),
            Err(JsonError::Syntax { line: 1, .. })
        ));
        let v = to_value(&msg).unwrap();
        assert_eq!(v["megaco_json"], 1);
        assert_eq!(v["message"], message_to_value(&msg).unwrap());
        assert_eq!(from_value(v).unwrap(), msg);
        let mut out = Vec::new();
        to_writer(&mut out, &msg).unwrap();
        assert_eq!(out, to_vec(&msg).unwrap());
        assert_eq!(from_slice(&out).unwrap(), msg);
    }

    #[test]
    fn a_field_the_model_lacks_or_a_version_no_codec_speaks_is_refused() {
        let msg = crate::text::decode(
            b"!/1 [10.0.0.1] T=9{C=-{MF=11111111/00000000/00000001{M{O{MO=SR}}}}}",
        )
        .unwrap();
        let good = to_value(&msg).unwrap();
        // A misspelt field anywhere is an error that names it, not a
        // value silently lost.
        let mut v = good.clone();
        let command = &mut v["message"]["mess"]["body"]["transactions"][0]["request"]["actions"][0]
            ["command_requests"][0];
        assert_eq!(command["optional"], false, "{command}");
        command["optinal"] = true.into();
        let e = from_value(v).unwrap_err().to_string();
        assert!(e.contains("unknown field `optinal`"), "{e}");
        // The envelope keeps room for other fields (`megaco pcap --json`).
        let mut v = good.clone();
        v["packet"] = 7.into();
        assert_eq!(from_value(v).unwrap(), msg);
        for version in [0, 4, 7] {
            let mut v = good.clone();
            v["message"]["mess"]["version"] = version.into();
            let e = from_value(v).unwrap_err();
            assert!(
                matches!(e, JsonError::ProtocolVersion { found } if found == version),
                "{e}"
            );
        }
        let mut v = good;
        v["message"]["mess"]["version"] = 3.into();
        assert_eq!(from_value(v).unwrap().mess.version, 3);
    }

    /// The schema in `docs/json`, compiled.
    fn validator() -> jsonschema::Validator {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/json/megaco-message.schema.json"
        );
        let text = std::fs::read_to_string(path).expect("the schema file");
        let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
        jsonschema::validator_for(&schema).expect("the schema compiles")
    }

    fn assert_valid(v: &jsonschema::Validator, doc: &Value, what: &str) {
        let errors: Vec<String> = v
            .iter_errors(doc)
            .take(3)
            .map(|e| format!("{e} at {}", e.instance_path))
            .collect();
        assert!(errors.is_empty(), "{what}: {errors:#?}");
    }

    /// Every corpus message, as each codec decodes it, is valid JSON of
    /// the schema and reads back to the same model.
    #[test]
    fn every_corpus_message_matches_the_schema() {
        use crate::codec::Encoding;
        let v = validator();
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus/vectors");
        let mut n = 0;
        for (sub, enc) in [
            ("pretty", Encoding::pretty()),
            ("compact", Encoding::compact()),
            ("ber", Encoding::ber()),
            ("per", Encoding::per()),
        ] {
            let mut files: Vec<_> = std::fs::read_dir(dir.join(sub))
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            files.sort();
            for path in files {
                let msg = enc.decode(&std::fs::read(&path).unwrap()).unwrap();
                let doc = to_value(&msg).unwrap();
                assert_valid(&v, &doc, &path.display().to_string());
                assert_eq!(from_value(doc).unwrap(), msg);
                n += 1;
            }
        }
        assert!(n >= 4 * 149, "{n}");
        // What the schema refuses, the reader refuses too.
        for bad in [
            serde_json::json!({"megaco_json": 2, "message": {}}),
            serde_json::json!({"message": {}}),
        ] {
            assert!(!v.is_valid(&bad));
            assert!(from_value(bad).is_err());
        }
    }

    /// Generated models of every shape (the `arbitrary` derive) serialise
    /// to documents the schema accepts, so the schema follows the model:
    /// a field or variant added, renamed or removed fails here.
    #[test]
    fn generated_models_match_the_schema() {
        use arbitrary::{Arbitrary, Unstructured};
        let v = validator();
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut bytes = vec![0u8; 4096];
        let mut checked = 0;
        for _ in 0..3000 {
            for b in bytes.iter_mut() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *b = state as u8;
            }
            let Ok(mut msg) = MegacoMessage::arbitrary(&mut Unstructured::new(&bytes)) else {
                continue;
            };
            // The versions a reader takes (see the test above).
            msg.mess.version = 1 + msg.mess.version % 3;
            let doc = to_value(&msg).unwrap();
            assert_valid(&v, &doc, &format!("{msg:?}"));
            assert_eq!(from_value(doc).unwrap(), msg);
            checked += 1;
        }
        assert!(checked > 2000, "{checked}");
    }
}
