//! The form of the suite's outputs (never timings): every message x codec
//! measured or reported failed, sizes equal to the transform's files,
//! charts written, TSV and JSON readable, the CLI path end to end.
mod common;

use std::collections::HashSet;
use std::time::Duration;

use megaco::codec::{Encoding, Kind};
use megaco_bench::meas::{self, MeasResult, Row};
use megaco_bench::samples::Sample;
use megaco_bench::{codecs, report, transform};

/// Whether OTP can be run; without it the test is skipped, except under
/// CI, where its absence is a failure.
fn otp_available() -> bool {
    let available = megaco_bench::otp::available();
    if !available {
        assert!(
            std::env::var_os("CI").is_none(),
            "escript or OTP's megaco missing under CI (scripts/setup.sh installs them)"
        );
        eprintln!("escript or OTP megaco not available; skipped");
    }
    available
}

fn samples() -> Vec<Sample> {
    common::decoded_corpus()
        .into_iter()
        .take(3)
        .chain(common::hand_built())
        .map(|(name, msg)| Sample {
            name,
            source: Vec::new(),
            msg,
        })
        .collect()
}

fn tiny_run(samples: &[Sample]) -> MeasResult {
    let mut calls = 0;
    let r = meas::run(
        samples,
        &codecs::all(),
        Duration::from_micros(50),
        |_, _| calls += 1,
    );
    assert_eq!(calls, samples.len() * codecs::all().len());
    r
}

#[test]
fn every_message_and_codec_is_measured_or_reported() {
    let samples = samples();
    let r = tiny_run(&samples);
    for c in codecs::all() {
        for s in &samples {
            let name = c.to_string();
            let rows = r
                .rows
                .iter()
                .filter(|x| x.codec == name && x.message == s.name)
                .count();
            let fails = r
                .failures
                .iter()
                .filter(|x| x.codec == name && x.message == s.name)
                .count();
            assert_eq!(rows + fails, 1, "{name} {}", s.name);
            if c.kind() == Kind::Native {
                assert_eq!(rows, 1, "{name} {} failed", s.name);
            }
        }
    }
    for row in &r.rows {
        assert!(row.size > 0 && row.encode_us >= 0.0 && row.decode_us >= 0.0);
    }
    // One summary line per codec with rows, in registry order.
    let with_rows: Vec<String> = codecs::all()
        .into_iter()
        .map(|c| c.to_string())
        .filter(|n| r.rows.iter().any(|x| x.codec == *n))
        .collect();
    let summary: Vec<String> = r.summary().into_iter().map(|s| s.codec).collect();
    assert_eq!(summary, with_rows);
    let table = report::console_table(&r.summary());
    assert!(table.starts_with("Codec and config"));
    assert_eq!(table.lines().count(), 2 + with_rows.len());
}

#[test]
fn sizes_match_transform_files() {
    let samples = samples();
    let r = tiny_run(&samples);
    let dir = tempfile::tempdir().unwrap();
    let written = transform::write(&samples, &codecs::all(), dir.path()).unwrap();
    assert_eq!(written.len(), codecs::all().len());
    for c in codecs::all() {
        for row in r.rows.iter().filter(|x| x.codec == c.to_string()) {
            let f = dir.path().join(c.slug().unwrap()).join(format!(
                "{}.{}",
                row.message,
                c.extension()
            ));
            assert_eq!(
                std::fs::metadata(&f).unwrap().len() as usize,
                row.size,
                "{}",
                f.display()
            );
            // And the file decodes back to the message.
            let bytes = std::fs::read(&f).unwrap();
            let s = samples.iter().find(|s| s.name == row.message).unwrap();
            assert_eq!(
                c.decode(&bytes).unwrap(),
                *codecs::model_for(&c, &s.msg).unwrap()
            );
        }
    }
}

