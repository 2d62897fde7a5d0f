//! The check of the `view` fuzz target, shared with the view tests
//! (crates/megaco/tests/view.rs): on the same bytes, every field the
//! borrowed view yields equals the owned model's, through the whole walk
//! and through the outline.
use megaco::codec::{DecodeError, Encoding};
use megaco::model::{
    AuditReply, CommandReply, MegacoMessage, MessageBody, Transaction, TransactionResult,
};
use megaco::view::{CommandKind, CommandView, Item, MessageView, TransactionView};

/// What the view must yield for `msg`, item by item, termination ids as
/// the model's.
#[derive(Debug, PartialEq)]
pub enum Expected {
    Transaction(TransactionView),
    TransactionError(u16),
    Ack(u32, Option<u32>),
    Action(megaco::model::ContextId),
    ActionError(u16),
    Command(CommandView),
    TerminationId(megaco::model::TerminationId),
}

/// The items of `msg` in document order.
pub fn expected(msg: &MegacoMessage) -> Vec<Expected> {
    let mut out = Vec::new();
    let MessageBody::Transactions(ts) = &msg.mess.body else {
        return out;
    };
    let ids = |out: &mut Vec<Expected>, ids: &[megaco::model::TerminationId]| {
        out.extend(ids.iter().cloned().map(Expected::TerminationId));
    };
    for t in ts {
        match t {
            Transaction::Request(r) => {
                out.push(Expected::Transaction(TransactionView::Request {
                    id: r.transaction_id,
                }));
                for a in &r.actions {
                    out.push(Expected::Action(a.context_id));
                    for c in &a.command_requests {
                        use megaco::model::Command as C;
                        let kind = CommandKind::of(&c.command).expect("a known command");
                        out.push(Expected::Command(CommandView {
                            kind,
                            reply: false,
                            optional: c.optional,
                            wildcard_return: c.wildcard_return,
                        }));
                        match &c.command {
                            C::Add(x) | C::Move(x) | C::Modify(x) => {
                                ids(&mut out, &x.termination_ids)
                            }
                            C::Subtract(x) => ids(&mut out, &x.termination_ids),
                            C::AuditCapability(x) | C::AuditValue(x) => {
                                match &x.termination_id_list {
                                    Some(l) => ids(&mut out, l),
                                    None => ids(&mut out, std::slice::from_ref(&x.termination_id)),
                                }
                            }
                            C::Notify(x) => ids(&mut out, &x.termination_ids),
                            C::ServiceChange(x) => ids(&mut out, &x.termination_ids),
                            _ => {}
                        }
                    }
                }
            }
            Transaction::Pending(p) => out.push(Expected::Transaction(TransactionView::Pending {
                id: p.transaction_id,
            })),
            Transaction::Reply(r) => {
                out.push(Expected::Transaction(TransactionView::Reply {
                    id: r.transaction_id,
                    imm_ack_required: r.imm_ack_required,
                    segment_number: r.segment_number,
                    segmentation_complete: r.segmentation_complete,
                }));
                match &r.result {
                    TransactionResult::Error(e) => {
                        out.push(Expected::TransactionError(e.error_code))
                    }
                    TransactionResult::ActionReplies(actions) => {
                        for a in actions {
                            out.push(Expected::Action(a.context_id));
                            if let Some(e) = &a.error_descriptor {
                                out.push(Expected::ActionError(e.error_code));
                            }
                            for c in &a.command_reply {
                                let kind = CommandKind::of_reply(c).expect("a known command");
                                out.push(Expected::Command(CommandView {
                                    kind,
                                    reply: true,
                                    optional: false,
                                    wildcard_return: false,
                                }));
                                match c {
                                    CommandReply::Add(x)
                                    | CommandReply::Move(x)
                                    | CommandReply::Modify(x)
                                    | CommandReply::Subtract(x) => {
                                        ids(&mut out, &x.termination_ids)
                                    }
                                    CommandReply::AuditCapability(x)
                                    | CommandReply::AuditValue(x) => match x {
                                        AuditReply::ContextAuditResult(l) => ids(&mut out, l),
                                        AuditReply::Error(_) => {}
                                        AuditReply::AuditResult(r) => {
                                            ids(&mut out, std::slice::from_ref(&r.termination_id))
                                        }
                                        AuditReply::AuditResultTermList(r) => {
                                            ids(&mut out, &r.termination_id_list)
                                        }
                                    },
                                    CommandReply::Notify(x) => ids(&mut out, &x.termination_ids),
                                    CommandReply::ServiceChange(x) => {
                                        ids(&mut out, &x.termination_ids)
                                    }
                                    _ => {}
                                }
                            }
                        }
                    }
                }
            }
            Transaction::ResponseAck(acks) => {
                out.push(Expected::Transaction(TransactionView::ResponseAck));
                out.extend(acks.iter().map(|a| Expected::Ack(a.first_ack, a.last_ack)));
            }
            Transaction::SegmentReply(s) => {
                out.push(Expected::Transaction(TransactionView::SegmentReply {
                    id: s.transaction_id,
                    segment_number: s.segment_number,
                    segmentation_complete: s.segmentation_complete,
                }))
            }
            _ => {}
        }
    }
    out
}

