//! The responder's tests: what it answers, and what it bounds.

use super::*;
use crate::scenario::text::parse_actions;

fn answer(r: &mut Responder, text: &str) -> TransactionResult {
    r.answer(&parse_actions(text).unwrap(), 1, TermIdStyle::Text)
        .reply
        .unwrap()
}

fn compact(result: TransactionResult) -> String {
    crate::scenario::compact_line(&result)
}

#[test]
fn contexts_and_terminations_are_handed_out_and_taken_back() {
    let mut r = Responder::new(Role::Mg, Vec::new());
    assert_eq!(
        compact(answer(&mut r, "C=$ {A=tdm/1, A=$}")),
        "P=1{C=1{A=tdm/1,A=rtp/1}}"
    );
    assert_eq!(
        compact(answer(&mut r, "C=$ {A=tdm/1}")),
        "P=1{C=${A=tdm/1{ER=433{\"TerminationID is already in a Context\"}}}}"
    );
    assert_eq!(
        compact(answer(&mut r, "C=1{MF=rtp/1}")),
        "P=1{C=1{MF=rtp/1}}"
    );
    assert_eq!(
        compact(answer(&mut r, "C=1{AV=*}")),
        "P=1{C=1{AV=C{tdm/1,rtp/1}}}"
    );
    assert!(compact(answer(&mut r, "C=9{MF=rtp/1}")).starts_with("P=1{C=9{ER=411"));
    assert!(compact(answer(&mut r, "C=1{S=rtp/7}")).contains("ER=430"));
    assert_eq!(compact(answer(&mut r, "C=1{S=*}")), "P=1{C=1{S=*}}");
    assert_eq!(r.contexts().count(), 0);
    assert!(compact(answer(&mut r, "C=1{S=tdm/1}")).contains("ER=411"));
}

#[test]
fn binary_ids_fill_their_levels() {
    let t = |s: &str, style| {
        choose(&TerminationId::new(s), 5, style)
            .as_str()
            .to_string()
    };
    assert_eq!(t("$", TermIdStyle::Binary), "00000000/00000000/00000101");
    assert_eq!(
        t("11111111/$", TermIdStyle::Text),
        "11111111/00000000/00000101"
    );
    assert_eq!(
        t("11111111/00000000/$", TermIdStyle::Binary),
        "11111111/00000000/00000101"
    );
    assert_eq!(t("rtp/$", TermIdStyle::Text), "rtp/5");
    assert_eq!(t("$", TermIdStyle::Text), "rtp/5");
}

#[test]
fn local_sdp_choices_are_filled_in() {
    let mut r = Responder::new(Role::Mg, Vec::new());
    let text = compact(answer(
        &mut r,
        "C=$ {A=$ {M{O{MO=RC},L{v=0\nc=IN IP4 $\nm=audio $ RTP/AVP 0\n}}}}",
    ));
    assert!(text.contains("c=IN IP4 127.0.0.1"), "{text}");
    assert!(text.contains("m=audio 4915"), "{text}");
    assert!(!text.contains("MO=RC"), "{text}");
}

#[test]
fn rules_come_first_and_wear_out() {
    let mut rule = Rule::answer(CommandKind::Modify);
    rule.reply = Reply::Error {
        code: 510,
        text: None,
        scope: ErrorScope::Command,
    };
    rule.times = Some(1);
    let mut none = Rule::answer(CommandKind::Notify);
    none.reply = Reply::None;
    let mut r = Responder::new(Role::Mg, vec![rule, none]);
    assert_eq!(
        compact(answer(&mut r, "C=-{MF=tdm/1}")),
        "P=1{C=-{MF=tdm/1{ER=510{}}}}"
    );
    assert_eq!(
        compact(answer(&mut r, "C=-{MF=tdm/1}")),
        "P=1{C=-{MF=tdm/1}}"
    );
    let a = r.answer(
        &parse_actions("C=-{N=tdm/1{OE=1{al/of}}}").unwrap(),
        1,
        TermIdStyle::Text,
    );
    assert_eq!(a.reply, None);
}