#[test]
fn outputs_are_written_and_readable() {
    let samples = samples();
    let r = tiny_run(&samples);
    let dir = tempfile::tempdir().unwrap();
    let written = report::write_all(&r, &[], dir.path()).unwrap();
    for metric in ["size", "encode", "decode", "total"] {
        let png = std::fs::read(dir.path().join(format!("{metric}.png"))).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{metric}.png");
        let svg = std::fs::read_to_string(dir.path().join(format!("{metric}.svg"))).unwrap();
        assert!(
            svg.contains("<svg") && svg.contains("</svg>"),
            "{metric}.svg"
        );
    }
    assert_eq!(written.len(), 3 + 8);

    // TSV: header, then one line per row with parseable numbers.
    let tsv = std::fs::read_to_string(dir.path().join("meas.tsv")).unwrap();
    let mut lines = tsv.lines();
    assert_eq!(
        lines.next(),
        Some("codec\tmessage\tsize\tencode_us\tdecode_us\ttotal_us")
    );
    let mut seen = HashSet::new();
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 6, "{line}");
        f[2].parse::<usize>().unwrap();
        for x in &f[3..] {
            x.parse::<f64>().unwrap();
        }
        assert!(
            seen.insert((f[0].to_string(), f[1].to_string())),
            "duplicate {line}"
        );
    }
    assert_eq!(seen.len(), r.rows.len());

    // JSON: the same result back.
    let json = std::fs::read_to_string(dir.path().join("meas.json")).unwrap();
    let back: MeasResult = serde_json::from_str(&json).unwrap();
    assert_eq!(back.rows.len(), r.rows.len());
    assert_eq!(back.failures, r.failures);
    for (a, b) in back.rows.iter().zip(&r.rows) {
        assert_eq!(
            (&a.codec, &a.message, a.size),
            (&b.codec, &b.message, b.size)
        );
    }

    // Markdown: header, separator, one line per summary entry.
    let md = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(md.starts_with("| Codec and config |"));
    assert_eq!(md.lines().count(), 2 + r.summary().len());
}

#[test]
fn cli_meas_and_transform_end_to_end() {
    // A corpus directory in the native format (its name picks the decoder),
    // so this runs whatever the text decoder of the build accepts.
    let samples = samples();
    let tmp = tempfile::tempdir().unwrap();
    let native = codecs::select(&["native".to_string()]).unwrap();
    transform::write(&samples, &native, tmp.path()).unwrap();
    let corpus = tmp.path().join("native");

    let out = tmp.path().join("out");
    let args = megaco_bench::BenchArgs {
        command: Some(megaco_bench::BenchCommand::Meas(megaco_bench::MeasArgs {
            factor: 0.0001,
            out: Some(out.clone()),
        })),
        common: megaco_bench::CommonArgs {
            corpus: Some(corpus.clone()),
            codecs: vec!["native".into(), "native-compact-compressed".into()],
            limit: Some(2),
            no_progress: true,
            ..Default::default()
        },
    };
    megaco_bench::run_bench(&args).unwrap();
    let tsv = std::fs::read_to_string(out.join("meas.tsv")).unwrap();
    assert_eq!(tsv.lines().count(), 1 + 2 * 2);

    let t_out = tmp.path().join("t");
    let left_out = megaco_bench::run_transform(&megaco_bench::TransformArgs {
        first: corpus,
        second: Some(t_out.clone()),
        codecs: vec!["native-compact".into()],
    })
    .unwrap();
    assert_eq!(left_out, 0);
    let files = std::fs::read_dir(t_out.join("native-compact"))
        .unwrap()
        .count();
    assert_eq!(files, samples.len());

    let m = megaco_bench::BenchArgs {
        command: Some(megaco_bench::BenchCommand::Mstone(
            megaco_bench::MstoneArgs {
                time: 0.05,
                factor: 1,
                threads: Some(2),
                no_scaling: true,
                isolated: true,
                mode: megaco_bench::MstoneMode::Both,
            },
        )),
        common: megaco_bench::CommonArgs {
            corpus: Some(tmp.path().join("native")),
            codecs: vec!["native".into()],
            no_progress: true,
            ..Default::default()
        },
    };
    megaco_bench::run_bench(&m).unwrap();
}

