//! The four decoder limits (`megaco::Limits`) over the whole corpus, for
//! every decoder: for each message and each limit, the smallest value it
//! decodes under is found by bisection; one less must fail with that
//! limit's typed error (and no other), the default must be far above it,
//! and for the codecs that carry strings and lists verbatim (text,
//! native) the smallest string and list limits must cover the longest
//! string and list of the decoded model.

use std::path::{Path, PathBuf};

use megaco::ber::BerConfig;
use megaco::codec::{DecodeError, DecodeErrorKind, Encoding, Limit};
use megaco::model::MegacoMessage;
use megaco::native::{self, NativeConfig};
use megaco::per::PerConfig;
use megaco::text::{self, Style};
use megaco::Limits;

type Decoded = Result<MegacoMessage, (Option<Limit>, String)>;
type Decoder = Box<dyn Fn(&[u8], Limits) -> Decoded>;

/// One decoder under test.
struct Codec {
    name: &'static str,
    /// Whether the model holds its strings and lists as the input does.
    verbatim: bool,
    decode: Decoder,
}

/// Which limit an error reports, if any, and its message.
fn hit(e: DecodeError) -> (Option<Limit>, String) {
    (e.exceeded_limit(), e.to_string())
}

fn codec(name: &'static str, verbatim: bool, encoding: fn(Limits) -> Encoding) -> Codec {
    Codec {
        name,
        verbatim,
        decode: Box::new(move |b, limits| encoding(limits).decode(b).map_err(hit)),
    }
}

fn text_codec() -> Codec {
    codec("text", true, |limits| Encoding::Text {
        style: Style::Compact,
        limits,
    })
}

fn ber_codec() -> Codec {
    codec("ber", false, |limits| {
        Encoding::Ber(BerConfig {
            limits,
            ..BerConfig::otp()
        })
    })
}

fn per_codec() -> Codec {
    codec("per", false, |limits| {
        Encoding::Per(PerConfig {
            limits,
            ..PerConfig::default()
        })
    })
}

fn native_codec(base: NativeConfig) -> Codec {
    Codec {
        name: "native",
        // compact native writes frequent strings as codes
        verbatim: !base.compact,
        decode: Box::new(move |b, limits| {
            Encoding::Native(NativeConfig { limits, ..base })
                .decode(b)
                .map_err(hit)
        }),
    }
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/vectors")
}

/// Every file of `corpus/vectors/<dir>`, sorted.
fn vectors(dir: &str) -> Vec<(String, Vec<u8>)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(corpus().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    assert_eq!(paths.len(), 149, "{dir}");
    paths
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect()
}

fn with(hit: Limit, v: usize) -> Limits {
    let mut l = Limits::DEFAULT;
    match hit {
        Limit::MessageSize => l.max_message_size = v,
        Limit::Depth => l.max_depth = v,
        Limit::ListLen => l.max_list_len = v,
        Limit::StringLen => l.max_string_len = v,
    }
    l
}

