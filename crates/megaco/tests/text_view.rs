//! The borrowed view of text against the owned text decoder: on every
//! pretty and compact vector and every OTP-suite text, the same header,
//! transactions, actions, commands and termination ids; truncated and
//! corrupted inputs give errors, never a panic; and the walk allocates
//! nothing.
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};

use megaco::codec::Encoding;
use megaco::view::{Item, MessageView};

#[path = "../../../fuzz/fuzz_targets/view_check.rs"]
mod view_check;

/// Counts allocations per thread (tests run on several threads at once).
struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    // A const-initialised thread-local of a `Cell<usize>` neither
    // allocates nor needs a destructor.
    ALLOCS.with(|c| c.set(c.get() + 1));
}

// SAFETY: every method forwards its arguments unchanged to `System`, which
// upholds the `GlobalAlloc` contract; the counter is a thread-local cell
// that never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

/// Every text message of the corpus: vectors/{pretty,compact} and the
/// OTP-suite texts, with their names.
fn texts() -> Vec<(String, Vec<u8>)> {
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
            out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
        }
    }
    assert!(out.len() > 500, "{} texts", out.len());
    out
}

#[test]
fn text_view_agrees_with_the_owned_decoder_on_every_text() {
    let enc = Encoding::pretty();
    let mut items = 0;
    for (name, bytes) in texts() {
        view_check::check(&bytes, &enc, &name);
        let view = MessageView::parse(&bytes, &enc).unwrap();
        items += view.items().count();
    }
    assert!(items > 5000, "{items} items");
}

#[test]
fn text_view_reads_descriptors_it_skips_like_the_owned_decoder() {
    // Braces, quotes and comments inside what the view skips: raw SDP and
    // digit maps, quoted strings holding `}` and `,`, comments holding
    // `{`, an MTP address, signal and event parameters named like
    // keywords, and an action reply whose error follows its commands.
    let msgs: &[&[u8]] = &[
        b"!/1 [10.0.0.1] T=1{C=1{MF=a{M{L{v=0\no=x { ,\"}},E=2{al/of{x=\"}\",e={1,2}}},SG{al/ri{dm={\"a}b,c\"}}}},A=b}}",
        b"!/2 [10.0.0.1] T=1{C=1{MF=a{DM=d{(1|2)}, E=3{x/y{DM={T:2,xx}, KA}}} ; a { comment\n, N=c{OE=1{19990729T22000000:al/of{dm={a,b}}}}}}",
        b"!/3 [10.0.0.1] T=1{C=1{SC=ROOT{SV{MT=RS,RE=\"901 x}\",MG=MTP{0a0b}}},O-W-A=[a,b]{SG{SL=2{a/b{NC={TO,IBE}},c/d}}}}}",
        b"!/3 [10.0.0.1] P=5/1/END{IA,C=1{A=a{M{TS{SI=IV}}},ER=400{\"bad } thing\"}},C=2}",
        b"!/3 [10.0.0.1] P=6{C=3{AV=Context{a,b,c},AC=C{ER=1{}},AV=[x,y]{M{TS{SI=IV}},PG{g-1}},N=z}}",
        b"!/2 [10.0.0.1] K{1,2-5,9} PN=4{} T{C=${A=$}}",
        b"!/3 <mg.example>:2944 SM=7/2/&",
        b"!/1 mg1 ER=502{\"not ready\"}",
    ];
    let enc = Encoding::compact();
    for (i, m) in msgs.iter().enumerate() {
        assert!(megaco::text::decode(m).is_ok(), "message {i} must decode");
        view_check::check(m, &enc, &format!("message {i}"));
    }
}

#[test]
fn truncated_and_corrupt_texts_are_errors_not_panics() {
    let enc = Encoding::compact();
    for (name, bytes) in texts().into_iter().step_by(4).take(60) {
        for cut in 0..bytes.len().min(600) {
            view_check::check(&bytes[..cut], &enc, &format!("{name} cut at {cut}"));
        }
        let mut b = bytes.clone();
        for i in (0..b.len().min(600)).step_by(3) {
            for x in [b'{', b'}', b'"', b',', b';', b' '] {
                let old = b[i];
                b[i] = x;
                view_check::check(&b, &enc, &format!("{name} byte {i} set to {x}"));
                b[i] = old;
            }
        }
    }
}

#[test]
fn text_view_allocates_nothing() {
    let inputs = texts();
    let enc = Encoding::pretty();
    let walk = |bytes: &[u8]| {
        let view = MessageView::parse(bytes, &enc).unwrap();
        let mut n = usize::from(view.version());
        for item in view.items() {
            n += match item.unwrap() {
                Item::TerminationId(t) => t.as_text().map_or(0, str::len),
                Item::Command(c) => c.kind.name().len(),
                _ => 1,
            };
        }
        n
    };
    let mut total = 0;
    let before = ALLOCS.with(Cell::get);
    for (_, bytes) in &inputs {
        total += walk(bytes);
    }
    let allocations = ALLOCS.with(Cell::get) - before;
    assert!(total > 10_000, "{total}");
    assert_eq!(allocations, 0, "over {} texts", inputs.len());
}
