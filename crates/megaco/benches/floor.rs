//! Decoders against the floor of their bytes, paired in one process.
//!
//! For each message of the corpus, in each encoding, this times the owned
//! decoder and the bare scan of the same bytes back to back, takes the
//! minimum over passes of each, and prints the ratio of the sums. The
//! BER and text floors are the fastest of their copies
//! ([`megaco::floor::COPIES`], one per code address): every copy is timed
//! in every pass beside the decoders, and the row is the copy whose sum
//! is least. Text also gets the tokenizer with every letter-initial word
//! looked up as a keyword ([`megaco::floor::text_keywords`]), what
//! recognising keywords adds to the floor. A counting global allocator
//! gives the exact allocations and heap bytes per decoded message.
//!
//! Run with `cargo bench -p megaco --bench floor` (`-- --passes N` to
//! change the number of passes, 30 by default; `-- --half even|odd` for
//! every other corpus message alone).
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use megaco::ber::{self, BerConfig};
use megaco::codec::Encoding;
use megaco::floor;
use megaco::native::{self, NativeConfig};
use megaco::per::{self, PerConfig};
use megaco::text;
use megaco::view::MessageView;

/// Counts allocations and the bytes they request; forwards to `System`.
struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards its arguments unchanged to `System`, which
// upholds the `GlobalAlloc` contract; the counters are atomics that never
// allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        BYTES.fetch_add(layout.size(), Relaxed);
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        BYTES.fetch_add(new_size, Relaxed);
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn vectors(dir: &str) -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/vectors");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    let half = half();
    paths
        .iter()
        .enumerate()
        .filter(|(i, _)| half.map_or(true, |h| i % 2 == h))
        .map(|(_, p)| std::fs::read(p).unwrap())
        .collect()
}

/// `--half even` or `--half odd`: every other corpus message alone (in
/// the order of their file names, the same messages in every encoding),
/// so that a profile-guided build trained on one half can be timed on the
/// other (`scripts/pgo.sh --check`).
fn half() -> Option<usize> {
    let arg = std::env::args().skip_while(|a| a != "--half").nth(1)?;
    match arg.as_str() {
        "even" => Some(0),
        "odd" => Some(1),
        other => panic!("--half takes even or odd, not {other:?}"),
    }
}

/// An encoder into a fresh vector (returning its length).
type EncFresh<'a> = Box<dyn Fn(&megaco::MegacoMessage) -> usize + 'a>;

/// An encoder appending to a buffer the caller keeps.
type EncInto<'a> = Box<dyn Fn(&megaco::MegacoMessage, &mut Vec<u8>) + 'a>;

/// A function of one message's bytes, timed.
type Scan<'a> = Box<dyn Fn(&[u8]) -> usize + 'a>;

/// A row: a name and a function of one message's bytes.
type Row<'a> = (&'a str, Scan<'a>);

/// Minimum nanoseconds of each of `fs` over `passes`, per input.
fn time_rows(inputs: &[Vec<u8>], fs: &[&Scan<'_>], passes: usize) -> Vec<Vec<f64>> {
    let mut best = vec![vec![f64::INFINITY; inputs.len()]; fs.len()];
    // Enough repetitions of one message to rise above the clock's grain.
    let reps = 20;
    for _ in 0..passes {
        for (i, input) in inputs.iter().enumerate() {
            for (r, f) in fs.iter().enumerate() {
                let t = Instant::now();
                for _ in 0..reps {
                    black_box(f(black_box(input)));
                }
                let ns = t.elapsed().as_nanos() as f64 / reps as f64;
                if ns < best[r][i] {
                    best[r][i] = ns;
                }
            }
        }
    }
    best
}

fn allocations(inputs: &[Vec<u8>], f: &dyn Fn(&[u8]) -> usize) -> (f64, f64) {
    let (a0, b0) = (ALLOCS.load(Relaxed), BYTES.load(Relaxed));
    for input in inputs {
        black_box(f(input));
    }
    let (a1, b1) = (ALLOCS.load(Relaxed), BYTES.load(Relaxed));
    let n = inputs.len() as f64;
    ((a1 - a0) as f64 / n, (b1 - b0) as f64 / n)
}

/// Times the floor (its copies, see [`fastest`]) and `rows` on `inputs`
/// in the same passes, and prints each row against the floor.
fn report(codec: &str, inputs: &[Vec<u8>], floor: Floor<'_>, rows: &[Row<'_>], passes: usize) {
    let (floor_name, copies) = floor;
    let fs: Vec<&Scan<'_>> = copies.iter().chain(rows.iter().map(|(_, f)| f)).collect();
    let mut best = time_rows(inputs, &fs, passes);
    let rest = best.split_off(copies.len());
    let (copy, floor_times) = fastest(best);
    let rows: Vec<(&str, &Scan<'_>)> = std::iter::once((floor_name, &copies[copy]))
        .chain(rows.iter().map(|(name, f)| (*name, f)))
        .collect();
    let best: Vec<Vec<f64>> = std::iter::once(floor_times).chain(rest).collect();
    let floor: f64 = best[0].iter().sum();
    let n = inputs.len() as f64;
    let bytes: usize = inputs.iter().map(Vec::len).sum();
    println!(
        "{codec} ({} messages, {:.0} bytes each on average)",
        inputs.len(),
        bytes as f64 / n
    );
    println!(
        "  {:<24} {:>10} {:>8} {:>10} {:>12}",
        "row", "ns/msg", "x floor", "allocs/msg", "heap B/msg"
    );
    for ((name, f), t) in rows.iter().zip(&best) {
        let sum: f64 = t.iter().sum();
        let (a, b) = allocations(inputs, f.as_ref());
        println!(
            "  {:<24} {:>10.0} {:>8.2} {:>10.2} {:>12.0}",
            name,
            sum / n,
            sum / floor,
            a,
            b
        );
    }
}

/// A floor: its row's name and its copies ([`megaco::floor::COPIES`],
/// one per code address; one function for the byte scan).
type Floor<'a> = (&'a str, Vec<Scan<'a>>);

/// Of the floor copies' times per message (timed in the same passes as
/// the rows they are the floor of), the copy whose sum is least, and its
/// times: the floor's best placement in this run.
fn fastest(copies: Vec<Vec<f64>>) -> (usize, Vec<f64>) {
    let sum = |t: &Vec<f64>| t.iter().sum::<f64>();
    copies
        .into_iter()
        .enumerate()
        .min_by(|a, b| sum(&a.1).total_cmp(&sum(&b.1)))
        .expect("a floor has copies")
}

/// A floor's copies as rows' functions.
fn scans(copies: [floor::Floor; floor::COPIES]) -> Vec<Scan<'static>> {
    copies.into_iter().map(|f| Box::new(f) as Scan).collect()
}

