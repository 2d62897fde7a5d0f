//! The `megaco` Python package's native module (`megaco._megaco`): a thin
//! layer over the `megaco` and `megaco-pcap` crates.
#![forbid(unsafe_code)]

use std::net::SocketAddr;

use megaco::ber::{BerConfig, Dialect, Mapping, TermIdLevels};
use megaco::codec::{self, Encoding, Kind};
use megaco::per::PerConfig;
use megaco::view::{Item, MessageView, TransactionView};
use megaco::MegacoMessage;
use megaco_pcap::{Capture, Event, Options};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyMemoryView, PyTuple};

create_exception!(
    megaco,
    MegacoError,
    PyValueError,
    "Base class of the errors of this package."
);
create_exception!(
    megaco,
    DecodeError,
    MegacoError,
    "Bytes that do not decode: `codec`, `offset` (0-based byte), and for text `line` and `column` (1-based)."
);
create_exception!(
    megaco,
    EncodeError,
    MegacoError,
    "A message that cannot be written in the encoding asked for."
);
create_exception!(
    megaco,
    JsonError,
    MegacoError,
    "A dict (or JSON) that is not the megaco JSON form: `line` and `column` where known."
);
create_exception!(
    megaco,
    CaptureError,
    PyOSError,
    "A capture file that cannot be opened or is not pcap or pcapng."
);

/// A message's bytes as Python gives them: `bytes`, or a `bytearray` or
/// `memoryview` (copied once into `bytes`, as sockets often hand those).
struct Data<'py>(Bound<'py, PyBytes>);

impl<'py> FromPyObject<'py> for Data<'py> {
    fn extract_bound(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(b) = obj.downcast::<PyBytes>() {
            return Ok(Data(b.clone()));
        }
        if obj.is_instance_of::<PyByteArray>() || obj.is_instance_of::<PyMemoryView>() {
            let copy = obj.py().get_type::<PyBytes>().call1((obj,))?;
            return Ok(Data(copy.downcast_into::<PyBytes>()?));
        }
        Err(PyTypeError::new_err(format!(
            "expected bytes, bytearray or memoryview, not {}",
            obj.get_type().name()?
        )))
    }
}

impl Data<'_> {
    fn bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

/// `values` (an argument named `what`) as integers of type `T`, or a
/// `ValueError` that names the argument and the value out of range.
fn in_range<T: TryFrom<i64>>(what: &str, values: &[i64], range: &str) -> PyResult<Vec<T>> {
    values
        .iter()
        .map(|&v| {
            T::try_from(v).map_err(|_| {
                PyValueError::new_err(format!("{what} {values:?}: {v} is out of range ({range})"))
            })
        })
        .collect()
}

/// The codec options shared by `decode`, `encode` and `read_pcap`.
fn configs(
    dialect: &str,
    levels: Option<Vec<i64>>,
    native: bool,
) -> PyResult<(BerConfig, PerConfig)> {
    let mapping = if native {
        Mapping::Native
    } else {
        let levels: Vec<u8> = match levels {
            Some(l) => in_range("levels", &l, "bits per level, 0 to 255")?,
            None => vec![8, 8, 8],
        };
        Mapping::Text(
            TermIdLevels::new(&levels)
                .map_err(|e| PyValueError::new_err(format!("levels {levels:?}: {e}")))?,
        )
    };
    let dialect = match dialect {
        "standard" => Dialect::Standard,
        "otp" => Dialect::Otp,
        other => {
            return Err(PyValueError::new_err(format!(
                "dialect {other:?}: expected \"standard\" or \"otp\""
            )))
        }
    };
    Ok((
        BerConfig {
            dialect,
            mapping: mapping.clone(),
            ..BerConfig::default()
        },
        PerConfig {
            mapping,
            ..PerConfig::default()
        },
    ))
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Text => "text",
        Kind::Ber => "ber",
        Kind::Per => "per",
        Kind::Native => "native",
    }
}