#[test]
fn mstone_counts_every_config() {
    let samples = samples();
    let codecs = codecs::select(&["native".into(), "native-compressed".into()]).unwrap();
    let prepared = megaco_bench::mstone::prepare(&samples, &codecs);
    assert_eq!(prepared.len(), 2);
    let r1 = megaco_bench::mstone::mstone1(&prepared, 2, 2, Duration::from_millis(50));
    let r2 = megaco_bench::mstone::mstone2(&prepared, 1, 2, Duration::from_millis(50));
    for r in [&r1, &r2] {
        let names: Vec<&str> = r.per_codec.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["native", "native [compressed]"]);
        assert_eq!(r.total, r.per_codec.iter().map(|(_, n)| n).sum::<u64>());
    }
    // Whole passes over the corpus: mstone1 counts a decode or an encode
    // pass, mstone2 a decode and an encode of every message.
    for (_, n) in &r1.per_codec {
        assert_eq!(n % samples.len() as u64, 0);
    }
    for (_, n) in &r2.per_codec {
        assert_eq!(n % (2 * samples.len() as u64), 0);
    }
}

#[test]
fn otp_output_parses() {
    let out = "info\tmegaco\t4.4.2\nrow\tber\tmsg01a\t120\t10.5\t20.25\n\
               fail\tper\tmsg02\t{error,x}\nmstone\tber\t400\ntotal\t400\t1.002\nnoise\n";
    let r = megaco_bench::otp::parse(out);
    assert_eq!(r.info, [("megaco".to_string(), "4.4.2".to_string())]);
    assert_eq!(r.rows.len(), 1);
    assert_eq!(r.rows[0].size, 120);
    assert_eq!(r.rows[0].decode_us, 20.25);
    assert_eq!(r.failures[0].message, "msg02");
    assert_eq!(r.mstone, [("ber".to_string(), 400)]);
    assert_eq!(r.total, Some((400, 1.002)));
}

#[test]
fn otp_escript_measures_every_config_when_available() {
    if !otp_available() {
        return;
    }
    let c = megaco::corpus::load(&common::corpus_dir().join("time_test.msgs")).unwrap();
    let samples: Vec<Sample> = c
        .messages
        .into_iter()
        .take(2)
        .map(|m| Sample {
            name: m.name,
            msg: common::message_error(),
            source: m.bytes,
        })
        .collect();
    let r = megaco_bench::otp::run(&samples, "pretty", &["meas".into(), "0.0001".into()]).unwrap();
    let configs: HashSet<&str> = r.rows.iter().map(|x| x.codec.as_str()).collect();
    // Every configuration of ours has its OTP twin measured.
    for c in codecs::all() {
        let want = codecs::otp_twin(&c).unwrap();
        assert!(configs.contains(want), "{want} ({c}) missing");
        assert_eq!(r.rows.iter().filter(|x| x.codec == want).count(), 2);
    }
    // OTP's pretty encoding of msg01a is the bundled vector.
    let vector = std::fs::read(common::corpus_dir().join("vectors/pretty/msg01a.txt")).unwrap();
    let row = r
        .rows
        .iter()
        .find(|x| x.codec == "pretty" && x.message == "msg01a")
        .unwrap();
    assert_eq!(row.size, vector.len());
}

#[test]
fn otp_escript_mstone_reports_every_config_when_available() {
    if !otp_available() {
        return;
    }
    let c = megaco::corpus::load(&common::corpus_dir().join("time_test.msgs")).unwrap();
    let samples: Vec<Sample> = c
        .messages
        .into_iter()
        .take(2)
        .map(|m| Sample {
            name: m.name,
            msg: common::message_error(),
            source: m.bytes,
        })
        .collect();
    let r = megaco_bench::otp::run(
        &samples,
        "pretty",
        &[
            "mstone".into(),
            "0.2".into(),
            "1".into(),
            "ber".into(),
            "erl_dist".into(),
        ],
    )
    .unwrap();
    let names: Vec<&str> = r.mstone.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["ber", "erl_dist"]);
    let (total, secs) = r.total.unwrap();
    assert_eq!(total, r.mstone.iter().map(|(_, n)| n).sum::<u64>());
    assert!(secs > 0.0);
}

