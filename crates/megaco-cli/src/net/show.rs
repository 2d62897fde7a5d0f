//! How messages and events read in the log: one compact line per
//! transaction (or pretty text under its arrow line), errors in words.

use std::net::SocketAddr;

use megaco::model::*;
use megaco::MegacoMessage;
use serde_json::{json, Value};

use super::log::{addr, Log};

/// One transaction in text, without the message header: compact on one
/// line, or pretty on several.
pub fn transaction_text(t: Transaction, version: u8, pretty: bool) -> String {
    let msg = MegacoMessage {
        auth_header: None,
        mess: Message {
            version,
            mid: Mid::Device("x".into()),
            body: MessageBody::Transactions(vec![t].into()),
        },
    };
    let encode = |m: &MegacoMessage| {
        if pretty {
            megaco::text::encode_pretty(m)
        } else {
            megaco::text::encode_compact(m)
        }
    };
    // What does not fit the version is shown as v3.
    let bytes = match encode(&msg) {
        Ok(b) => b,
        Err(_) => {
            let mut v3 = msg.clone();
            v3.mess.version = 3;
            match encode(&v3) {
                Ok(b) => b,
                Err(e) => return format!("(not encodable as text: {e})"),
            }
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let body = text.split_once('\n').map_or(&*text, |(_, b)| b);
    if pretty {
        body.trim_end().to_string()
    } else {
        body.split(['\r', '\n'])
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A reply transaction.
pub fn reply(id: u32, result: &TransactionResult) -> Transaction {
    Transaction::Reply(TransactionReply {
        transaction_id: id,
        imm_ack_required: false,
        result: result.clone(),
        segment_number: None,
        segmentation_complete: false,
    })
}

/// A request transaction.
pub fn request(id: u32, actions: &[ActionRequest]) -> Transaction {
    Transaction::Request(TransactionRequest {
        transaction_id: id,
        actions: actions.to_vec().into(),
    })
}

/// A message line: `ARROW WHO TRANSACTION` (`->` sent, `<-` received).
pub fn message(log: &Log, arrow: &str, peer: SocketAddr, who: &str, version: u8, t: Transaction) {
    let (pretty, json) = (log.pretty, log.json);
    let event = match (&t, arrow) {
        (Transaction::Request(_), "<-") => "request_received",
        (Transaction::Request(_), _) => "request_sent",
        (_, "<-") => "reply_received",
        _ => "reply_sent",
    };
    let fields = || {
        let mut v = json!({ "peer": addr(peer), "version": version, "transaction": &t });
        if !who.is_empty() {
            v["from"] = Value::String(who.to_string());
        }
        v
    };
    if json {
        log.info(event, String::new, fields);
        return;
    }
    log.info(
        event,
        || {
            let head = if who.is_empty() {
                format!("{arrow} {peer}")
            } else {
                format!("{arrow} {peer} {who}")
            };
            let text = transaction_text(t.clone(), version, pretty);
            if pretty {
                format!("{head}\n{text}")
            } else {
                format!("{head} {text}")
            }
        },
        || Value::Null,
    );
}

/// An error descriptor in words: `error 501 (Not Implemented)`.
pub fn describe(e: &ErrorDescriptor) -> String {
    match &e.error_text {
        Some(t) => format!("error {} ({t})", e.error_code),
        None => format!("error {}", e.error_code),
    }
}

/// A decode error as `megaco check` words it: `line:col: what` for text,
/// `offset: BER: what` and `offset: PER: what` for binary.
pub fn decode_error(e: &megaco::codec::DecodeError) -> String {
    use megaco::codec::Kind;
    match (e.line_column(), e.codec()) {
        (Some((line, column)), _) => format!("{line}:{column}: {}", e.kind()),
        (None, Kind::Ber) => format!("{}: BER: {}", e.offset(), e.kind()),
        (None, Kind::Per) => format!("{}: PER: {}", e.offset(), e.kind()),
        (None, _) => format!("{}: {e}", e.offset()),
    }
}

/// A message identifier in text form (`[10.0.0.1]:2944`, `<mg>`).
pub fn mid_text(mid: &Mid) -> String {
    mid.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_lines_have_no_header() {
        let line = transaction_text(
            reply(
                7,
                &TransactionResult::Error(ErrorDescriptor {
                    error_code: 501,
                    error_text: Some("Not Implemented".into()),
                }),
            ),
            1,
            false,
        );
        assert!(line.starts_with("P=7{"), "{line}");
        assert!(!line.contains('\n'));
    }

    #[test]
    fn decode_errors_read_as_check_prints_them() {
        let e = megaco::codec::Encoding::pretty()
            .decode(b"MEGACO/1 [1.2.3.4]\nTransaction = 1 {\n  Bogus\n}")
            .unwrap_err();
        let text = decode_error(&e);
        assert!(text.starts_with("3:3: "), "{text}");
        let e = megaco::codec::Encoding::ber()
            .decode(&[0x30, 0x05, 1])
            .unwrap_err();
        assert!(decode_error(&e).contains(": BER: "), "{}", decode_error(&e));
    }
}