/// A `DecodeError` exception value carrying where the decoder stopped.
fn decode_error(py: Python<'_>, e: &codec::DecodeError) -> PyErr {
    let err = DecodeError::new_err(e.to_string());
    let value = err.value(py);
    let (line, column) = match e.line_column() {
        Some((l, c)) => (Some(l), Some(c)),
        None => (None, None),
    };
    let set = || -> PyResult<()> {
        value.setattr("codec", kind_name(e.codec()))?;
        value.setattr("offset", e.offset())?;
        value.setattr("line", line)?;
        value.setattr("column", column)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(other) => other,
    }
}

/// A `DecodeError` for bytes no decoder was tried on: `codec` is what
/// they look like ("native"), or None when they are no Megaco message.
fn unread_error(py: Python<'_>, codec: Option<&str>, message: String) -> PyErr {
    let err = DecodeError::new_err(message);
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("codec", codec)?;
        value.setattr("offset", 0)?;
        value.setattr("line", py.None())?;
        value.setattr("column", py.None())?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(other) => other,
    }
}

/// The codec that reads `data`, by its signature (`megaco.sniff`): text,
/// BER or PER. Bytes that are plainly something else, the native format
/// (which this package does not read) and bytes with no signature are
/// `DecodeError`s that say so, in `megaco check`'s words, rather than a
/// PER decoder's complaint.
fn sniffed(py: Python<'_>, data: &[u8]) -> PyResult<Kind> {
    if let Some(why) = codec::not_a_message(data) {
        return Err(unread_error(py, None, why));
    }
    match codec::sniff(data) {
        Some(Kind::Native) => Err(unread_error(
            py,
            Some("native"),
            format!(
                "the native format (header byte {:#04x}), which this package does not read \
                 (text, BER and PER only): `megaco convert --to ber FILE` converts it",
                data[0]
            ),
        )),
        Some(kind) => Ok(kind),
        None => Err(unread_error(py, None, codec::without_signature(data))),
    }
}

/// A `JsonError` with `line`, `column` and `path` set. With `positions`
/// false (a dict, dumped to text only to be read), the line and column
/// are of no text the caller has: they are left out, and the path says
/// where.
fn json_error(py: Python<'_>, e: megaco::json::JsonError, positions: bool) -> PyErr {
    let (at, path) = match &e {
        megaco::json::JsonError::Syntax {
            line, column, path, ..
        } => (
            (positions && *line > 0).then_some((*line, *column)),
            Some(path.clone()).filter(|p| !p.is_empty()),
        ),
        _ => (None, None),
    };
    let (line, column) = (at.map(|a| a.0), at.map(|a| a.1));
    let text = if positions {
        e.to_string()
    } else {
        e.without_position()
    };
    let err = JsonError::new_err(text);
    let value = err.value(py);
    if let Err(other) = value
        .setattr("line", line)
        .and_then(|()| value.setattr("column", column))
        .and_then(|()| value.setattr("path", path))
    {
        return other;
    }
    err
}

/// One Megaco/H.248 message (any protocol version).
#[pyclass(module = "megaco", frozen, eq, hash)]
#[derive(Clone, PartialEq, Hash)]
pub struct Message {
    msg: MegacoMessage,
}

#[pymethods]
impl Message {
    /// The protocol version, 1 to 3.
    #[getter]
    fn version(&self) -> u8 {
        self.msg.mess.version
    }

    /// The sender's mid in text form (`[10.0.0.1]:2944`, `<mg.example.net>`).
    #[getter]
    fn mid(&self) -> String {
        self.msg.mess.mid.to_string()
    }