/// The bench measures every codec configuration the library has, by the
/// library's names, each beside an OTP configuration.
#[test]
fn every_codec_config_of_the_library_is_in_the_bench() {
    use megaco::ber::{BerConfig, Mapping};
    use megaco::native::NativeConfig;
    use megaco::per::PerConfig;

    let mut library = vec![
        Encoding::pretty(),
        Encoding::compact(),
        Encoding::Ber(BerConfig::default()),
        Encoding::Ber(BerConfig::otp()),
        Encoding::Ber(BerConfig {
            mapping: Mapping::Native,
            ..BerConfig::otp()
        }),
        Encoding::Per(PerConfig::default()),
        Encoding::Per(PerConfig::native()),
    ];
    library.extend(NativeConfig::ALL.map(Encoding::Native));
    let bench: Vec<String> = codecs::all().iter().map(|e| e.to_string()).collect();
    assert_eq!(bench.len(), library.len(), "{bench:?}");
    for e in &library {
        let name = e.name().expect("a named configuration");
        assert!(bench.iter().any(|b| b == name), "{name} not in the bench");
        assert!(codecs::otp_twin(e).is_some(), "{name} has no OTP twin");
        // `--codec` takes the name and the slug.
        for given in [name, e.slug().unwrap()] {
            let picked = codecs::select(&[given.to_string()]).unwrap();
            assert_eq!(picked[0].to_string(), name);
        }
    }
    // A run over one message has a row for each, in the same order.
    let one: Vec<Sample> = samples().into_iter().take(1).collect();
    let r = meas::run(&one, &codecs::all(), Duration::from_micros(20), |_, _| {});
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    let rows: Vec<&str> = r.rows.iter().map(|x| x.codec.as_str()).collect();
    assert_eq!(rows, bench);
}

#[test]
fn the_bundled_corpus_is_the_repository_one() {
    let repo = common::corpus_dir();
    assert_eq!(
        megaco_bench::samples::BUNDLED,
        std::fs::read(repo.join("time_test.msgs")).unwrap(),
        "crates/megaco-bench/data/time_test.msgs differs from corpus/time_test.msgs"
    );
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    assert_eq!(
        std::fs::read(here.join("time_test.msgs.license")).unwrap(),
        std::fs::read(repo.join("time_test.msgs.license")).unwrap()
    );
    let loaded = megaco_bench::samples::load(None, &[], None).unwrap();
    assert_eq!(loaded.samples.len() + loaded.skipped.len(), 149);
    assert!(loaded.origin.contains("bundled"), "{}", loaded.origin);
    assert_eq!(loaded.codec, "pretty");
}

/// With OTP's rows, each chart holds a dashed line per OTP configuration
/// in the colour of ours.
#[test]
fn charts_draw_otp_beside_ours() {
    let samples = samples();
    let ours = meas::run(
        &samples,
        &codecs::select(&["ber".into(), "per".into()]).unwrap(),
        Duration::from_micros(20),
        |_, _| {},
    );
    let otp: Vec<Row> = ours
        .rows
        .iter()
        .map(|r| Row {
            codec: r.codec.clone(),
            encode_us: r.encode_us * 10.0 + 1.0,
            decode_us: r.decode_us * 10.0 + 1.0,
            ..r.clone()
        })
        .collect();
    let plain = tempfile::tempdir().unwrap();
    let with_otp = tempfile::tempdir().unwrap();
    report::write_all(&ours, &[], plain.path()).unwrap();
    report::write_all(&ours, &otp, with_otp.path()).unwrap();
    for metric in ["size", "encode", "decode", "total"] {
        let a = std::fs::read_to_string(plain.path().join(format!("{metric}.svg"))).unwrap();
        let b = std::fs::read_to_string(with_otp.path().join(format!("{metric}.svg"))).unwrap();
        // A dashed line is drawn as many short segments.
        let lines = |s: &str| s.matches("<polyline").count();
        assert!(lines(&b) > lines(&a) + 20, "{metric}: no dashed OTP line");
        // Same colours: OTP's strokes are ours.
        let colours = |s: &str| -> HashSet<String> {
            s.split("stroke=\"")
                .skip(1)
                .filter_map(|t| t.split('"').next())
                .map(str::to_string)
                .collect()
        };
        assert_eq!(colours(&a), colours(&b), "{metric}");
        if b.contains("<text") {
            assert!(b.contains("OTP ber") && b.contains("OTP per"), "{metric}");
        }
    }
}