fn main() {
    let passes = std::env::args()
        .skip_while(|a| a != "--passes")
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let ber_cfg = BerConfig::otp();
    let ber_enc = Encoding::Ber(ber_cfg.clone());
    let per_cfg = PerConfig::default();

    let ber_in = vectors("ber");
    report(
        "ber (OTP's vectors, otp dialect)",
        &ber_in,
        ("floor: TLV walk", scans(floor::ber_tlv_walk_copies())),
        &[
            (
                "owned decode",
                Box::new(|b| ber::decode(b, &ber_cfg).map_or(0, |m| m.mess.version as usize)),
            ),
            (
                "view: every item",
                Box::new(|b| {
                    let Ok(v) = MessageView::parse(b, &ber_enc) else {
                        return 0;
                    };
                    v.items().filter(Result::is_ok).count()
                }),
            ),
            ("view: outline", Box::new(|b| outline_walk(b, &ber_enc))),
        ],
        passes,
    );
    let per_in = vectors("per");
    report(
        "per (OTP's vectors)",
        &per_in,
        ("floor: byte scan", vec![Box::new(floor::byte_scan)]),
        &[(
            "owned decode",
            Box::new(|b| per::decode(b, &per_cfg).map_or(0, |m| m.mess.version as usize)),
        )],
        passes,
    );
    let text_enc = megaco::codec::Encoding::pretty();
    for dir in ["pretty", "compact"] {
        let inputs = vectors(dir);
        report(
            dir,
            &inputs,
            ("floor: tokenizer", scans(floor::text_tokens_copies())),
            &[
                ("byte scan", Box::new(floor::byte_scan)),
                ("tokenizer + keywords", Box::new(floor::text_keywords)),
                (
                    "owned decode",
                    Box::new(|b| text::decode(b).map_or(0, |m| m.mess.version as usize)),
                ),
                ("view: every item", Box::new(|b| view_walk(b, &text_enc))),
                ("view: outline", Box::new(|b| outline_walk(b, &text_enc))),
            ],
            passes,
        );
    }
    let models: Vec<_> = ber_in
        .iter()
        .map(|b| ber::decode(b, &ber_cfg).unwrap())
        .collect();
    for (name, cfg) in [
        ("native", NativeConfig::PLAIN),
        ("native, compact", NativeConfig::COMPACT),
    ] {
        let inputs: Vec<Vec<u8>> = models
            .iter()
            .map(|m| native::encode(m, &cfg).unwrap())
            .collect();
        report(
            name,
            &inputs,
            ("floor: byte scan", vec![Box::new(floor::byte_scan)]),
            &[(
                "owned decode",
                Box::new(move |b| native::decode(b, &cfg).map_or(0, |m| m.mess.version as usize)),
            )],
            passes,
        );
    }
    // Encoders: allocations per message, into a fresh vector (`encode`)
    // and appended to one buffer the caller keeps (`encode_into`, cleared
    // between messages after one pass to grow it).
    println!("encoders (allocations per message: fresh vector, reused buffer)");
    let enc: [(&str, EncFresh<'_>, EncInto<'_>); 4] = [
        (
            "ber",
            Box::new(|m| ber::encode(m, &ber_cfg).map_or(0, |v| v.len())),
            Box::new(|m, out| drop(ber::encode_into(m, &ber_cfg, out))),
        ),
        (
            "per",
            Box::new(|m| per::encode(m, &per_cfg).map_or(0, |v| v.len())),
            Box::new(|m, out| drop(per::encode_into(m, &per_cfg, out))),
        ),
        (
            "pretty",
            Box::new(|m| text::encode_pretty(m).map_or(0, |v| v.len())),
            Box::new(|m, out| drop(text::encode(m, text::Style::Pretty, out))),
        ),
        (
            "compact",
            Box::new(|m| text::encode_compact(m).map_or(0, |v| v.len())),
            Box::new(|m, out| drop(text::encode(m, text::Style::Compact, out))),
        ),
    ];
    for (name, fresh, into) in &enc {
        let a0 = ALLOCS.load(Relaxed);
        for m in &models {
            black_box(fresh(m));
        }
        let a = (ALLOCS.load(Relaxed) - a0) as f64 / models.len() as f64;
        let mut out = Vec::new();
        for m in &models {
            out.clear();
            into(m, &mut out);
        }
        let a0 = ALLOCS.load(Relaxed);
        for m in &models {
            out.clear();
            into(m, black_box(&mut out));
        }
        let reused = (ALLOCS.load(Relaxed) - a0) as f64 / models.len() as f64;
        println!("  {name:<10} {a:.2} {reused:.2}");
    }
    text_encoders(&models, passes);
}