    /// The message as a dict in the megaco JSON form (what
    /// `megaco convert --to json` prints): `{"megaco_json": 1, "message": {...}}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = megaco::json::to_string(&self.msg).map_err(|e| json_error(py, e, true))?;
        py.import("json")?.call_method1("loads", (text,))
    }

    /// The message as a JSON string in the megaco JSON form.
    fn to_json(&self, py: Python<'_>) -> PyResult<String> {
        megaco::json::to_string(&self.msg).map_err(|e| json_error(py, e, true))
    }

    /// A message from a dict in the megaco JSON form.
    #[staticmethod]
    fn from_dict(py: Python<'_>, d: &Bound<'_, PyDict>) -> PyResult<Message> {
        let text: String = py.import("json")?.call_method1("dumps", (d,))?.extract()?;
        megaco::json::from_str(&text)
            .map(|msg| Message { msg })
            .map_err(|e| json_error(py, e, false))
    }

    /// A message from a JSON string in the megaco JSON form.
    #[staticmethod]
    fn from_json(py: Python<'_>, text: &str) -> PyResult<Message> {
        megaco::json::from_str(text)
            .map(|msg| Message { msg })
            .map_err(|e| json_error(py, e, true))
    }

    /// The message in an encoding: see `megaco.encode`.
    #[pyo3(signature = (encoding, *, dialect="standard", levels=None, native=false))]
    fn encode<'py>(
        &self,
        py: Python<'py>,
        encoding: &str,
        dialect: &str,
        levels: Option<Vec<i64>>,
        native: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        encode(py, self, encoding, dialect, levels, native)
    }

    /// A message is immutable: a copy is the message itself.
    fn __copy__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: PyRef<'py, Self>, _memo: &Bound<'py, PyAny>) -> PyRef<'py, Self> {
        slf
    }

    /// Pickled as its megaco JSON form (for `multiprocessing` and the
    /// like), read back with `Message.from_json`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let from_json = py.get_type::<Message>().getattr("from_json")?;
        let json = self.to_json(py)?;
        PyTuple::new(py, [from_json, PyTuple::new(py, [json])?.into_any()])
    }

    fn __repr__(&self) -> String {
        match megaco::text::encode_compact(&self.msg) {
            Ok(t) => {
                let one: Vec<&str> = std::str::from_utf8(&t)
                    .unwrap_or("")
                    .split_whitespace()
                    .collect();
                let mut s = one.join(" ");
                if s.chars().count() > 100 {
                    s = s.chars().take(99).collect::<String>() + "…";
                }
                format!("<megaco.Message {s}>")
            }
            Err(e) => format!("<megaco.Message (not writable as text: {e})>"),
        }
    }

    /// The message in pretty text.
    fn __str__(&self) -> String {
        megaco::text::encode_pretty(&self.msg)
            .map(|t| String::from_utf8_lossy(&t).into_owned())
            .unwrap_or_else(|e| format!("(not writable as text: {e})"))
    }
}

/// Decodes one message. `encoding` is "auto" (sniffed: text, BER or PER;
/// anything else is a `DecodeError`), "text" (also "pretty", "compact"),
/// "ber" or "per".
#[pyfunction]
#[pyo3(signature = (data, encoding="auto", *, dialect="standard", levels=None, native=false))]
fn decode(
    py: Python<'_>,
    data: Data<'_>,
    encoding: &str,
    dialect: &str,
    levels: Option<Vec<i64>>,
    native: bool,
) -> PyResult<Message> {
    let data = data.bytes();
    let (ber, per) = configs(dialect, levels, native)?;
    wire_codec(py, data, encoding, ber, per)?
        .decode(data)
        .map(|msg| Message { msg })
        .map_err(|e| decode_error(py, &e))
}

/// The codec `encoding` names for reading `data`: "auto" (sniffed: text,
/// BER or PER, see [`sniffed`]), "text" (also "pretty", "compact"), "ber"
/// or "per".
fn wire_codec(
    py: Python<'_>,
    data: &[u8],
    encoding: &str,
    ber: BerConfig,
    per: PerConfig,
) -> PyResult<Encoding> {
    let kind = match encoding {
        "auto" => sniffed(py, data)?,
        "text" | "pretty" | "compact" => Kind::Text,
        "ber" => Kind::Ber,
        "per" => Kind::Per,
        other => {
            return Err(PyValueError::new_err(format!(
                "encoding {other:?}: expected \"auto\", \"text\", \"pretty\", \"compact\", \"ber\" or \"per\""
            )))
        }
    };
    Ok(match kind {
        Kind::Text => Encoding::pretty(),
        Kind::Ber => Encoding::Ber(ber),
        _ => Encoding::Per(per),
    })
}

