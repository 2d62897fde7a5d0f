//! Bytes that are no Megaco message, and what to say of them: what a
//! decoder's complaint would not tell (that a pcap capture is a pcap
//! capture, rather than "PER: unsupported protocol version 78"). `megaco
//! check` and the Python package say it in these words.

use super::{sniff, Kind};

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The encodings' signatures, for bytes that have none of them.
const NEITHER: &str = "which is neither text (`MEGACO/` or `!/`), BER (0x30), \
                       PER as Erlang/OTP writes it, nor the native format (0xa0-0xa3)";

/// The well-known kind of file `bytes` are by their first bytes (a pcap
/// capture, compressed data, an image, UTF-16 text, …), if any.
///
/// ```
/// use megaco::codec::foreign_kind;
/// assert_eq!(foreign_kind(b"\xD4\xC3\xB2\xA1\x02\x00"), Some("a pcap capture file"));
/// assert_eq!(foreign_kind(b"!/1 [10.0.0.1] T=1{}"), None);
/// ```
pub fn foreign_kind(bytes: &[u8]) -> Option<&'static str> {
    const SIGNATURES: &[(&[u8], &str)] = &[
        (b"\xD4\xC3\xB2\xA1", "a pcap capture file"),
        (b"\xA1\xB2\xC3\xD4", "a pcap capture file"),
        (b"\x4D\x3C\xB2\xA1", "a pcap capture file"),
        (b"\xA1\xB2\x3C\x4D", "a pcap capture file"),
        (b"\x0A\x0D\x0D\x0A", "a pcapng capture file"),
        (b"\xFF\xFE", "UTF-16 text (byte-order mark FF FE)"),
        (b"\xFE\xFF", "UTF-16 text (byte-order mark FE FF)"),
        (b"\x1F\x8B", "gzip-compressed data"),
        (b"PK\x03\x04", "a zip archive"),
        (b"\x7FELF", "an executable (ELF)"),
        (b"\x89PNG", "a PNG image"),
        (b"%PDF", "a PDF document"),
    ];
    SIGNATURES
        .iter()
        .find(|(magic, _)| bytes.starts_with(magic))
        .map(|(_, what)| *what)
}

/// Why `bytes` are plainly no Megaco message, whatever signature they
/// seem to carry: nothing but white space, a well-known other kind of
/// file ([`foreign_kind`]), or text behind a UTF-8 byte-order mark (said
/// to be a valid message once the mark is removed, when it is). `None`
/// for anything else.
///
/// ```
/// use megaco::codec::not_a_message;
/// assert_eq!(not_a_message(b" \n").unwrap(), "empty: not a Megaco message");
/// assert_eq!(
///     not_a_message(b"\x1F\x8B\x08").unwrap(),
///     "not a Megaco message (gzip-compressed data)"
/// );
/// assert!(not_a_message(b"\xEF\xBB\xBF!/1 [10.0.0.1] T=1{C=-{AV=ROOT}}")
///     .unwrap()
///     .ends_with("remove the first 3 bytes)"));
/// assert_eq!(not_a_message(b"!/1 [10.0.0.1] T=1{}"), None);
/// ```
pub fn not_a_message(bytes: &[u8]) -> Option<String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Some("empty: not a Megaco message".to_string());
    }
    if let Some(what) = foreign_kind(bytes) {
        return Some(format!("not a Megaco message ({what})"));
    }
    let rest = bytes.strip_prefix(UTF8_BOM)?;
    let valid = sniff(rest) == Some(Kind::Text) && crate::text::decode(rest).is_ok();
    let fix = if valid {
        "; the rest is a valid message: remove the first 3 bytes"
    } else {
        ""
    };
    Some(format!(
        "not a Megaco message (it starts with a UTF-8 byte-order mark, EF BB BF, \
         which Megaco text does not allow{fix})"
    ))
}

/// Why bytes with no encoding's signature ([`sniff`] gives `None`) are no
/// Megaco message: how they start (as text when the first bytes are
/// printable, else in hex) and the signatures they lack.
///
/// ```
/// use megaco::codec::without_signature;
/// let why = without_signature(b"garbage");
/// assert!(why.starts_with("not a Megaco message (it starts \"garbage\", which is neither"));
/// assert!(without_signature(&[0xEE, 1, 2]).starts_with("not a Megaco message (it starts ee 01 02,"));
/// ```
pub fn without_signature(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(16)];
    let starts = if head
        .iter()
        .all(|&b| b.is_ascii_graphic() || b.is_ascii_whitespace())
    {
        let more = if bytes.len() > head.len() { "…" } else { "" };
        format!("{:?}{more}", String::from_utf8_lossy(head))
    } else {
        let hex: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
        hex.join(" ")
    };
    format!("not a Megaco message (it starts {starts}, {NEITHER})")
}
