//! The fan-out's outputs: every destination answered, the counts add up,
//! the profile sums to the total, misbehaving gateways counted.
use std::time::Duration;

use megaco::codec::Encoding;
use megaco_load::fanout::{self, FanoutConfig, Request, Setup};
use megaco_load::farm::Fault;

fn small(wire: Encoding) -> FanoutConfig {
    FanoutConfig {
        ns: vec![1, 7, 30],
        passes: 2,
        wire,
        timeout: Duration::from_millis(500),
        ..FanoutConfig::default()
    }
}

#[test]
fn every_destination_answers_in_every_setup() {
    for wire in [Encoding::compact(), Encoding::ber()] {
        let mut cfg = small(wire);
        // The eight batched setups and two with a system call per datagram.
        cfg.setups.extend(
            [
                "template/trusted/single/unbatched",
                "per-destination/untrusted/multiple/unbatched",
            ]
            .map(|n| Setup::named(n).unwrap()),
        );
        let report = fanout::run(&cfg, &mut |_| {}).unwrap();
        assert_eq!(report.setups.len(), 11, "ten setups and the stack");
        assert!(report.setups.iter().any(|s| s.name.ends_with("/unbatched")));
        for s in &report.setups {
            assert_eq!(s.rows.len(), 3);
            for r in &s.rows {
                assert_eq!(r.sent, 2 * r.destinations as u64, "{}", s.name);
                assert_eq!(
                    r.answered, r.sent,
                    "{} N = {}: {r:?}",
                    s.name, r.destinations
                );
                assert_eq!(r.timeouts, 0);
                assert_eq!(r.errors.total(), 0, "{}: {:?}", s.name, r.errors);
                assert!(r.time_us > 0.0);
                if cfg!(target_os = "linux") && s.name != "stack" {
                    // The process's CPU time holds the controller's.
                    let cpu = r.cpu_per_destination_us.unwrap();
                    let all = r.process_cpu_per_destination_us.unwrap();
                    assert!(cpu > 0.0 && all >= cpu * 0.999, "{}: {cpu} {all}", s.name);
                }
                assert!((r.per_destination_us * r.destinations as f64 - r.time_us).abs() < 1e-6);
                if let Some(p) = r.profile {
                    let sum = p.build_us
                        + p.encode_us
                        + p.engine_us
                        + p.send_us
                        + p.receive_us
                        + p.decode_us
                        + p.match_us;
                    assert!((sum - p.total_us).abs() < 1e-6);
                    if s.name.contains("/single") {
                        // One thread: the stages are the round's time.
                        assert!(
                            (p.total_us - r.per_destination_us).abs() / r.per_destination_us < 1e-6,
                            "{}: {p:?} vs {}",
                            s.name,
                            r.per_destination_us
                        );
                    }
                    if s.name.starts_with("template") {
                        assert!(p.build_us > 0.0, "{}: the template is built", s.name);
                    }
                }
            }
        }
        let w = report.wildcard.as_ref().unwrap();
        assert_eq!(
            w.rows.iter().map(|r| r.destinations).collect::<Vec<_>>(),
            vec![1, 7, 30]
        );
        for r in &w.rows {
            assert_eq!(
                (r.answered, r.timeouts, r.errors.total()),
                (2, 0, 0),
                "{r:?}"
            );
        }
    }
}

#[test]
fn misbehaving_gateways_are_counted_not_fatal() {
    let cfg = FanoutConfig {
        ns: vec![12],
        passes: 1,
        setups: Setup::all()
            .into_iter()
            .filter(|s| s.name().ends_with("/single"))
            .collect(),
        stack: false,
        wildcard: false,
        request: Request::Modify,
        timeout: Duration::from_millis(300),
        faults: vec![
            (2, Fault::Garbage),
            (4, Fault::Duplicate),
            (6, Fault::Silent),
            (8, Fault::WrongId),
            (10, Fault::ErrorReply),
        ],
        ..small(Encoding::pretty())
    };
    let report = fanout::run(&cfg, &mut |_| {}).unwrap();
    for s in &report.setups {
        let r = &s.rows[0];
        let e = r.errors;
        assert_eq!(e.malformed, 1, "{}: {e:?}", s.name);
        assert_eq!(e.unexpected, 1, "{}: {e:?}", s.name);
        assert!(e.duplicate <= 1, "{}: {e:?}", s.name);
        if s.name.contains("untrusted") {
            // The error reply is seen for what it is.
            assert_eq!((r.answered, e.error_replies), (8, 1), "{}: {r:?}", s.name);
            assert_eq!(r.timeouts, 3, "garbage, silent and wrong id: {r:?}");
        } else {
            // Trusted: an error reply is an answer.
            assert_eq!((r.answered, e.error_replies), (9, 0), "{}: {r:?}", s.name);
            assert_eq!(r.timeouts, 3);
        }
        assert_eq!(r.answered + e.error_replies + r.timeouts, r.sent);
    }
}

#[test]
fn otp_fans_out_to_the_same_gateways() {
    if !megaco_load::otp::available() {
        assert!(
            std::env::var_os("CI").is_none(),
            "escript (Erlang/OTP) is required under CI"
        );
        eprintln!("SKIPPED: escript not installed");
        return;
    }
    let cfg = FanoutConfig {
        ns: vec![1, 5],
        passes: 2,
        setups: vec![],
        stack: false,
        wildcard: false,
        otp: true,
        ..small(Encoding::compact())
    };
    let report = fanout::run(&cfg, &mut |s| eprintln!("{s}")).unwrap();
    let otp = report.otp.unwrap();
    assert_eq!(otp.rows.len(), 2);
    for r in &otp.rows {
        assert_eq!(
            (r.sent, r.answered, r.errors.total()),
            (2 * r.destinations as u64, 2 * r.destinations as u64, 0),
            "{r:?}"
        );
    }
    assert!(report
        .otp_info
        .iter()
        .any(|(k, v)| k == "megaco" && !v.is_empty()));
}