/// Encodes a message: "compact" or "pretty" text, "ber" (`dialect`
/// "standard" or "otp") or "per"; `levels` are the termination-id level
/// widths of the binary codecs (default [8, 8, 8]) and `native` turns
/// their name and termination-id mapping off (Erlang/OTP's `[native]`).
#[pyfunction]
#[pyo3(signature = (msg, encoding, *, dialect="standard", levels=None, native=false))]
fn encode<'py>(
    py: Python<'py>,
    msg: &Message,
    encoding: &str,
    dialect: &str,
    levels: Option<Vec<i64>>,
    native: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let (ber, per) = configs(dialect, levels, native)?;
    let codec = match encoding {
        "compact" => Encoding::compact(),
        "pretty" => Encoding::pretty(),
        "ber" => Encoding::Ber(ber),
        "per" => Encoding::Per(per),
        other => {
            return Err(PyValueError::new_err(format!(
                "encoding {other:?}: expected \"compact\", \"pretty\", \"ber\" or \"per\""
            )))
        }
    };
    let bytes = codec
        .encode(&msg.msg)
        .map_err(|e| EncodeError::new_err(e.to_string()))?;
    Ok(PyBytes::new(py, &bytes))
}

/// Guesses the encoding of a message from its first bytes: "text", "ber",
/// "per" (a guess decoding must confirm) or None.
#[pyfunction]
fn sniff(data: Data<'_>) -> Option<&'static str> {
    codec::sniff(data.bytes()).map(kind_name)
}

/// The protocol version of a message from its header alone, as Erlang/OTP's
/// `version_of/2` reads it; the encoding is sniffed unless given.
#[pyfunction]
#[pyo3(signature = (data, encoding=None))]
fn version_of(py: Python<'_>, data: Data<'_>, encoding: Option<&str>) -> PyResult<u8> {
    let data = data.bytes();
    let kind = match encoding {
        None => sniffed(py, data)?,
        Some("text" | "pretty" | "compact") => Kind::Text,
        Some("ber") => Kind::Ber,
        Some("per") => Kind::Per,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "encoding {other:?}: expected \"text\", \"ber\" or \"per\""
            )))
        }
    };
    let codec = match kind {
        Kind::Text => Encoding::pretty(),
        Kind::Ber => Encoding::Ber(BerConfig::default()),
        _ => Encoding::per(),
    };
    codec.version_of(data).map_err(|e| decode_error(py, &e))
}