/// The smallest value of `hit`'s limit under which `input` decodes
/// (everything else at its default); checks that one less fails with
/// exactly that limit's error.
fn smallest(codec: &Codec, name: &str, input: &[u8], hit: Limit, default: usize) -> usize {
    let ok = |v: usize| (codec.decode)(input, with(hit, v));
    assert!(ok(default).is_ok(), "{}: {name} at default", codec.name);
    let (mut lo, mut hi) = (0, default);
    // invariant: decodes at hi; lo is 0 or fails
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ok(mid).is_ok() {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    if hi > 0 {
        match ok(hi - 1) {
            Ok(_) => panic!("{}: {name}: {hit:?} limit not monotonic", codec.name),
            Err((got, msg)) => assert_eq!(
                got,
                Some(hit),
                "{}: {name}: at {hit:?} limit {} the error is `{msg}`",
                codec.name,
                hi - 1
            ),
        }
    }
    hi
}

/// Longest string and longest list in the model (through its JSON form,
/// where the model's strings and vectors are JSON strings and arrays).
/// Arrays of numbers are fixed-size fields (IP addresses), not lists;
/// mids are written in their text form there, which is not one string of
/// the encoding.
fn longest(msg: &MegacoMessage) -> (usize, usize) {
    fn walk(v: &serde_json::Value, s: &mut usize, l: &mut usize) {
        match v {
            serde_json::Value::String(x) => *s = (*s).max(x.len()),
            serde_json::Value::Array(a) => {
                if !a.iter().all(serde_json::Value::is_number) {
                    *l = (*l).max(a.len());
                }
                a.iter().for_each(|x| walk(x, s, l));
            }
            serde_json::Value::Object(o) => o
                .iter()
                .filter(|(k, _)| *k != "mid" && *k != "service_change_mgc_id")
                .for_each(|(_, x)| walk(x, s, l)),
            _ => {}
        }
    }
    let (mut s, mut l) = (0, 0);
    walk(&serde_json::to_value(msg).unwrap(), &mut s, &mut l);
    (s, l)
}

fn check(codec: &Codec, inputs: &[(String, Vec<u8>)]) {
    let default = if codec.name == "per" {
        PerConfig::default().limits
    } else {
        Limits::DEFAULT
    };
    let (mut worst_depth, mut worst_list, mut worst_string) = (0, 0, 0);
    for (name, input) in inputs {
        let msg = (codec.decode)(input, default).unwrap();
        let size = smallest(
            codec,
            name,
            input,
            Limit::MessageSize,
            default.max_message_size,
        );
        if codec.name != "native" || input[0] & 2 == 0 {
            assert_eq!(size, input.len(), "{}: {name}", codec.name);
        } else {
            // compressed: the decompressed body is bounded too
            assert!(size >= input.len(), "{}: {name}", codec.name);
        }
        let depth = smallest(codec, name, input, Limit::Depth, default.max_depth);
        let list = smallest(codec, name, input, Limit::ListLen, default.max_list_len);
        let string = smallest(codec, name, input, Limit::StringLen, default.max_string_len);
        if codec.verbatim {
            let (s, l) = longest(&msg);
            assert!(
                string >= s,
                "{}: {name}: string limit {string} < {s}",
                codec.name
            );
            assert!(list >= l, "{}: {name}: list limit {list} < {l}", codec.name);
        }
        worst_depth = worst_depth.max(depth);
        worst_list = worst_list.max(list);
        worst_string = worst_string.max(string);
    }
    // The defaults leave room: no corpus message comes near them.
    assert!(
        worst_depth * 2 <= default.max_depth,
        "{}: {worst_depth}",
        codec.name
    );
    assert!(worst_list * 100 <= default.max_list_len, "{}", codec.name);
    assert!(
        worst_string * 10 <= default.max_string_len,
        "{}",
        codec.name
    );
}

#[test]
fn text_limits_over_the_corpus() {
    check(&text_codec(), &vectors("compact"));
    check(&text_codec(), &vectors("pretty"));
}

#[test]
fn ber_limits_over_the_corpus() {
    check(&ber_codec(), &vectors("ber"));
}

#[test]
fn per_limits_over_the_corpus() {
    check(&per_codec(), &vectors("per"));
}

#[test]
fn native_limits_over_the_corpus() {
    let models: Vec<(String, MegacoMessage)> = vectors("compact")
        .into_iter()
        .map(|(n, b)| (n, text::decode(&b).unwrap()))
        .collect();
    for cfg in NativeConfig::ALL {
        let inputs: Vec<(String, Vec<u8>)> = models
            .iter()
            .map(|(n, m)| (n.clone(), native::encode(m, &cfg).unwrap()))
            .collect();
        check(&native_codec(cfg), &inputs);
    }
}

/// The encoders refuse what their decoder's depth limit would refuse, so
/// nothing they write is unreadable with the same limits.
#[test]
fn native_encoder_refuses_what_its_decoder_would() {
    let msg = text::decode(&vectors("compact")[20].1).unwrap();
    let bytes = native::encode(&msg, &NativeConfig::PLAIN).unwrap();
    let depth = smallest(
        &native_codec(NativeConfig::PLAIN),
        "msg",
        &bytes,
        Limit::Depth,
        64,
    );
    let at = |d| NativeConfig {
        limits: with(Limit::Depth, d),
        ..NativeConfig::PLAIN
    };
    assert!(native::encode(&msg, &at(depth)).is_ok());
    assert!(matches!(
        native::encode(&msg, &at(depth - 1)),
        Err(megaco::EncodeError::Invalid { what: "native", .. })
    ));
}

/// `max_list_len` is the most items a list may hold: a list of exactly
/// that many decodes, one more fails, whichever list it is.
#[test]
fn text_lists_of_exactly_the_limit_decode() {
    let cases = [
        // transactions
        (
            "!/1 [10.0.0.1] T=1{C=-{AV=ROOT}} T=2{C=-{AV=ROOT}}",
            "!/1 [10.0.0.1] T=1{C=-{AV=ROOT}} T=2{C=-{AV=ROOT}} T=3{C=-{AV=ROOT}}",
        ),
        // termination ids of a v3 command
        (
            "!/3 [10.0.0.1] T=1{C=-{AV=[a/1,a/2]}}",
            "!/3 [10.0.0.1] T=1{C=-{AV=[a/1,a/2,a/3]}}",
        ),
        // values of a property
        (
            "!/1 [10.0.0.1] T=1{C=1{MF=a/1{M{O{tdmc/x=[1,2]}}}}}",
            "!/1 [10.0.0.1] T=1{C=1{MF=a/1{M{O{tdmc/x=[1,2,3]}}}}}",
        ),
        // commands of an action
        (
            "!/1 [10.0.0.1] T=1{C=1{MF=a/1,MF=a/2}}",
            "!/1 [10.0.0.1] T=1{C=1{MF=a/1,MF=a/2,MF=a/3}}",
        ),
    ];
    let limits = Limits {
        max_list_len: 2,
        ..Limits::DEFAULT
    };
    for (two, three) in cases {
        let text = Encoding::Text {
            style: Style::Compact,
            limits,
        };
        text.decode(two.as_bytes())
            .unwrap_or_else(|e| panic!("{two}: {e}"));
        let e = text.decode(three.as_bytes()).unwrap_err();
        assert_eq!(e.exceeded_limit(), Some(Limit::ListLen), "{three}");
        assert!(
            matches!(e.kind(), DecodeErrorKind::LimitExceeded { max: 2, .. }),
            "{three}"
        );
    }
}

/// A compressed native body may inflate to exactly `max_message_size`
/// bytes, not one more.
#[test]
fn compressed_native_body_at_exactly_the_size_limit() {
    for (name, bytes) in vectors("compact") {
        let msg = text::decode(&bytes).unwrap();
        let input = native::encode(&msg, &NativeConfig::COMPRESSED).unwrap();
        // the body is the plain encoding without its header byte
        let body = native::encode(&msg, &NativeConfig::PLAIN).unwrap().len() - 1;
        if body <= input.len() {
            continue; // the input itself bounds the limit from below
        }
        let at = |max| NativeConfig {
            limits: Limits {
                max_message_size: max,
                ..Limits::DEFAULT
            },
            ..NativeConfig::COMPRESSED
        };
        assert_eq!(native::decode(&input, &at(body)).unwrap(), msg, "{name}");
        let e = native::decode(&input, &at(body - 1)).unwrap_err();
        assert_eq!(
            e.kind(),
            &DecodeErrorKind::LimitExceeded {
                limit: Limit::MessageSize,
                max: body - 1,
                found: None
            },
            "{name}"
        );
    }
}