/// The text encoders' time against the tokenizer floor of the bytes they
/// write, paired per message as the decoders are, and the time to build
/// the decoded model by copying it (a clone): what any decoder into the
/// owned model pays beyond reading its bytes.
fn text_encoders(models: &[megaco::MegacoMessage], passes: usize) {
    for (name, style) in [
        ("pretty", text::Style::Pretty),
        ("compact", text::Style::Compact),
    ] {
        let outputs: Vec<Vec<u8>> = models
            .iter()
            .map(|m| {
                let mut out = Vec::new();
                text::encode(m, style, &mut out)
                    .map(|()| out)
                    .unwrap_or_default()
            })
            .collect();
        // The tokenizer's copies first, then the encoder and the clone.
        let copies = floor::text_tokens_copies();
        let mut best = vec![vec![f64::INFINITY; models.len()]; copies.len() + 2];
        let reps = 20;
        let mut out = Vec::with_capacity(4096);
        for _ in 0..passes {
            for (i, m) in models.iter().enumerate() {
                for (c, tokens) in copies.iter().enumerate() {
                    let t = Instant::now();
                    for _ in 0..reps {
                        black_box(tokens(black_box(&outputs[i])));
                    }
                    best[c][i] = best[c][i].min(t.elapsed().as_nanos() as f64 / reps as f64);
                }
                let t = Instant::now();
                for _ in 0..reps {
                    out.clear();
                    black_box(text::encode(black_box(m), style, &mut out).is_ok());
                }
                best[copies.len()][i] =
                    best[copies.len()][i].min(t.elapsed().as_nanos() as f64 / reps as f64);
                let t = Instant::now();
                for _ in 0..reps {
                    black_box(black_box(m).clone());
                }
                best[copies.len() + 1][i] =
                    best[copies.len() + 1][i].min(t.elapsed().as_nanos() as f64 / reps as f64);
            }
        }
        let rest = best.split_off(copies.len());
        let best: Vec<Vec<f64>> = std::iter::once(fastest(best).1).chain(rest).collect();
        let floor: f64 = best[0].iter().sum();
        let n = models.len() as f64;
        println!(
            "{name} text of the BER models ({:.0} ns/msg tokenizer floor)",
            floor / n
        );
        for (row, b) in [("encode", &best[1]), ("model clone", &best[2])] {
            let sum: f64 = b.iter().sum();
            println!("  {row:<24} {:>10.0} {:>8.2}", sum / n, sum / floor);
        }
    }
}

/// The view's outline (transactions, their errors and ack ranges).
fn outline_walk(bytes: &[u8], enc: &megaco::codec::Encoding) -> usize {
    match MessageView::parse(bytes, enc) {
        Ok(v) => v.outline().filter(Result::is_ok).count(),
        Err(_) => 0,
    }
}

/// A walk of the borrowed view over every item of a message, reading what
/// a router reads (transaction ids, commands, termination ids).
fn view_walk(bytes: &[u8], enc: &megaco::codec::Encoding) -> usize {
    use megaco::view::{Item, MessageView};
    let Ok(view) = MessageView::parse(bytes, enc) else {
        return 0;
    };
    let mut n = usize::from(view.version());
    for item in view.items() {
        n += match item {
            Ok(Item::TerminationId(t)) => usize::from(t.is_root()) + 1,
            Ok(Item::Command(c)) => c.kind as usize,
            Ok(_) => 1,
            Err(_) => return 0,
        };
    }
    n
}
