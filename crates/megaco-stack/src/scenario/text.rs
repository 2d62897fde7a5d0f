//! Megaco text inside scenario files: the actions an MG script sends and
//! the descriptors a rule answers with, written as in any text message,
//! with `${name}` variables.

use std::collections::HashMap;

use megaco::model::*;

use super::rules::CommandKind;

/// Lines the wrappers below put before the scenario's own text.
const HEADER_LINES: u32 = 2;

/// Replaces each `${name}` in `template` with its value; `$$` stays a
/// literal `$$`, and a `$` not followed by `{` is left alone (`Context = $`
/// and `Add = $` mean "choose").
pub(crate) fn substitute(template: &str, vars: &HashMap<String, String>) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("`${{` without a closing `}}` in {template:?}"));
        };
        let name = &after[..end];
        match vars.get(name) {
            Some(v) => out.push_str(v),
            None => {
                return Err(format!(
                    "variable `{name}` is not set (no earlier step saves it)"
                ))
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The `${name}` variables `template` uses.
pub(crate) fn variables(template: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(at) = rest.find("${") {
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else { break };
        names.push(after[..end].to_string());
        rest = &after[end + 1..];
    }
    names
}

/// Decodes `wrapped`, whose scenario text starts on line 3, and says where
/// it failed in the scenario text's own lines.
fn decode(wrapped: &str) -> Result<MessageBody, String> {
    match megaco::text::decode(wrapped.as_bytes()) {
        Ok(msg) => Ok(msg.mess.body),
        Err(e) => match e.line_column() {
            Some((line, column)) if line > HEADER_LINES => Err(format!(
                "line {}, column {}: {}",
                line - HEADER_LINES,
                column,
                e.kind()
            )),
            _ => Err(e.kind().to_string()),
        },
    }
}

/// Parses the body of a transaction request: one or more `Context = … { … }`
/// actions, in pretty or compact text.
///
/// ```text
/// Context = $ { Add = $ { Media { Stream = 1 { LocalControl { Mode = SendReceive } } } } }
/// ```
pub(crate) fn parse_actions(body: &str) -> Result<Vec<ActionRequest>, String> {
    let wrapped = format!("MEGACO/3 [0.0.0.0]\nTransaction = 1 {{\n{body}\n}}\n");
    match decode(&wrapped)? {
        MessageBody::Transactions(ts) => match ts.into_iter().next() {
            Some(Transaction::Request(r)) => Ok(r.actions.into_vec()),
            _ => Err("expected `Context = … { … }` actions".into()),
        },
        MessageBody::Error(_) => Err("expected `Context = … { … }` actions".into()),
    }
}

/// Parses the descriptors a command reply carries (`Media { … }`,
/// `Events = 1 { … }`, `Packages { … }`, …) for a command of `kind`.
pub(crate) fn parse_descriptors(
    kind: CommandKind,
    descriptors: &str,
) -> Result<Vec<AuditReturnParameter>, String> {
    let token = match kind {
        CommandKind::Add => "Add",
        CommandKind::Move => "Move",
        CommandKind::Modify => "Modify",
        CommandKind::Subtract => "Subtract",
        CommandKind::AuditValue => "AuditValue",
        CommandKind::AuditCapabilities => "AuditCapability",
        CommandKind::Notify | CommandKind::ServiceChange | CommandKind::Any => {
            return Err(format!(
                "a {} reply carries no descriptors: `descriptors` applies to Add, Move, \
                 Modify, Subtract, AuditValue and AuditCapabilities rules",
                kind.name()
            ))
        }
    };
    let wrapped = format!(
        "MEGACO/3 [0.0.0.0]\nReply = 1 {{ Context = 1 {{ {token} = t {{\n{descriptors}\n}} }} }}\n"
    );
    let body = decode(&wrapped)?;
    let reply = match body {
        MessageBody::Transactions(ts) => ts.into_iter().next(),
        MessageBody::Error(_) => None,
    };
    let Some(Transaction::Reply(TransactionReply {
        result: TransactionResult::ActionReplies(actions),
        ..
    })) = reply
    else {
        return Err("expected descriptors".into());
    };
    let command = actions
        .into_iter()
        .next()
        .and_then(|a| a.command_reply.into_iter().next());
    match command {
        Some(
            CommandReply::Add(r)
            | CommandReply::Move(r)
            | CommandReply::Modify(r)
            | CommandReply::Subtract(r),
        ) => Ok(r.termination_audit.unwrap_or_default()),
        Some(CommandReply::AuditValue(a) | CommandReply::AuditCapability(a)) => match a {
            AuditReply::AuditResult(r) => Ok(r.termination_audit_result),
            AuditReply::AuditResultTermList(r) => Ok(r.termination_audit_result),
            _ => Err("expected audited descriptors".into()),
        },
        _ => Err("expected descriptors".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_are_replaced_and_choose_wildcards_kept() {
        let vars = HashMap::from([("ctx".to_string(), "7".to_string())]);
        assert_eq!(
            substitute("Context = ${ctx} { Add = $ }", &vars).unwrap(),
            "Context = 7 { Add = $ }"
        );
        assert!(substitute("Context = ${nope} {}", &vars)
            .unwrap_err()
            .contains("`nope`"));
        assert_eq!(variables("C=${a}{S=${b}}"), ["a", "b"]);
    }

    #[test]
    fn actions_parse_in_pretty_and_compact_text() {
        let a = parse_actions("Context = $ { Add = $ }").unwrap();
        assert_eq!(a[0].context_id, ContextId::CHOOSE);
        let b = parse_actions("C=$ {A=$}").unwrap();
        assert_eq!(a, b);
        let err = parse_actions("Context = $ {\n  Add = $ {\n Bogus }\n}").unwrap_err();
        assert!(err.starts_with("line 3,"), "{err}");
    }

    #[test]
    fn descriptors_parse_per_command() {
        let d = parse_descriptors(
            CommandKind::Add,
            "Media { Stream = 1 { Local { v=0\nc=IN IP4 127.0.0.1\nm=audio 4000 RTP/AVP 0\n } } }",
        )
        .unwrap();
        assert!(matches!(d[0], AuditReturnParameter::Media(_)), "{d:?}");
        let p = parse_descriptors(CommandKind::AuditValue, "Packages { g-1, root-1 }").unwrap();
        assert_eq!(p.len(), 1);
        assert!(parse_descriptors(CommandKind::Notify, "Media { }").is_err());
    }
}
