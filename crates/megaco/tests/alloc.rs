//! Memory use of the decoders: decoding allocates in proportion to the
//! input, and an absurd length in a tiny input allocates almost nothing.
//!
//! A counting global allocator measures the bytes each decode requests
//! (every `alloc`, plus the new size of every `realloc`), per thread, so
//! the tests of this file can run in parallel.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};

use megaco::ber::{self, BerConfig};
use megaco::native::{self, NativeConfig};
use megaco::per::{self, PerConfig};
use megaco::text;
use megaco::MegacoMessage;

thread_local! {
    /// Bytes requested on this thread since it started.
    static REQUESTED: Cell<usize> = const { Cell::new(0) };
    /// Allocations (and reallocations) on this thread since it started.
    static CALLS: Cell<usize> = const { Cell::new(0) };
}

/// Forwards to the system allocator and adds each request's size to the
/// calling thread's [`REQUESTED`] counter.
struct Counting;

fn count(bytes: usize) {
    // `try_with`: during thread teardown the counter may be gone already.
    let _ = REQUESTED.try_with(|c| c.set(c.get().saturating_add(bytes)));
    let _ = CALLS.try_with(|c| c.set(c.get().saturating_add(1)));
}

// SAFETY: every method forwards its arguments unchanged to `System`, which
// upholds the `GlobalAlloc` contract; the only addition is a thread-local
// counter update (a const-initialised `Cell`, which itself never
// allocates, so there is no re-entry).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Bytes `f` requests on this thread.
fn requested<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = REQUESTED.with(Cell::get);
    let out = f();
    let after = REQUESTED.with(Cell::get);
    (after - before, out)
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

/// Every file of `corpus/vectors/<dir>`, sorted.
fn vectors(dir: &str) -> Vec<(String, Vec<u8>)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(corpus().join("vectors").join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    let out: Vec<_> = paths
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    assert_eq!(out.len(), 149, "{dir}");
    out
}

/// The bound: at most `RATIO` bytes requested per input byte plus
/// `CONSTANT`, after a warm-up decode on the thread.
///
/// Measured (dev profile, the 149 corpus messages; printed by
/// `cargo test -p megaco --test alloc -- --nocapture`), as the worst
/// bytes requested per input byte and the message closest to the bound:
///
/// | encoding          | worst ratio    | closest (requested / input) |
/// |-------------------|----------------|-----------------------------|
/// | pretty            | 21.3 (165 B)   | 3 511 / 165                 |
/// | compact           | 39.0 (90 B)    | 8 476 / 328                 |
/// | BER               | 43.7 (82 B)    | 8 776 / 316                 |
/// | PER               | 92.0 (39 B)    | 8 788 / 174                 |
/// | native plain      | 14.7 (72 B)    | 2 429 / 243                 |
/// | native compact    | 25.7 (41 B)    | 2 684 / 168                 |
/// | native compressed | 29.8 (100 B)   | 2 981 / 100                 |
/// | native both       | 36.9 (79 B)    | 2 918 / 79                  |
///
/// The high ratios are small messages, where a fixed few kilobytes
/// dominate; the bound leaves at least 2.5x headroom for every message.
const RATIO: usize = 32;
const CONSTANT: usize = 16 * 1024;

/// Checks one encoding's vectors; returns the worst ratio seen (in
/// hundredths) for the report.
fn check(
    encoding: &str,
    inputs: &[(String, Vec<u8>)],
    decode: impl Fn(&[u8]) -> bool,
) -> (usize, usize) {
    let mut worst = (0usize, 0usize);
    let mut worst_share = (0usize, 0usize, 0usize);
    for (name, bytes) in inputs {
        // Warm up: the first decode on a thread may set up per-thread
        // state (reused buffers, the inflater of compressed native), a
        // fixed cost measured in `first_decode_fixed_cost`.
        decode(bytes);
        let (n, ok) = requested(|| decode(bytes));
        assert!(ok, "{encoding} {name} does not decode");
        assert!(
            n <= RATIO * bytes.len() + CONSTANT,
            "{encoding} {name}: {n} bytes requested for {} input bytes",
            bytes.len()
        );
        let share = n * 100 / (RATIO * bytes.len() + CONSTANT);
        if share > worst_share.0 {
            worst_share = (share, n, bytes.len());
        }
        if n * 100 / bytes.len() > worst.0 {
            worst = (n * 100 / bytes.len(), bytes.len());
        }
    }
    println!(
        "{encoding}: worst {}.{:02} bytes requested per input byte (a {}-byte message)",
        worst.0 / 100,
        worst.0 % 100,
        worst.1
    );
    println!(
        "{encoding}: closest to the bound {}% ({} bytes for {} input bytes)",
        worst_share.0, worst_share.1, worst_share.2
    );
    worst
}

