//! The bundled corpus reads as OTP's tools read it.
use std::path::PathBuf;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

#[test]
fn bundled_term_file_has_149_messages_by_version() {
    let c = megaco::corpus::load(&corpus_dir().join("time_test.msgs")).unwrap();
    assert_eq!(c.codec, "pretty");
    assert_eq!(c.messages.len(), 149);
    let count = |v: &[u8]| c.messages.iter().filter(|m| m.bytes.starts_with(v)).count();
    assert_eq!(count(b"MEGACO/1 "), 35);
    assert_eq!(count(b"MEGACO/2 "), 22);
    assert_eq!(count(b"MEGACO/3 "), 92);
    // Names are the manifest's, in the same order.
    let manifest = std::fs::read_to_string(corpus_dir().join("vectors/manifest.tsv")).unwrap();
    let names: Vec<&str> = manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("name\t"))
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    let ours: Vec<&str> = c.messages.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(ours, names);
    // Escapes decoded: msg72* carry CRLF in their SDP, and none keeps a
    // literal backslash-n.
    assert!(c
        .messages
        .iter()
        .any(|m| m.name.starts_with("msg72") && m.bytes.windows(2).any(|w| w == b"\r\n")));
    assert!(c
        .messages
        .iter()
        .all(|m| !m.bytes.windows(2).any(|w| w == b"\\n")));
}

#[test]
fn directory_corpus_reads_every_file_sorted() {
    let c = megaco::corpus::load(&corpus_dir().join("vectors/compact")).unwrap();
    assert_eq!(c.codec, "compact");
    assert_eq!(c.messages.len(), 149);
    assert!(c.messages.windows(2).all(|w| w[0].name < w[1].name));
    let msg03 = c.messages.iter().find(|m| m.name == "msg03").unwrap();
    assert_eq!(
        msg03.bytes,
        std::fs::read(corpus_dir().join("vectors/compact/msg03.txt")).unwrap()
    );
}