/// The transactions of a message, read from its outline without decoding
/// it (`megaco::view::MessageView::outline`: the actions are skipped
/// unread, nothing is allocated for them): one dict per transaction, with
/// `kind` ("request", "reply", "pending", "ack", "segment_reply") and
/// what the kind carries (`id`, a reply's `error`, `imm_ack_required`,
/// `segment` and `complete`, an ack's `ranges`); a message whose body is
/// an error descriptor gives one dict of kind "message_error" with its
/// `error`. Text and BER only; the encoding is sniffed unless given.
#[pyfunction]
#[pyo3(signature = (data, encoding="auto", *, dialect="standard", levels=None, native=false))]
fn transactions<'py>(
    py: Python<'py>,
    data: Data<'_>,
    encoding: &str,
    dialect: &str,
    levels: Option<Vec<i64>>,
    native: bool,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let data = data.bytes();
    let (ber, per) = configs(dialect, levels, native)?;
    let codec = wire_codec(py, data, encoding, ber, per)?;
    if let Encoding::Per(_) = codec {
        let why = "the outline reads text and BER (decode() reads PER)";
        return Err(match encoding {
            "auto" => unread_error(py, Some("per"), format!("neither text nor BER: {why}")),
            _ => PyValueError::new_err(format!("encoding \"per\": {why}")),
        });
    }
    let view = MessageView::parse(data, &codec).map_err(|e| decode_error(py, &e))?;
    let mut out: Vec<Bound<'py, PyDict>> = Vec::new();
    // The ranges of the TransactionResponseAck being read.
    let mut ranges: Option<Bound<'py, PyList>> = None;
    if let Some(code) = view.error_code() {
        // The whole body is an error descriptor: no transactions.
        let d = PyDict::new(py);
        d.set_item("kind", "message_error")?;
        d.set_item("error", code)?;
        out.push(d);
    }
    for item in view.outline() {
        let item = item.map_err(|e| decode_error(py, &e))?;
        match item {
            Item::Transaction(t) => {
                let d = PyDict::new(py);
                ranges = None;
                match t {
                    TransactionView::Request { id } => {
                        d.set_item("kind", "request")?;
                        d.set_item("id", id)?;
                    }
                    TransactionView::Reply {
                        id,
                        imm_ack_required,
                        segment_number,
                        segmentation_complete,
                    } => {
                        d.set_item("kind", "reply")?;
                        d.set_item("id", id)?;
                        d.set_item("error", py.None())?;
                        d.set_item("imm_ack_required", imm_ack_required)?;
                        d.set_item("segment", segment_number)?;
                        d.set_item("complete", segmentation_complete)?;
                    }
                    TransactionView::Pending { id } => {
                        d.set_item("kind", "pending")?;
                        d.set_item("id", id)?;
                    }
                    TransactionView::ResponseAck => {
                        let list = PyList::empty(py);
                        d.set_item("kind", "ack")?;
                        d.set_item("ranges", &list)?;
                        ranges = Some(list);
                    }
                    TransactionView::SegmentReply {
                        id,
                        segment_number,
                        segmentation_complete,
                    } => {
                        d.set_item("kind", "segment_reply")?;
                        d.set_item("id", id)?;
                        d.set_item("segment", segment_number)?;
                        d.set_item("complete", segmentation_complete)?;
                    }
                    _ => d.set_item("kind", "other")?,
                }
                out.push(d);
            }
            // What the outline yields after its transaction.
            Item::TransactionError { code } => {
                if let Some(d) = out.last() {
                    d.set_item("error", code)?;
                }
            }
            Item::Ack { first, last } => {
                if let Some(list) = &ranges {
                    list.append((first, last.unwrap_or(first)))?;
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

fn addr(a: SocketAddr) -> (String, u16) {
    (a.ip().to_string(), a.port())
}

/// One H.248 message found in a capture.
#[pyclass(module = "megaco", frozen, get_all)]
pub struct Packet {
    /// The packet that completed it, numbered from 1 as Wireshark does.
    number: u64,
    /// When it was captured: seconds since the epoch.
    time: f64,
    /// Sender: (address, port).
    src: (String, u16),
    /// Receiver: (address, port).
    dst: (String, u16),
    /// "udp", "tcp" or "sctp".
    transport: &'static str,
    /// "text", "ber" or "per".
    encoding: &'static str,
    /// The message's bytes.
    data: Py<PyBytes>,
    /// The decoded `Message`, or the `DecodeError` that says why not.
    message: PyObject,
}

#[pymethods]
impl Packet {
    /// Whether the message decoded.
    #[getter]
    fn ok(&self, py: Python<'_>) -> bool {
        self.message.bind(py).is_instance_of::<Message>()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "<megaco.Packet {} {}:{} -> {}:{} {} {} {}>",
            self.number,
            self.src.0,
            self.src.1,
            self.dst.0,
            self.dst.1,
            self.transport,
            self.encoding,
            if self.ok(py) { "ok" } else { "error" }
        )
    }
}

/// Something in a capture that could not be read (a truncated file, a
/// frame cut by the snapshot length, bytes missing from a TCP stream, ...).
#[pyclass(module = "megaco", frozen, get_all)]
pub struct Problem {
    /// The packet concerned; for an error of the file itself (a record
    /// cut short, a corrupt block), the last packet read before it (0 if
    /// none was).
    number: u64,
    /// When it was captured: seconds since the epoch.
    time: f64,
    /// What went wrong.
    description: String,
}

#[pymethods]
impl Problem {
    fn __repr__(&self) -> String {
        format!(
            "<megaco.Problem packet {}: {}>",
            self.number, self.description
        )
    }
}

/// The H.248 messages of a capture, in capture order; `problems` lists
/// what could not be read so far.
#[pyclass(module = "megaco")]
pub struct PcapReader {
    /// Behind a lock: the reader is shared with Python, which may hold it
    /// from any thread.
    capture: std::sync::Mutex<Option<Capture<'static>>>,
    #[pyo3(get)]
    problems: Vec<Py<Problem>>,
}

#[pymethods]
impl PcapReader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Packet>> {
        let mut guard = self
            .capture
            .lock()
            .map_err(|_| CaptureError::new_err("the capture reader failed earlier"))?;
        loop {
            let Some(capture) = guard.as_mut() else {
                return Ok(None);
            };
            match capture.next() {
                None => {
                    *guard = None;
                    return Ok(None);
                }
                Some(Event::Problem(p)) => self.problems.push(Py::new(
                    py,
                    Problem {
                        number: p.packet,
                        time: p.time.as_secs_f64(),
                        description: p.kind.to_string(),
                    },
                )?),
                Some(Event::Message(m)) => {
                    let message = match &m.message {
                        Ok(msg) => Py::new(py, Message { msg: msg.clone() })?.into_any(),
                        Err(e) => decode_error(py, e).into_value(py).into_any(),
                    };
                    return Ok(Some(Packet {
                        number: m.packet,
                        time: m.time.as_secs_f64(),
                        src: addr(m.src),
                        dst: addr(m.dst),
                        transport: m.transport.as_str(),
                        encoding: kind_name(m.encoding),
                        data: PyBytes::new(py, &m.bytes).unbind(),
                        message,
                    }));
                }
            }
        }
    }
}

/// Reads the H.248 messages of a pcap or pcapng file. `ports` are ports
/// carrying H.248 besides 2944 and 2945; `sniff` also finds it elsewhere
/// by its signature.
#[pyfunction]
#[pyo3(signature = (path, *, ports=None, sniff=true, dialect="standard", levels=None, native=false))]
fn read_pcap(
    path: std::path::PathBuf,
    ports: Option<Vec<i64>>,
    sniff: bool,
    dialect: &str,
    levels: Option<Vec<i64>>,
    native: bool,
) -> PyResult<PcapReader> {
    let (ber, per) = configs(dialect, levels, native)?;
    let mut options = Options {
        sniff,
        ber,
        per,
        ..Options::default()
    };
    let ports: Vec<u16> = in_range("ports", &ports.unwrap_or_default(), "0 to 65535")?;
    options.ports.extend(ports);
    // Opened here, so that an error of the system's keeps its errno and
    // the file name, as Python's own OSErrors do.
    let os_error = |e: std::io::Error| {
        // "No such file or directory (os error 2)": the text alone.
        let text = e.to_string();
        let strerror = text.split(" (os error").next().unwrap_or(&text).to_string();
        CaptureError::new_err((e.raw_os_error(), strerror, path.display().to_string()))
    };
    let file = std::fs::File::open(&path).map_err(os_error)?;
    if file.metadata().map_err(os_error)?.is_dir() {
        const EISDIR: i32 = 21;
        return Err(os_error(std::io::Error::from_raw_os_error(EISDIR)));
    }
    let input = std::io::BufReader::with_capacity(1 << 16, file);
    let capture = Capture::new(input, options)
        .map_err(|e| CaptureError::new_err(format!("{}: {e}", path.display())))?;
    Ok(PcapReader {
        capture: std::sync::Mutex::new(Some(capture)),
        problems: Vec::new(),
    })
}

#[pymodule]
fn _megaco(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Message>()?;
    m.add_class::<Packet>()?;
    m.add_class::<Problem>()?;
    m.add_class::<PcapReader>()?;
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add_function(wrap_pyfunction!(sniff, m)?)?;
    m.add_function(wrap_pyfunction!(version_of, m)?)?;
    m.add_function(wrap_pyfunction!(transactions, m)?)?;
    m.add_function(wrap_pyfunction!(read_pcap, m)?)?;
    m.add("MegacoError", py.get_type::<MegacoError>())?;
    m.add("DecodeError", py.get_type::<DecodeError>())?;
    m.add("EncodeError", py.get_type::<EncodeError>())?;
    m.add("JsonError", py.get_type::<JsonError>())?;
    m.add("CaptureError", py.get_type::<CaptureError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