/// What the view yields, in the same terms.
pub fn viewed(view: &MessageView<'_>) -> Result<Vec<Expected>, DecodeError> {
    in_terms(view.items())
}

/// What the view's outline yields, in the same terms.
pub fn outlined(view: &MessageView<'_>) -> Result<Vec<Expected>, DecodeError> {
    in_terms(view.outline())
}

/// The items of `msg`'s outline: transactions, their errors and ack ranges.
pub fn expected_outline(msg: &MegacoMessage) -> Vec<Expected> {
    let mut out = expected(msg);
    out.retain(|e| {
        matches!(
            e,
            Expected::Transaction(_) | Expected::TransactionError(_) | Expected::Ack(..)
        )
    });
    out
}

fn in_terms<'a>(
    items: impl Iterator<Item = Result<Item<'a>, DecodeError>>,
) -> Result<Vec<Expected>, DecodeError> {
    items
        .map(|item| {
            Ok(match item? {
                Item::Transaction(t) => Expected::Transaction(t),
                Item::TransactionError { code } => Expected::TransactionError(code),
                Item::Ack { first, last } => Expected::Ack(first, last),
                Item::Action { context_id } => Expected::Action(context_id),
                Item::ActionError { code } => Expected::ActionError(code),
                Item::Command(c) => Expected::Command(c),
                Item::TerminationId(t) => Expected::TerminationId(t.to_termination_id()),
                other => panic!("an item this check does not know: {other:?}"),
            })
        })
        .collect()
}

/// The check: when the owned decoder accepts `bytes`, the view does too
/// and yields exactly the model's header and items. (The view reads less
/// than the owned decoder, so it may accept what the owned one refuses;
/// it must not panic on anything.)
pub fn check(bytes: &[u8], encoding: &Encoding, label: &str) {
    let view = MessageView::parse(bytes, encoding);
    let Ok(msg) = encoding.decode(bytes) else {
        if let Ok(v) = view {
            let _ = viewed(&v);
            let _ = outlined(&v);
        }
        return;
    };
    let view = view.unwrap_or_else(|e| panic!("{label}: the owned decoder accepts, the view: {e}"));
    assert_eq!(view.version(), msg.mess.version, "{label}: version");
    assert_eq!(view.mid().to_mid(), msg.mess.mid, "{label}: mid");
    let code = match &msg.mess.body {
        MessageBody::Error(e) => Some(e.error_code),
        MessageBody::Transactions(_) => None,
    };
    assert_eq!(view.error_code(), code, "{label}: message error");
    let items = viewed(&view)
        .unwrap_or_else(|e| panic!("{label}: the owned decoder accepts, the view's items: {e}"));
    assert_eq!(items, expected(&msg), "{label}: items");
    let outline = outlined(&view)
        .unwrap_or_else(|e| panic!("{label}: the owned decoder accepts, the view's outline: {e}"));
    assert_eq!(outline, expected_outline(&msg), "{label}: outline");
}

/// [`check`] in every BER configuration: both dialects, both mappings
/// (what the `view` target and the view's regression test check; the
/// text ones use [`check`] alone).
#[allow(dead_code)]
pub fn check_ber(bytes: &[u8], label: &str) {
    use megaco::ber::{BerConfig, Dialect, Mapping};
    for dialect in [Dialect::Otp, Dialect::Standard] {
        for mapping in [Mapping::default(), Mapping::Native] {
            let enc = Encoding::Ber(BerConfig {
                dialect,
                mapping,
                ..BerConfig::default()
            });
            check(bytes, &enc, label);
        }
    }
}