#[test]
fn decoding_allocates_in_proportion_to_input() {
    check("pretty", &vectors("pretty"), |b| text::decode(b).is_ok());
    check("compact", &vectors("compact"), |b| text::decode(b).is_ok());
    let ber_cfg = BerConfig::otp();
    check("ber", &vectors("ber"), |b| ber::decode(b, &ber_cfg).is_ok());
    let per_cfg = PerConfig::default();
    check("per", &vectors("per"), |b| per::decode(b, &per_cfg).is_ok());
    // Native: OTP has no vectors of our format; encode each corpus
    // message in each configuration, then measure its decoding.
    let models: Vec<_> = vectors("ber")
        .iter()
        .map(|(_, b)| ber::decode(b, &ber_cfg).unwrap())
        .collect();
    for cfg in NativeConfig::ALL {
        let inputs: Vec<(String, Vec<u8>)> = models
            .iter()
            .enumerate()
            .map(|(i, m)| (format!("message {i}"), native::encode(m, &cfg).unwrap()))
            .collect();
        check(&format!("native {cfg:?}"), &inputs, |b| {
            native::decode(b, &cfg).is_ok()
        });
    }
}

/// Each input is a handful of bytes promising gigabytes; decoding must
/// fail having requested almost nothing.
#[test]
fn absurd_lengths_allocate_almost_nothing() {
    const SMALL: usize = 1024;
    let ber_inputs: [&[u8]; 4] = [
        &[0x30, 0x84, 0xff, 0xff, 0xff, 0xff, 0xa1, 0x00],
        &[0x30, 0x84, 0x7f, 0xff, 0xff, 0xff],
        &[0x30, 0x06, 0x80, 0x01, 0x01, 0xa1, 0x84, 0xff],
        &[
            0x30, 0x0a, 0x80, 0x01, 0x01, 0xa1, 0x05, 0x80, 0x83, 0xff, 0xff, 0xff,
        ],
    ];
    for b in ber_inputs {
        for cfg in [BerConfig::otp(), BerConfig::default()] {
            let (n, r) = requested(|| ber::decode(b, &cfg));
            assert!(r.is_err(), "{b:02x?}");
            assert!(n <= SMALL, "BER {b:02x?}: {n} bytes requested");
        }
    }
    // PER: a v1 header and mId, then absurd transaction counts.
    let head = [0x00, 0x84, 0x0a, 0x00, 0x00, 0x01, 0x0b, 0x80, 0x80];
    for tail in [&[0xbf, 0xff][..], &[0xc4], &[0xc1], &[0x81, 0x00]] {
        let b = [&head[..], tail].concat();
        let (n, r) = requested(|| per::decode(&b, &PerConfig::default()));
        assert!(r.is_err(), "{b:02x?}");
        assert!(n <= SMALL, "PER {b:02x?}: {n} bytes requested");
    }
    // Native: a header then a maximal varint as the first length.
    for cfg in NativeConfig::ALL {
        let m = text::decode(b"!/1 [10.0.0.1]:2944 T=1{C=-{AV=ROOT}}").unwrap();
        let good = native::encode(&m, &cfg).unwrap();
        // Warm up the per-thread inflater (see `first_decode_fixed_cost`).
        native::decode(&good, &cfg).unwrap();
        let b = [
            good[0], 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
        ];
        let (n, r) = requested(|| native::decode(&b, &cfg));
        assert!(r.is_err(), "{cfg:?}");
        assert!(n <= SMALL, "native {cfg:?}: {n} bytes requested");
    }
    // Text: a size beyond the limit is refused before anything else.
    let huge = vec![b' '; 5 * 1024 * 1024];
    let (n, r) = requested(|| text::decode(&huge));
    assert!(r.is_err());
    assert!(n <= SMALL, "text: {n} bytes requested");
}

/// The one-time cost of a thread's first decode in each encoding, before
/// any per-thread state exists. Bounded by a constant: a small message.
///
/// Measured on msg01a (dev profile): text 4 720 bytes, BER 5 259, PER
/// 5 280, native plain and compact 1 744, compressed 49 761 (the
/// inflater's state and window), compact+compressed 2 119 (the inflater
/// is per thread, already set up by then).
#[test]
fn first_decode_fixed_cost() {
    let pick = |dir: &str| vectors(dir).swap_remove(0).1;
    let (pretty, ber_v, per_v) = (pick("pretty"), pick("ber"), pick("per"));
    let m = ber::decode(&ber_v, &BerConfig::otp()).unwrap();
    let natives: Vec<_> = NativeConfig::ALL
        .iter()
        .map(|c| native::encode(&m, c).unwrap())
        .collect();
    // A fresh thread, so nothing is set up yet.
    std::thread::spawn(move || {
        let (t, _) = requested(|| text::decode(&pretty).unwrap());
        let (b, _) = requested(|| ber::decode(&ber_v, &BerConfig::otp()).unwrap());
        let (p, _) = requested(|| per::decode(&per_v, &PerConfig::default()).unwrap());
        println!("first decode: text {t}, BER {b}, PER {p} bytes");
        for (cfg, bytes) in NativeConfig::ALL.iter().zip(&natives) {
            let (n, _) = requested(|| native::decode(bytes, cfg).unwrap());
            println!("first decode: native {cfg:?} {n} bytes");
            assert!(n <= 128 * 1024, "{cfg:?}: {n}");
        }
        for n in [t, b, p] {
            assert!(n <= 64 * 1024, "{n}");
        }
    })
    .join()
    .unwrap();
}

