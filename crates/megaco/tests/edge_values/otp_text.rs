//! Erlang/OTP's text encoders against ours: where OTP, writing in compact
//! or pretty text what its BER decoder read of our BER, writes other text
//! than ours for the same model, and the documented reason for each kind
//! of difference.
//!
//! The two texts are compared token by token (words, quoted strings,
//! punctuation, runs of white space); each run of differing tokens must be
//! one of the kinds below, recognised by what is written on each side.

use similar::{capture_diff_slices, Algorithm, DiffTag};

/// What OTP 25's text encoders write differently from ours, by kind; none
/// is a choice of ours the grammar does not back (the README, "Where the
/// codecs differ from OTP").
pub(super) const OTP_TEXT_WRITES: &[(&str, &str)] = &[
    (
        "an upper-case value",
        "ours quotes a value with an upper-case letter to keep its case (a bare \
         value reads back lower-cased); OTP writes it bare",
    ),
    (
        "a bare stream number",
        "OTP writes a topology triple's stream (and an audited signal's) as a \
         bare number, which its own parser refuses; the v3 grammar's \
         eventStream is `ST=` and the number",
    ),
    (
        "a digit map's duration timer",
        "OTP's BER decoder drops it (`OTP_BINARY_LOSES`), so its text has no `Z:`",
    ),
    (
        "observed events beside an error",
        "OTP writes a Notify's error descriptor alone, its observed events left out",
    ),
    (
        "no line end between transactions",
        "OTP writes a transaction right after a segment reply's id, where a line \
         end must part them (OTP's parser refuses what it writes)",
    ),
    (
        "a comma after an empty list",
        "OTP writes a `,` for an empty list before other items (an audit \
         descriptor's tokens, an action reply's context properties)",
    ),
    (
        "an empty list in braces",
        "OTP writes an empty statistics descriptor in an audit reply as `SA{}` \
         and an empty topology as `TP{}`: the grammar has no empty form of \
         either; ours writes the audit token `SA` and leaves the topology out",
    ),
    (
        "an empty audit",
        "OTP writes an audit descriptor with an empty list of audited \
         properties with a line for the missing item; ours as the empty audit",
    ),
];

/// Where OTP's text encoders fail to write what its BER decoder read of
/// ours (where in the encoder, and the error), and why.
pub(super) const OTP_TEXT_UNWRITTEN: &[(&str, &str)] = &[
    (
        "enc_EmptyDescriptors<-enc_TerminationAudit/2-lc$^0/1-0-<-enc_TerminationAudit/2-lc$^0/1-0-\
         <enc_TerminationAudit<enc_auditOther function_clause",
        "an audit reply's empty descriptors in version 1: OTP's v1 transformer \
         reads the audit tokens into a list no encoder of OTP's has a clause for \
         (its BER and PER fail on it too)",
    ),
    (
        "enc_auditReturnItem<do_enc_list<do_enc_list<enc_list<-enc_TerminationAudit/2-lc$^0/1-0- \
         function_clause",
        "an Events, Signals or EventBuffer audit token in an audit reply: the \
         grammar's auditReturnItem lists the other tokens alone, and so do OTP's \
         clauses; ours writes the bare keyword, which reads as the empty \
         descriptor",
    ),
    (
        "verify_count<enc_QUOTED_STRING<enc_serviceChangeReason<do_enc_list<enc_list \
         count_too_small",
        "an empty ServiceChange reason: the grammar's quotedString may be empty, \
         and ours writes `\"\"`",
    ),
    (
        "do_enc_list<enc_list<enc_list<enc_ServiceChangeParm<enc_ServiceChangeRequest \
         function_clause",
        "ServiceChange parameters with an audit descriptor that audits nothing: \
         the text form has no empty audit there, and ours leaves it out",
    ),
];

/// The kinds of difference between our text `ours` and OTP's `otp` of the
/// same model: one per run of differing tokens, with the tokens of an
/// unknown kind spelled out.
pub(super) fn differences(ours: &[u8], otp: &[u8]) -> Vec<String> {
    let (a, b) = (tokens(ours), tokens(otp));
    let mut kinds = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, &a, &b) {
        let (tag, old, new) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            continue;
        }
        let hunk = Hunk {
            before: significant(&a[..old.start]).rev().take(3).collect(),
            ours: &a[old],
            otp: &b[new],
        };
        kinds.push(match hunk.kind() {
            Some(kind) => kind.to_string(),
            None => format!(
                "ours {:?}, OTP's {:?}",
                String::from_utf8_lossy(&hunk.ours.concat()),
                String::from_utf8_lossy(&hunk.otp.concat())
            ),
        });
    }
    kinds.sort();
    kinds.dedup();
    kinds
}

/// One run of differing tokens.
struct Hunk<'a> {
    /// The last three significant tokens of ours before it, last first.
    before: Vec<&'a [u8]>,
    ours: &'a [&'a [u8]],
    otp: &'a [&'a [u8]],
}