#[test]
fn a_controller_accepts_registrations_at_its_version() {
    let mid = Mid::Device("mgc".into());
    let mut r = Responder::new(
        Role::Mgc {
            mid,
            max_version: 2,
        },
        Vec::new(),
    );
    assert_eq!(
        compact(answer(&mut r, "C=-{SC=root{SV{MT=RS,RE=901,V=3}}}")),
        "P=1{C=-{SC=root{SV{V=2,MG=mgc}}}}"
    );
    // Without a ServiceChangeVersion, the message's version is offered.
    let sc = parse_actions("C=-{SC=root{SV{MT=RS,RE=901}}}").unwrap();
    let result = r.answer(&sc, 3, TermIdStyle::Text).reply.unwrap();
    assert_eq!(compact(result), "P=1{C=-{SC=root{SV{V=2,MG=mgc}}}}");
    let result = r.answer(&sc, 1, TermIdStyle::Text).reply.unwrap();
    assert_eq!(compact(result), "P=1{C=-{SC=root{SV{V=1,MG=mgc}}}}");
    // Version 0 does not exist: the stack settles on 1, and says so.
    assert_eq!(
        compact(answer(&mut r, "C=-{SC=root{SV{MT=RS,RE=901,V=0}}}")),
        "P=1{C=-{SC=root{SV{V=1,MG=mgc}}}}"
    );
}

#[test]
fn a_gateway_restarting_leaves_no_context_behind() {
    let mgc = Role::Mgc {
        mid: Mid::Device("mgc".into()),
        max_version: 1,
    };
    let mut r = Responder::new(mgc, Vec::new());
    assert_eq!(
        compact(answer(&mut r, "C=$ {A=tdm/1}")),
        "P=1{C=1{A=tdm/1}}"
    );
    // Going away and coming back (Disconnected) keeps the contexts.
    answer(&mut r, "C=-{SC=root{SV{MT=DC,RE=900}}}");
    assert!(compact(answer(&mut r, "C=$ {A=tdm/1}")).contains("ER=433"));
    // A restart of the whole gateway (its cold boot) clears them.
    answer(&mut r, "C=-{SC=root{SV{MT=RS,RE=901}}}");
    assert_eq!(r.contexts().count(), 0);
    let again = compact(answer(&mut r, "C=$ {A=tdm/1}"));
    assert!(
        again.ends_with("{A=tdm/1}}") && !again.contains("ER="),
        "{again}"
    );
    // A restart of one termination is not the gateway's.
    answer(&mut r, "C=-{SC=tdm/1{SV{MT=RS,RE=901}}}");
    assert_eq!(r.contexts().count(), 1);
}

/// Fills `r` with `contexts` contexts of `per` terminations each
/// (`rtp/N`, as `$` gives them).
fn fill(r: &mut Responder, contexts: usize, per: usize) {
    let adds = vec!["A=$"; per].join(",");
    for _ in 0..contexts {
        let text = compact(answer(r, &format!("C=$ {{{adds}}}")));
        assert!(!text.contains("ER="), "{text}");
    }
}

#[test]
fn finding_a_termination_does_not_look_through_every_context() {
    let mut r = Responder::new(Role::Mg, Vec::new());
    fill(&mut r, 200, 64);
    // Explicit ids, each searched for among the 12,800 held: in new
    // contexts, in a full one (510), and moved around.
    let before = r.examined;
    let mut commands = 0;
    for i in 0..100 {
        answer(&mut r, &format!("C=$ {{A=tdm/{i}}}"));
        answer(&mut r, &format!("C=1{{A=zz{i}}}"));
        answer(&mut r, &format!("C=2{{MOVE=tdm/{i}}}"));
        answer(&mut r, &format!("C=3{{MOVE=rtp/{}}}", 200 + i));
        answer(&mut r, &format!("C=*{{S=rtp/{}}}", 300 + i));
        commands += 5;
    }
    // What one command may look at: the terminations of a context or two.
    let examined = r.examined - before;
    assert!(
        examined <= commands * 2 * 64,
        "{examined} for {commands} commands"
    );
}