/// The borrowed view allocates nothing: its header and every item of
/// every corpus message, in BER as OTP writes it and as our standard
/// dialect does, without one allocation.
#[test]
fn view_allocates_nothing() {
    use megaco::codec::Encoding;
    use megaco::view::{Item, MessageView};
    let otp = Encoding::ber();
    let standard = Encoding::Ber(BerConfig::default());
    let mut inputs: Vec<(&Encoding, Vec<u8>)> = Vec::new();
    for (_, bytes) in vectors("ber") {
        let m = ber::decode(&bytes, &BerConfig::otp()).unwrap();
        inputs.push((&standard, standard.encode(&m).unwrap()));
        inputs.push((&otp, bytes));
    }
    // Warm up (nothing per-thread is expected, but be fair).
    let walk = |enc: &Encoding, bytes: &[u8]| {
        let view = MessageView::parse(bytes, enc).unwrap();
        let mut n = usize::from(view.version());
        for item in view.items() {
            n += match item.unwrap() {
                Item::TerminationId(t) => usize::from(t.is_root()) + 1,
                Item::Command(c) => c.kind.name().len(),
                _ => 1,
            };
        }
        n
    };
    for (enc, bytes) in &inputs {
        walk(enc, bytes);
    }
    let mut items = 0;
    for (enc, bytes) in &inputs {
        let (n, count) = requested(|| walk(enc, bytes));
        assert_eq!(n, 0, "the view allocated {n} bytes");
        items += count;
    }
    assert!(items > 149 * 2 * 3, "{items}");
}

/// The binary decoders build the model in a few allocations: on average
/// at most five per corpus message (the model keeps one-element lists and
/// short strings inline). Measured: BER 3.49, PER 4.85.
#[test]
fn binary_decoders_allocate_at_most_five_times_a_message() {
    let average = |dir: &str, decode: &dyn Fn(&[u8]) -> bool| {
        let inputs = vectors(dir);
        // Warm up: the registry builds its lookup tables once per process.
        decode(&inputs[0].1);
        let before = CALLS.with(Cell::get);
        for (name, bytes) in &inputs {
            assert!(decode(bytes), "{name}");
        }
        let calls = CALLS.with(Cell::get) - before;
        let avg = calls as f64 / inputs.len() as f64;
        println!("{dir}: {avg:.2} allocations per message");
        avg
    };
    let ber_cfg = BerConfig::otp();
    let per_cfg = PerConfig::default();
    assert!(average("ber", &|b| ber::decode(b, &ber_cfg).is_ok()) <= 5.0);
    assert!(average("per", &|b| per::decode(b, &per_cfg).is_ok()) <= 5.0);
}

/// The encoders write into the caller's buffer and allocate nothing else:
/// with a buffer kept across messages (grown once by a first pass), every
/// corpus message in BER (both dialects), PER and both text styles is
/// encoded without one allocation.
#[test]
fn encoders_into_a_kept_buffer_allocate_nothing() {
    let models: Vec<MegacoMessage> = vectors("ber")
        .iter()
        .map(|(_, b)| ber::decode(b, &BerConfig::otp()).unwrap())
        .collect();
    let (otp, standard, per_cfg) = (BerConfig::otp(), BerConfig::default(), PerConfig::default());
    type Encoder<'a> = &'a dyn Fn(&MegacoMessage, &mut Vec<u8>);
    let encoders: [(&str, Encoder<'_>); 5] = [
        ("ber [otp]", &|m, out| {
            ber::encode_into(m, &otp, out).unwrap()
        }),
        ("ber", &|m, out| {
            ber::encode_into(m, &standard, out).unwrap()
        }),
        ("per", &|m, out| per::encode_into(m, &per_cfg, out).unwrap()),
        ("pretty", &|m, out| {
            text::encode(m, text::Style::Pretty, out).unwrap()
        }),
        ("compact", &|m, out| {
            text::encode(m, text::Style::Compact, out).unwrap()
        }),
    ];
    for (name, encode) in encoders {
        let mut out = Vec::new();
        for m in &models {
            out.clear();
            encode(m, &mut out);
        }
        for (i, m) in models.iter().enumerate() {
            out.clear();
            let before = CALLS.with(Cell::get);
            encode(m, &mut out);
            let calls = CALLS.with(Cell::get) - before;
            assert_eq!(calls, 0, "{name}, message {i}: {calls} allocations");
        }
    }
}
