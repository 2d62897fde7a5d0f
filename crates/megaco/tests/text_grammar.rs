//! The text grammar, rule by rule: for each ABNF rule (RFC 3525 Annex B
//! for v1, H.248.1 Annex B for v2 and v3) messages it allows and messages
//! it does not (a wrong token, a number out of range or with too many
//! digits, a missing or extra separator, alternatives in the wrong order).
//!
//! Each case says whether our decoder accepts it and what Erlang/OTP's
//! parser (megaco 4.4.2) does with it: the same, or, where the two
//! differ, which way and why (docs/text-grammar.md lists the same). The
//! first test checks our decoder; the second runs OTP's parser over every
//! case in one escript and checks its verdicts, so that each documented
//! disagreement is a real one. It needs `escript` with the megaco
//! application: without it the test fails under `CI=true` and is skipped,
//! saying so, otherwise.

#[path = "support/escript.rs"]
mod escript;

/// What Erlang/OTP's text parser does with a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Otp {
    /// The same as ours.
    Same,
    /// OTP accepts what we refuse (OTP is more lenient than the ABNF, or
    /// the model cannot hold the value).
    Accepts,
    /// OTP refuses what we accept (valid ABNF, or a form OTP itself
    /// writes).
    Refuses,
}

/// `(rule, version, message, we accept, OTP)`. A version of 0 means the
/// message is given whole; otherwise `!/v [10.0.0.1]:2944` and a line end
/// come first.
type Case = (&'static str, u8, &'static str, bool, Otp);

#[path = "text_grammar/descriptors.rs"]
mod descriptors;
#[path = "text_grammar/message.rs"]
mod message;

/// Every case: the message's rules, then the descriptors' and the lexical
/// ones.
fn cases() -> Vec<&'static Case> {
    message::CASES.iter().chain(descriptors::CASES).collect()
}

fn text_of((_, v, text, _, _): &Case) -> String {
    if *v == 0 {
        text.to_string()
    } else {
        format!("!/{v} [10.0.0.1]:2944\n{text}")
    }
}

#[test]
fn our_decoder_reads_exactly_the_grammar() {
    let cases = cases();
    let mut wrong = Vec::new();
    for case in &cases {
        let text = text_of(case);
        let got = megaco::text::decode(text.as_bytes());
        if got.is_ok() != case.3 {
            wrong.push(format!(
                "{} (v{}): {:?} -> {}",
                case.0,
                case.1,
                text,
                match got {
                    Ok(_) => "accepted".to_string(),
                    Err(e) => format!("refused: {e}"),
                }
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Both sides of most rules are here.
    assert!(cases.iter().filter(|c| c.3).count() > 60);
    assert!(cases.iter().filter(|c| !c.3).count() > 90);
}

#[test]
fn every_case_we_accept_round_trips() {
    for case in cases().into_iter().filter(|c| c.3) {
        let msg = megaco::text::decode(text_of(case).as_bytes()).unwrap();
        for style in [megaco::text::Style::Compact, megaco::text::Style::Pretty] {
            let mut out = Vec::new();
            if megaco::text::encode(&msg, style, &mut out).is_ok() {
                assert_eq!(
                    megaco::text::decode(&out).as_ref(),
                    Ok(&msg),
                    "{} through {style:?}",
                    case.0
                );
            }
        }
    }
}

const ESCRIPT: &str = r#"#!/usr/bin/env escript
%% For each file given: its name, then `ok` or `error` as OTP's text
%% parser reads it.
main([]) -> io:format(standard_error, "usage: grammar.escript FILE...~n", []);
main(Files) ->
    lists:foreach(fun(F) ->
        {ok, Bin} = file:read_file(F),
        R = (catch megaco_compact_text_encoder:decode_message([], dynamic, Bin)),
        V = case R of {ok, _} -> "ok"; _ -> "error" end,
        io:format("~s ~s~n", [filename:basename(F), V])
    end, Files),
    io:format("done~n").
"#;

#[test]
fn otp_reads_the_cases_as_documented() {
    let Some((dir, script)) = escript::prepare("grammar", "grammar.escript", ESCRIPT) else {
        return;
    };
    let cases = cases();
    let mut files = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let f = dir.join(format!("case{i}"));
        std::fs::write(&f, text_of(case)).unwrap();
        files.push(f);
    }
    let lines = escript::run(&script, &files);
    std::fs::remove_dir_all(&dir).ok();
    let mut wrong = Vec::new();
    for line in &lines {
        let (name, verdict) = line.split_once(' ').unwrap();
        let i: usize = name.trim_start_matches("case").parse().unwrap();
        let case = cases[i];
        let otp_ok = verdict == "ok";
        let expected = match case.4 {
            Otp::Same => case.3,
            Otp::Accepts => true,
            Otp::Refuses => false,
        };
        if otp_ok != expected {
            wrong.push(format!(
                "{} (v{}): {:?}: OTP {}, the table says {:?}",
                case.0,
                case.1,
                text_of(case),
                if otp_ok { "accepts" } else { "refuses" },
                case.4
            ));
        }
        // A disagreement is one: `Accepts` and `Refuses` are only for
        // cases we decide the other way.
        assert!(
            case.4 == Otp::Same || (case.4 == Otp::Accepts) != case.3,
            "{}: {:?} with our verdict {}",
            case.0,
            case.4,
            case.3
        );
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
