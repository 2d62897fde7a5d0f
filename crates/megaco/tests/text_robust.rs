//! The text decoder never panics: every corpus vector, truncated at every
//! byte offset and with every byte replaced by each of a few bytes,
//! decodes to `Ok` or `Err`.
//!
//! The work is quadratic in the message size, so only corpus/vectors (the
//! 149 corpus messages in OTP's pretty and compact encodings) get every
//! offset in both tests. The OTP-suite texts are cut at every offset when
//! at most 4 KiB and mutated at every fourth offset; the 18 larger ones
//! (long lists of one item) are cut at their first 512 offsets and mutated
//! at their first 128, plus a few offsets spread over the rest.

use megaco::text::decode;
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

/// Every text vector: vectors/{pretty,compact} and the OTP-suite texts.
/// Each with its name and whether it is one of corpus/vectors.
fn text_vectors() -> Vec<(String, Vec<u8>, bool)> {
    let mut dirs = vec![
        corpus().join("vectors/pretty"),
        corpus().join("vectors/compact"),
    ];
    for v in ["v1", "v2", "v3"] {
        dirs.push(corpus().join("otp-suite").join(v));
    }
    let mut out = Vec::new();
    for d in dirs {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "txt"))
            .collect();
        paths.sort();
        for p in paths {
            let bytes = std::fs::read(&p).unwrap();
            let is_vector = d.starts_with(corpus().join("vectors"));
            out.push((p.display().to_string(), bytes, is_vector));
        }
    }
    assert!(out.len() > 500, "{} vectors", out.len());
    out
}

/// Offsets `0..len`: all of them when `full`, else every `step`-th;
/// for texts over 4 KiB the first `head` plus `spread` evenly spaced ones.
fn offsets(len: usize, full: bool, step: usize, head: usize, spread: usize) -> Vec<usize> {
    if len <= 4096 {
        let step = if full { 1 } else { step };
        return (0..len).step_by(step).collect();
    }
    let mut v: Vec<usize> = (0..head).collect();
    v.extend((1..=spread).map(|k| head + (len - head - 1) * k / spread));
    v
}

/// Runs `f` over the vectors on two threads (the work is independent).
fn for_all(f: impl Fn(&str, &[u8], bool) + Sync) {
    let vectors = text_vectors();
    let (a, b) = vectors.split_at(vectors.len() / 2);
    std::thread::scope(|s| {
        for half in [a, b] {
            let f = &f;
            s.spawn(move || {
                for (name, bytes, is_vector) in half {
                    f(name, bytes, *is_vector);
                }
            });
        }
    });
}

#[test]
fn every_truncation_decodes_without_panic() {
    for_all(|name, bytes, _| {
        assert!(decode(bytes).is_ok(), "{name}");
        for end in offsets(bytes.len(), true, 1, 512, 32) {
            // Ok is possible: a prefix can be a complete message.
            let _ = decode(&bytes[..end]);
        }
    });
}

#[test]
fn every_byte_replaced_decodes_without_panic() {
    const REPLACEMENTS: [u8; 6] = [0x00, b'{', b'}', b'=', b'9', 0xFF];
    for_all(|_name, bytes, is_vector| {
        let mut buf = bytes.to_vec();
        for i in offsets(buf.len(), is_vector, 4, 128, 8) {
            let orig = buf[i];
            for r in REPLACEMENTS {
                buf[i] = r;
                let _ = decode(&buf);
            }
            buf[i] = orig;
        }
    });
}

#[test]
fn garbage_and_edge_inputs() {
    let inputs: [&[u8]; 12] = [
        b"",
        b" ",
        b";",
        b"MEGACO",
        b"MEGACO/",
        b"MEGACO/9 [1.2.3.4] T=1{}",
        b"!/1 [",
        b"!/1 [::",
        b"!/1 <",
        b"!/1 MTP{",
        b"!/1 [1.2.3.4] T=1{C=1{MF=a/1{M{L{\\",
        b"\xff\xfe\x00",
    ];
    for i in inputs {
        assert!(decode(i).is_err(), "{i:?}");
    }
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn random_edits_decode_without_panic() {
    // Structural bytes and keyword fragments make edits reach deep states.
    const PIECES: [&[u8]; 16] = [
        b"{",
        b"}",
        b"[",
        b"]",
        b"=",
        b",",
        b":",
        b"\"",
        b";",
        b"\n",
        b"-",
        b"*",
        b"$",
        b"/",
        b"EM{E=1{a/b{NBRN{",
        b"v=0\n",
    ];
    let vectors: Vec<Vec<u8>> = text_vectors()
        .into_iter()
        .filter(|v| v.2)
        .map(|v| v.1)
        .collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..200_000 {
        let mut buf = vectors[rng.below(vectors.len())].clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(buf.len() + 1);
            match rng.below(5) {
                0 => {
                    let p = PIECES[rng.below(PIECES.len())];
                    buf.splice(at..at, p.iter().copied());
                }
                1 => {
                    let end = (at + rng.below(16)).min(buf.len());
                    buf.drain(at..end);
                }
                2 => {
                    // Duplicate a slice in place.
                    let end = (at + rng.below(64)).min(buf.len());
                    let dup: Vec<u8> = buf[at..end].to_vec();
                    buf.splice(at..at, dup);
                }
                3 => {
                    // Splice in the tail of another message.
                    let other = &vectors[rng.below(vectors.len())];
                    let from = rng.below(other.len());
                    buf.truncate(at);
                    buf.extend_from_slice(&other[from..]);
                }
                _ => {
                    if at < buf.len() {
                        buf[at] = rng.next() as u8;
                    }
                }
            }
        }
        let _ = decode(&buf);
    }
}
