//! The usual BER header, read in one straight pass.
//!
//! Nearly every message starts the same way: the `MegacoMessage`
//! SEQUENCE, its one `Message`, a one-octet `version`, an IPv4 `mId`
//! (address and perhaps a port) and the `messageBody` holding the
//! transactions. Read through the general reader, those ten TLVs cost
//! the borrowed view as much as walking all of the transactions after
//! them. [`usual_header`] checks the octets of that shape directly, with
//! definite lengths of up to two octets, and gives up (`None`) on
//! anything else: an authentication header, another mId, a component
//! out of the usual order or a repeated one, an error body, limits too
//! small for the header. The decoders then read the message the general
//! way, so what this pass accepts is always what they would have read
//! (the tests below compare the two on the corpus and on every one-octet
//! change of its headers).

use super::reader::{span, Span, MAX_INPUT};
use crate::model::Ip4Address;
use crate::Limits;

/// What [`usual_header`] read.
#[derive(Debug, Clone, Copy)]
pub(super) struct UsualHeader {
    /// `Message.version`, 1 to 3.
    pub version: u8,
    /// The IPv4 `mId`.
    pub mid: Ip4Address,
    /// The `transactions [1]` alternative of `messageBody`.
    pub transactions: Span,
}

/// The usual header of `bytes` (see the [module docs](self)), or `None`
/// for any other.
#[inline]
pub(super) fn usual_header(bytes: &[u8], limits: &Limits) -> Option<UsualHeader> {
    // The general reader's limits over this header: its deepest
    // container is at depth 3 (`children` refuses depth ≥ max_depth),
    // `Message` has three components, the address four octets.
    if limits.max_depth < 4
        || limits.max_list_len < 3
        || limits.max_string_len < 4
        || bytes.len() > MAX_INPUT
    {
        return None;
    }
    let b = bytes;
    let n = b.len();
    // MegacoMessage, spanning the input, and its only component, Message.
    let (s, e) = tl(b, 0, 0x30, n).filter(|&(_, e)| e == n)?;
    let (s, e) = tl(b, s, 0xA1, e).filter(|&(_, end)| end == e)?;
    let version = match b.get(s..s + 3)? {
        &[0x80, 0x01, v @ 1..=3] => v,
        _ => return None,
    };
    // mId [1], whose one component is ip4Address [0]: address [0], then
    // perhaps portNumber [1].
    let (ms, me) = tl(b, s + 3, 0xA1, e)?;
    let (ip, ipe) = tl(b, ms, 0xA0, me).filter(|&(_, end)| end == me)?;
    let (a, ae) = tl(b, ip, 0x80, ipe)?;
    let address: [u8; 4] = b[a..ae].try_into().ok()?;
    let port = if ae == ipe {
        None
    } else {
        let (p, pe) = tl(b, ae, 0x81, ipe).filter(|&(_, end)| end == ipe)?;
        Some(port(&b[p..pe])?)
    };
    // messageBody [2], the last component of Message, and its
    // transactions [1] alternative (which the decoders read first, like
    // any CHOICE).
    let (bs, be) = tl(b, me, 0xA2, e).filter(|&(_, end)| end == e)?;
    let (ts, te) = tl(b, bs, 0xA1, be)?;
    Some(UsualHeader {
        version,
        mid: Ip4Address { address, port },
        transactions: span(0xA1, bs, ts, te, 3),
    })
}

/// The content start and end of the TLV at `pos` when its tag octet is
/// `tag` and its definite length (short, or one or two octets after 0x81
/// or 0x82) ends within `limit`.
#[inline(always)]
fn tl(b: &[u8], pos: usize, tag: u8, limit: usize) -> Option<(usize, usize)> {
    let (start, len) = match *b.get(pos..pos + 2)? {
        [t, _] if t != tag => return None,
        [_, l @ 0..=0x7F] => (pos + 2, usize::from(l)),
        [_, 0x81] => (pos + 3, usize::from(*b.get(pos + 2)?)),
        [_, 0x82] => {
            let l = b.get(pos + 2..pos + 4)?;
            (pos + 4, usize::from(l[0]) << 8 | usize::from(l[1]))
        }
        _ => return None,
    };
    let end = start + len;
    (end <= limit).then_some((start, end))
}