/// The index says where each termination is, and nothing else; no
/// termination is held twice.
fn consistent(r: &Responder) {
    let mut seen = HashMap::new();
    for (c, held) in &r.contexts {
        assert!(!held.is_empty(), "context {c} kept empty");
        for t in held {
            assert_eq!(seen.insert(Key(t.clone()), *c), None, "{t:?} held twice");
        }
    }
    assert_eq!(seen, r.index);
}

#[test]
fn the_index_follows_every_change() {
    let mut r = Responder::new(Role::Mg, Vec::new());
    let steps = [
        "C=$ {A=tdm/1, A=$, A=TDM/2}",
        "C=$ {A=tdm/3}",
        "C=$ {A=Tdm/1}",   // 433: held already (case ignored)
        "C=2{MOVE=tdm/2}", // from context 1
        "C=2{MOVE=tdm/9}", // held nowhere: added
        "C=1{S=rtp/1}",
        "C=*{S=TDM/3}", // found in context 2
        "C=2{S=tdm/*}",
        "C=$ {A=tdm/4, A=tdm/4}", // the second gets 433, the first stays
        "C=1{MOVE=tdm/1}",        // into its own context
        "C=*{S=*}",
        "C=$ {A=rtp/1, A=rtp/2}",
    ];
    for text in steps {
        answer(&mut r, text);
        consistent(&r);
    }
    assert_eq!(r.contexts().count(), 1);
    // A `$` never hands out an id that is held: rtp/1 and rtp/2 were
    // added by name.
    let text = compact(answer(&mut r, "C=$ {A=$}"));
    assert!(text.contains("A=rtp/3"), "{text}");
    consistent(&r);
    // A full context refuses, and the index holds only what it took.
    let mut small = Responder::new(Role::Mg, Vec::new()).with_capacity(Capacity {
        contexts: 2,
        terminations_per_context: 2,
        ..Capacity::default()
    });
    assert!(compact(answer(&mut small, "C=$ {A=a, A=b, A=c}")).contains("ER=510"));
    assert!(compact(answer(&mut small, "C=$ {A=d}")).contains("C=2{A=d}"));
    assert!(compact(answer(&mut small, "C=2{MOVE=a, MOVE=b}")).contains("ER=510"));
    consistent(&small);
    // The restart of a gateway forgets it all.
    let mut mgc = Responder::new(
        Role::Mgc {
            mid: Mid::Device("mgc".into()),
            max_version: 1,
        },
        Vec::new(),
    );
    fill(&mut mgc, 3, 3);
    answer(&mut mgc, "C=-{SC=root{SV{MT=RS,RE=901}}}");
    consistent(&mgc);
    assert!(mgc.index.is_empty());
}

#[test]
fn a_wildcard_on_every_context_is_paid_for_by_the_adds() {
    let mut r = Responder::new(Role::Mg, Vec::new());
    fill(&mut r, 100, 64);
    let before = r.examined;
    let mut refused = 0;
    for _ in 0..1000 {
        let text = compact(answer(&mut r, "C=*{S=zz*}"));
        refused += usize::from(text.contains("ER=510"));
    }
    // Each held termination pays for SCAN_CREDIT looks, no more.
    let examined = r.examined - before;
    assert!(examined <= 6400 * SCAN_CREDIT, "{examined}");
    assert!(refused >= 1000 - SCAN_CREDIT as usize, "{refused}");
    // Taking them all away is always allowed.
    assert_eq!(compact(answer(&mut r, "C=*{S=*}")), "P=1{C=*{S=*}}");
    assert_eq!(r.contexts().count(), 0);
}