impl Hunk<'_> {
    fn kind(&self) -> Option<&'static str> {
        let ours: Vec<&[u8]> = significant(self.ours).collect();
        let otp: Vec<&[u8]> = significant(self.otp).collect();
        let after_brace = self.before.first() == Some(&&b"{"[..]);
        let kind = match (&ours[..], &otp[..]) {
            ([q], [w]) if q.len() == w.len() + 2 && q[1..q.len() - 1] == **w && q[0] == b'"' => w
                .iter()
                .any(u8::is_ascii_uppercase)
                .then_some("an upper-case value")?,
            ([st, eq], []) if is(st, &["ST", "Stream"]) && *eq == b"=" => "a bare stream number",
            ([], [comma]) if *comma == b"," && after_brace => "a comma after an empty list",
            ([], [open, close]) if *open == b"{" && *close == b"}" => {
                is(self.before.first()?, &["SA", "Statistics"])
                    .then_some("an empty list in braces")?
            }
            ([], [tp, open, close, comma])
                if is(tp, &["TP", "Topology"]) && (*open, *close, *comma) == (b"{", b"}", b",") =>
            {
                "an empty list in braces"
            }
            ([], []) if self.in_empty_audit() => "an empty audit",
            (_, []) if is_duration_timer(&ours) => "a digit map's duration timer",
            ([oe, ..], []) if is(oe, &["OE", "ObservedEvents"]) => {
                "observed events beside an error"
            }
            ([_, next, ..], [_, ..]) if ours.concat() == otp.concat() && is(next, TRANSACTIONS) => {
                "no line end between transactions"
            }
            _ => return None,
        };
        Some(kind)
    }

    /// Whether the hunk is white space inside `Audit { }` (after the `{`
    /// or the `}`).
    fn in_empty_audit(&self) -> bool {
        let audit = |w: Option<&&[u8]>| w.is_some_and(|w| is(w, &["AT", "Audit"]));
        match self.before[..] {
            [open, ..] if open == b"{" => audit(self.before.get(1)),
            [close, open, ..] if (close, open) == (b"}", b"{") => audit(self.before.get(2)),
            _ => false,
        }
    }
}

/// The first words of transactions, both forms.
const TRANSACTIONS: &[&str] = &[
    "T",
    "Transaction",
    "P",
    "Reply",
    "PN",
    "Pending",
    "K",
    "TransactionResponseAck",
    "SM",
    "Segment",
];

/// `Z:n,` (or `,Z:n`): a digit map value's duration timer.
fn is_duration_timer(tokens: &[&[u8]]) -> bool {
    let words: Vec<&[u8]> = tokens.iter().copied().filter(|t| *t != b",").collect();
    tokens.len() == words.len() + 1
        && matches!(&words[..], [z, colon, n] if *z == b"Z" && *colon == b":"
            && n.iter().all(u8::is_ascii_digit))
}

/// Whether `word` is one of `spellings` (in any case).
fn is(word: &[u8], spellings: &[&str]) -> bool {
    spellings
        .iter()
        .any(|s| word.eq_ignore_ascii_case(s.as_bytes()))
}

/// The tokens that are not white space.
fn significant<'a>(tokens: &'a [&'a [u8]]) -> impl DoubleEndedIterator<Item = &'a [u8]> + 'a {
    tokens
        .iter()
        .copied()
        .filter(|t| !t[0].is_ascii_whitespace())
}

/// Text as tokens: runs of white space, quoted strings, runs of the
/// grammar's safe characters, and every other byte alone.
fn tokens(text: &[u8]) -> Vec<&[u8]> {
    let safe = |c: u8| c.is_ascii_alphanumeric() || b"+-&!_/'?@^`~*$\\()%|.".contains(&c);
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        let len = if c.is_ascii_whitespace() {
            text[i..]
                .iter()
                .take_while(|c| c.is_ascii_whitespace())
                .count()
        } else if c == b'"' {
            text[i + 1..]
                .iter()
                .position(|&c| c == b'"')
                .map_or(text.len() - i, |n| n + 2)
        } else if safe(c) {
            text[i..].iter().take_while(|&&c| safe(c)).count()
        } else {
            1
        };
        out.push(&text[i..i + len]);
        i += len;
    }
    out
}

#[test]
fn each_kind_is_recognised_and_others_are_not() {
    let cases: [(&str, &str, Option<&str>); 12] = [
        ("a=\"ROOT\",b", "a=ROOT,b", Some("an upper-case value")),
        ("a=\"root x\",b", "a=root x,b", None),
        (
            "TP{a,b,BW,ST=1}",
            "TP{a,b,BW,1}",
            Some("a bare stream number"),
        ),
        (
            "DM=x{T:1,Z:0,(1)}",
            "DM=x{T:1,(1)}",
            Some("a digit map's duration timer"),
        ),
        ("AT{M}", "AT{,M}", Some("a comma after an empty list")),
        ("AV=t{SA}", "AV=t{SA{}}", Some("an empty list in braces")),
        ("AV=t{M}", "AV=t{M{}}", None),
        (
            "SM=1/2\nSM=1/3",
            "SM=1/2SM=1/3",
            Some("no line end between transactions"),
        ),
        ("Audit {  } ", "Audit {\n\t\n}", Some("an empty audit")),
        (
            "N=t{OE=1{a/b},ER=5{}}",
            "N=t{ER=5{}}",
            Some("observed events beside an error"),
        ),
        ("Add = t {\n}", "Add = t {\n\t}", None),
        ("T=1{}\nT=2{}", "T=1{}T=2{}", None),
    ];
    for (ours, otp, kind) in cases {
        let found = differences(ours.as_bytes(), otp.as_bytes());
        match kind {
            Some(kind) => assert_eq!(found, [kind], "{ours} / {otp}"),
            None => assert!(found[0].starts_with("ours "), "{ours} / {otp}: {found:?}"),
        }
    }
}