/// A port number INTEGER as the general decoder reads it: one to three
/// octets, not negative, at most 65535.
#[inline]
fn port(c: &[u8]) -> Option<u16> {
    match *c {
        [p] if p < 0x80 => Some(u16::from(p)),
        [h, l] if h < 0x80 => Some(u16::from_be_bytes([h, l])),
        [0, h, l] => Some(u16::from_be_bytes([h, l])),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{view, BerConfig, Mapping};
    use crate::view::MessageView;
    use std::path::PathBuf;

    /// OTP's BER vectors of the corpus, and the same messages in the
    /// standard dialect.
    fn vectors() -> Vec<Vec<u8>> {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus/vectors/ber");
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).unwrap() {
            let otp = std::fs::read(e.unwrap().path()).unwrap();
            let model = super::super::decode(&otp, &BerConfig::otp()).unwrap();
            out.push(super::super::encode(&model, &BerConfig::default()).unwrap());
            out.push(otp);
        }
        assert!(out.len() >= 2 * 149, "the corpus's BER vectors");
        out
    }

    /// Both dialects and mappings, and limits at and just below what the
    /// header needs.
    fn configs() -> Vec<BerConfig> {
        let native = BerConfig {
            mapping: Mapping::Native,
            ..BerConfig::default()
        };
        let mut out = vec![BerConfig::default(), BerConfig::otp(), native];
        for (depth, list, string) in [(4, 3, 4), (3, 3, 4), (4, 2, 4), (4, 3, 3)] {
            let mut tight = BerConfig::default();
            tight.limits.max_depth = depth;
            tight.limits.max_list_len = list;
            tight.limits.max_string_len = string;
            out.push(tight);
        }
        out
    }

    /// The view and the owned decoder, with and without the usual
    /// header's pass, as comparable text.
    fn both(bytes: &[u8], cfg: &BerConfig) -> [(String, String); 2] {
        let walk = |v: Result<MessageView, _>| match v {
            Ok(v) => {
                let items: Vec<_> = v.items().collect();
                format!("{} {:?} {:?}", v.version(), v.mid(), items)
            }
            Err(e) => format!("{e}"),
        };
        [
            (
                walk(view::parse(bytes, cfg)),
                format!("{:?}", super::super::decode::decode_message(bytes, cfg)),
            ),
            (
                walk(view::parse_general(bytes, cfg)),
                format!(
                    "{:?}",
                    super::super::decode::decode_message_general(bytes, cfg)
                ),
            ),
        ]
    }

    #[test]
    fn most_of_the_corpus_has_the_usual_header() {
        let v = vectors();
        let usual = v
            .iter()
            .filter(|b| super::usual_header(b, &crate::Limits::DEFAULT).is_some())
            .count();
        assert!(usual * 10 >= v.len() * 9, "{usual} of {}", v.len());
    }

    #[test]
    fn the_usual_header_reads_as_the_general_way_does() {
        for cfg in configs() {
            for b in vectors() {
                let [fast, general] = both(&b, &cfg);
                assert_eq!(fast, general);
            }
        }
    }

    /// Every one-octet change to the first 40 octets of every vector, and
    /// every truncation there: the pass either gives up or reads what the
    /// general way reads (error or not).
    #[test]
    fn changed_headers_read_as_the_general_way_does() {
        let cfg = BerConfig::default();
        let mut taken = 0;
        for b in vectors().iter().step_by(7) {
            for i in 0..b.len().min(40) {
                for x in [
                    0x00, 0x01, 0x03, 0x04, 0x7F, 0x80, 0x81, 0x82, 0xA0, 0xA1, 0xFF,
                ]
                .into_iter()
                .chain([b[i] ^ 1, b[i].wrapping_add(1), b[i].wrapping_sub(1)])
                {
                    let mut m = b.clone();
                    m[i] = x;
                    taken += usize::from(super::usual_header(&m, &cfg.limits).is_some());
                    let [fast, general] = both(&m, &cfg);
                    assert_eq!(fast, general, "octet {i} set to {x:#04x}");
                }
                let [fast, general] = both(&b[..i], &cfg);
                assert_eq!(fast, general, "cut at {i}");
            }
        }
        assert!(taken > 100, "the pass took only {taken} changed headers");
    }

    /// Two to four random changes (fixed seed) to the first 40 octets of
    /// every vector, where one-octet changes cannot reach: lengths and
    /// tags changed together.
    #[test]
    fn randomly_changed_headers_read_as_the_general_way_does() {
        let cfg = BerConfig::default();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut taken = 0;
        for b in vectors() {
            for _ in 0..40 {
                let mut m = b.clone();
                for _ in 0..2 + next() % 3 {
                    let r = next();
                    let i = (r % 40) as usize % m.len();
                    m[i] = match (r >> 8) % 4 {
                        0 => (r >> 16) as u8,
                        1 => m[i].wrapping_add(1 + (r >> 16) as u8 % 4),
                        2 => m[i].wrapping_sub(1 + (r >> 16) as u8 % 4),
                        _ => [0x30, 0x80, 0x81, 0x82, 0xA0, 0xA1, 0xA2][(r >> 16) as usize % 7],
                    };
                }
                taken += usize::from(super::usual_header(&m, &cfg.limits).is_some());
                let [fast, general] = both(&m, &cfg);
                assert_eq!(fast, general, "{m:02x?}");
            }
        }
        assert!(taken > 100, "the pass took only {taken} changed headers");
    }

    /// A TLV of `content` with a minimal definite length.
    fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
        let n = content.len();
        let mut out = vec![tag];
        match n {
            0..=0x7F => out.push(n as u8),
            0x80..=0xFF => out.extend([0x81, n as u8]),
            _ => out.extend([0x82, (n >> 8) as u8, n as u8]),
        }
        out.extend_from_slice(content);
        out
    }

    /// The components of `Message` in `bytes`, each whole (tag, length
    /// and content), split by the general reader.
    fn message_components(bytes: &[u8]) -> Vec<Vec<u8>> {
        let limits = crate::Limits::DEFAULT;
        let (top, _) = super::super::decode::top_level(bytes, &limits).unwrap();
        let input = super::super::reader::Input::new(bytes, &limits);
        let mut r = input.children(top).unwrap();
        let message = input.next(&mut r).unwrap().unwrap();
        let mut r = input.children(message).unwrap();
        let mut out = Vec::new();
        while let Some(x) = input.next(&mut r).unwrap() {
            out.push(bytes[x.offset()..x.end()].to_vec());
        }
        out
    }

    /// Messages that differ from the usual header only after the point
    /// where one-octet changes reach: components repeated (the general
    /// way keeps the last), added, reordered, or beside `Message`.
    #[test]
    fn rearranged_headers_read_as_the_general_way_does() {
        let v = vectors();
        let (a, b) = (message_components(&v[0]), message_components(&v[7]));
        let (version, mid, body) = (&a[0], &a[1], &a[2]);
        let other_mid = tlv(0xA1, &tlv(0xA3, b"mg1"));
        let ip4 = |parts: &[&[u8]]| tlv(0xA1, &tlv(0xA0, &parts.concat()));
        let address = tlv(0x80, &[10, 0, 0, 1]);
        let port = tlv(0x81, &[0x0B, 0x80]);
        let mids = [
            ip4(&[&address, &port, &address]),
            ip4(&[&port, &address]),
            ip4(&[&address, &port, &port]),
            ip4(&[&address, &port, &[0x82, 0x00]]),
        ];
        let messages: Vec<Vec<&[u8]>> = vec![
            vec![version, mid, body],
            vec![version, mid, body, &b[2]],
            vec![version, mid, body, &b[1]],
            vec![version, mid, body, &other_mid],
            vec![version, mid, body, &[0x85, 0x00]],
            vec![version, &other_mid, mid, body],
            vec![version, mid, &b[1], body],
            vec![version, body, mid],
            vec![mid, version, body],
            vec![version, &mids[0], body],
            vec![version, &mids[1], body],
            vec![version, &mids[2], body],
            vec![version, &mids[3], body],
        ];
        let auth = tlv(0xA0, &[]);
        let mut taken = 0;
        for parts in messages {
            let message = tlv(0xA1, &parts.concat());
            for top in [
                vec![message.clone()],
                vec![auth.clone(), message.clone()],
                vec![message.clone(), message.clone()],
                vec![message.clone(), vec![0x85, 0x00]],
            ] {
                let m = tlv(0x30, &top.concat());
                taken += usize::from(super::usual_header(&m, &crate::Limits::DEFAULT).is_some());
                for cfg in configs() {
                    let [fast, general] = both(&m, &cfg);
                    assert_eq!(fast, general);
                }
            }
        }
        assert_eq!(taken, 1, "only the first is the usual header");
    }
}