#[test]
fn long_ids_are_held_up_to_a_number_of_bytes() {
    // The default holds every termination the counts allow, with ids
    // as long as those handed out for `$`.
    let default = Capacity::default();
    let most = default.contexts * default.terminations_per_context;
    let longest = choose(&TerminationId::new("$"), 1, TermIdStyle::Binary);
    assert!(default.termination_bytes >= most * longest.as_str().len());
    // A smaller limit, for a quicker test.
    let limit = 1 << 20;
    let mut r = Responder::new(Role::Mg, Vec::new()).with_capacity(Capacity {
        termination_bytes: limit,
        ..default
    });
    // An Add on `$` of 64 ids of 1000 bytes.
    let add = |r: &mut Responder, n: usize| {
        let ids: Vec<TerminationId> = (0..64)
            .map(|i| TerminationId::new(format!("t{n:05}x{i:02}{}", "x".repeat(992))))
            .collect();
        let add = crate::build::action(
            ContextId::CHOOSE,
            Command::Add(AmmRequest {
                termination_ids: ids.into(),
                descriptors: vec![],
            }),
        );
        let result = r.answer(&[add], 1, TermIdStyle::Text).reply.unwrap();
        compact(result)
    };
    // Until refused (or far past the limit).
    let mut n = 0;
    let refused = loop {
        let text = add(&mut r, n);
        n += 1;
        if text.contains("ER=510") {
            break true;
        }
        if r.bytes > limit + (1 << 20) {
            break false;
        }
    };
    assert!(refused && r.bytes <= limit, "{} bytes held", r.bytes);
    let held: usize = r
        .contexts()
        .flat_map(|(_, t)| t)
        .map(|t| t.as_str().len())
        .sum();
    assert_eq!(held, r.bytes);
    // Short ids still fit, in the room left; Move is bounded the same.
    assert!(!compact(answer(&mut r, "C=$ {A=tdm/1}")).contains("ER="));
    let long = format!("t{}", "y".repeat(limit - r.bytes));
    let text = compact(answer(&mut r, &format!("C=1{{MOVE={long}}}")));
    assert!(text.contains("ER=510"), "{}", &text[text.len() - 80..]);
    // What is taken away makes room again.
    answer(&mut r, "C=*{S=*}");
    assert_eq!(r.bytes, 0);
    assert!(!add(&mut r, n).contains("ER="));
    consistent(&r);
}

/// The version a controller's reply names is the one the stack
/// settles on, whatever the gateway offers.
#[test]
fn the_version_replied_is_the_version_negotiated() {
    use crate::engine::{Config, Connection, Event};
    let t0 = std::time::Instant::now();
    for (offer, ours) in [
        ("V=0", 2),
        ("V=1", 2),
        ("V=2", 2),
        ("V=3", 2),
        ("V=9", 3),
        ("", 3),
    ] {
        let mid = Mid::Device("mgc".into());
        let mut config = Config::new(mid.clone());
        config.version = ours;
        let mut mgc = Connection::new(config);
        let mut r = Responder::new(
            Role::Mgc {
                mid,
                max_version: ours,
            },
            Vec::new(),
        );
        let sep = if offer.is_empty() { "" } else { "," };
        let text = format!(
            "MEGACO/2 [10.0.0.1]:2944 T=7{{C=-{{SC=ROOT{{SV{{MT=RS,RE=901{sep}{offer}}}}}}}}}"
        );
        mgc.handle_input(t0, text.as_bytes());
        let Some(Event::RequestReceived {
            transaction_id,
            actions,
            version,
            ..
        }) = mgc.poll_event()
        else {
            panic!("{offer}: no request");
        };
        let result = r
            .answer(&actions, version, TermIdStyle::Text)
            .reply
            .unwrap();
        let replied = compact(result.clone());
        mgc.reply(t0, transaction_id, result).unwrap();
        let Some(Event::VersionNegotiated { version }) = mgc.poll_event() else {
            panic!("{offer}: not negotiated");
        };
        assert!(
            replied.contains(&format!("V={version},")),
            "{offer}: {replied}, negotiated {version}"
        );
    }
}
