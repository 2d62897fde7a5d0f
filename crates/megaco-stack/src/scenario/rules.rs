//! Reply rules: which command (and termination, package) a rule is for,
//! and what it answers.

use std::time::Duration;

use megaco::model::*;

/// A command, as a rule names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommandKind {
    /// `Add`.
    Add,
    /// `Move`.
    Move,
    /// `Modify`.
    Modify,
    /// `Subtract`.
    Subtract,
    /// `AuditValue`.
    AuditValue,
    /// `AuditCapabilities`.
    AuditCapabilities,
    /// `Notify`.
    Notify,
    /// `ServiceChange`.
    ServiceChange,
    /// Any command (`"*"` in a file).
    Any,
}

impl CommandKind {
    /// The kind of `command`.
    pub fn of(command: &Command) -> CommandKind {
        match command {
            Command::Add(_) => CommandKind::Add,
            Command::Move(_) => CommandKind::Move,
            Command::Modify(_) => CommandKind::Modify,
            Command::Subtract(_) => CommandKind::Subtract,
            Command::AuditValue(_) => CommandKind::AuditValue,
            Command::AuditCapability(_) => CommandKind::AuditCapabilities,
            Command::Notify(_) => CommandKind::Notify,
            Command::ServiceChange(_) => CommandKind::ServiceChange,
            // A command of a later model: only `"*"` rules match it.
            _ => CommandKind::Any,
        }
    }

    /// Reads a command's name: its text token, long or short (`Add`, `A`,
    /// `AuditValue`, `AV`, `ServiceChange`, `SC`, …), in any case, or `*`
    /// for any command.
    ///
    /// ```
    /// use megaco_stack::scenario::CommandKind;
    /// assert_eq!(CommandKind::parse("auditvalue"), Some(CommandKind::AuditValue));
    /// assert_eq!(CommandKind::parse("MF"), Some(CommandKind::Modify));
    /// assert_eq!(CommandKind::parse("*"), Some(CommandKind::Any));
    /// assert_eq!(CommandKind::parse("Dance"), None);
    /// ```
    pub fn parse(name: &str) -> Option<CommandKind> {
        let n = name.to_ascii_lowercase().replace(['_', '-'], "");
        Some(match n.as_str() {
            "add" | "a" => CommandKind::Add,
            "move" | "mv" => CommandKind::Move,
            "modify" | "mf" => CommandKind::Modify,
            "subtract" | "s" => CommandKind::Subtract,
            "auditvalue" | "av" => CommandKind::AuditValue,
            "auditcapabilities" | "auditcapability" | "ac" => CommandKind::AuditCapabilities,
            "notify" | "n" => CommandKind::Notify,
            "servicechange" | "sc" => CommandKind::ServiceChange,
            "*" | "any" => CommandKind::Any,
            _ => return None,
        })
    }

    /// The command's text name (`Add`, `AuditValue`, …; `*` for any).
    pub fn name(self) -> &'static str {
        match self {
            CommandKind::Add => "Add",
            CommandKind::Move => "Move",
            CommandKind::Modify => "Modify",
            CommandKind::Subtract => "Subtract",
            CommandKind::AuditValue => "AuditValue",
            CommandKind::AuditCapabilities => "AuditCapabilities",
            CommandKind::Notify => "Notify",
            CommandKind::ServiceChange => "ServiceChange",
            CommandKind::Any => "*",
        }
    }
}

/// A termination id pattern: `*` matches any run of characters, anything
/// else itself, ignoring case (`rtp/*`, `*/0000000?` is not special: only
/// `*` is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern(String);

impl Pattern {
    /// A pattern from its text.
    pub fn new(pattern: &str) -> Self {
        Pattern(pattern.to_ascii_lowercase())
    }

    /// The pattern as given (lower case).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `text` matches.
    ///
    /// ```
    /// use megaco_stack::scenario::Pattern;
    /// let p = Pattern::new("rtp/*");
    /// assert!(p.matches("RTP/17"));
    /// assert!(!p.matches("tdm/1"));
    /// assert!(Pattern::new("*/00000001").matches("11111111/00000001"));
    /// ```
    pub fn matches(&self, text: &str) -> bool {
        let text = text.to_ascii_lowercase();
        let mut parts = self.0.split('*');
        let first = parts.next().unwrap_or_default();
        let Some(mut rest) = text.strip_prefix(first) else {
            return false;
        };
        let parts: Vec<&str> = parts.collect();
        let Some((last, middle)) = parts.split_last() else {
            return rest.is_empty();
        };
        for part in middle {
            match rest.find(part) {
                Some(at) => rest = &rest[at + part.len()..],
                None => return false,
            }
        }
        rest.len() >= last.len() && rest.ends_with(last)
    }
}

/// What a rule answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A successful reply, as the defaults would give it, carrying these
    /// descriptors (none: the default reply's).
    Answer {
        /// Descriptors of the command reply (Add, Move, Modify, Subtract,
        /// AuditValue, AuditCapabilities).
        descriptors: Vec<AuditReturnParameter>,
    },
    /// An error.
    Error {
        /// The error code (H.248.8).
        code: u16,
        /// Its text, if any.
        text: Option<String>,
        /// Where the error goes.
        scope: ErrorScope,
    },
    /// No answer at all: the request is dropped (the peer resends, then
    /// gives up).
    None,
}

/// Where an error reply goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorScope {
    /// In the command's own reply (`Add = t { Error = … }`); the commands
    /// after it in the action are not executed (H.248.1 §7.1.x).
    Command,
    /// In the action reply (`Context = c { Error = … }`).
    Context,
    /// The whole transaction (`Reply = n { Error = … }`).
    Transaction,
}

/// One reply rule of a scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// The command it is for.
    pub command: CommandKind,
    /// Only for commands whose first termination id matches.
    pub termination: Option<Pattern>,
    /// Only for commands that name an event, signal or property of this
    /// package (`al`, `g`, `tdmc`, …).
    pub package: Option<String>,
    /// What to answer.
    pub reply: Reply,
    /// Send a TransactionPending at once, and the reply this long after.
    pub pending: Option<Duration>,
    /// Answer this long after the request came (without a pending).
    pub delay: Option<Duration>,
    /// Apply to this many matching commands only, then let later rules
    /// (or the defaults) answer.
    pub times: Option<u64>,
}

impl Rule {
    /// A rule answering `command` with the default reply.
    pub fn answer(command: CommandKind) -> Rule {
        Rule {
            command,
            termination: None,
            package: None,
            reply: Reply::Answer {
                descriptors: Vec::new(),
            },
            pending: None,
            delay: None,
            times: None,
        }
    }

    /// Whether the rule is for `command`.
    pub fn matches(&self, command: &Command) -> bool {
        if self.command != CommandKind::Any && self.command != CommandKind::of(command) {
            return false;
        }
        if let Some(p) = &self.termination {
            if !terminations(command).iter().any(|t| p.matches(t.as_str())) {
                return false;
            }
        }
        if let Some(pkg) = &self.package {
            let mut names = Vec::new();
            package_names(command, &mut names);
            let named = |n: &&str| {
                n.split_once('/')
                    .is_some_and(|(p, _)| p.eq_ignore_ascii_case(pkg))
            };
            if !names.iter().any(named) {
                return false;
            }
        }
        true
    }
}

/// The termination ids a command names.
pub(crate) fn terminations(command: &Command) -> &[TerminationId] {
    match command {
        Command::Add(r) | Command::Move(r) | Command::Modify(r) => &r.termination_ids,
        Command::Subtract(r) => &r.termination_ids,
        Command::AuditValue(r) | Command::AuditCapability(r) => {
            std::slice::from_ref(&r.termination_id)
        }
        Command::Notify(r) => &r.termination_ids,
        Command::ServiceChange(r) => &r.termination_ids,
        _ => &[],
    }
}

/// The package-qualified names (`al/of`, `tdmc/gain`) of the events,
/// signals, observed events and properties a command carries.
fn package_names<'a>(command: &'a Command, out: &mut Vec<&'a str>) {
    match command {
        Command::Add(r) | Command::Move(r) | Command::Modify(r) => {
            for d in &r.descriptors {
                match d {
                    AmmDescriptor::Events(e) => {
                        out.extend(e.event_list.iter().map(|e| e.pkgd_name.as_str()))
                    }
                    AmmDescriptor::Signals(s) => signal_names(s, out),
                    AmmDescriptor::Media(m) => media_names(m, out),
                    _ => {}
                }
            }
        }
        Command::Notify(n) => out.extend(
            n.observed_events_descriptor
                .observed_event_lst
                .iter()
                .map(|e| e.event_name.as_str()),
        ),
        _ => {}
    }
}

fn signal_names<'a>(signals: &'a [SignalRequest], out: &mut Vec<&'a str>) {
    for s in signals {
        match s {
            SignalRequest::Signal(s) => out.push(&s.signal_name),
            SignalRequest::SeqSigList(l) => {
                out.extend(l.signal_list.iter().map(|s| s.signal_name.as_str()))
            }
        }
    }
}

fn media_names<'a>(m: &'a MediaDescriptor, out: &mut Vec<&'a str>) {
    if let Some(ts) = &m.term_state_descr {
        out.extend(ts.property_parms.iter().map(|p| p.name.as_str()));
    }
    let streams: Vec<&StreamParms> = match &m.streams {
        Some(Streams::OneStream(p)) => vec![p],
        Some(Streams::MultiStream(s)) => s.iter().map(|s| &s.stream_parms).collect(),
        None => vec![],
    };
    for p in streams {
        if let Some(lc) = &p.local_control_descriptor {
            out.extend(lc.property_parms.iter().map(|p| p.name.as_str()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(text: &str) -> Command {
        let actions = super::super::text::parse_actions(text).unwrap();
        actions[0].command_requests[0].command.clone()
    }

    #[test]
    fn patterns_match_like_globs() {
        let p = Pattern::new("a*b*c");
        assert!(p.matches("abc"));
        assert!(p.matches("aXXbYYc"));
        assert!(!p.matches("aXXbYY"));
        assert!(!p.matches("ac"));
        assert!(Pattern::new("*").matches(""));
        assert!(Pattern::new("root").matches("ROOT"));
        assert!(!Pattern::new("root").matches("root/1"));
    }

    #[test]
    fn rules_match_command_termination_and_package() {
        let mut rule = Rule::answer(CommandKind::Modify);
        let modify = command("C=1{MF=tdm/1{E=2{al/on}}}");
        let add = command("C=$ {A=tdm/1}");
        assert!(rule.matches(&modify));
        assert!(!rule.matches(&add));
        rule.termination = Some(Pattern::new("tdm/*"));
        assert!(rule.matches(&modify));
        rule.termination = Some(Pattern::new("rtp/*"));
        assert!(!rule.matches(&modify));
        rule.termination = None;
        rule.package = Some("al".into());
        assert!(rule.matches(&modify));
        rule.package = Some("g".into());
        assert!(!rule.matches(&modify));
        let notify = command("C=-{N=tdm/1{OE=1{al/of}}}");
        let mut any = Rule::answer(CommandKind::Any);
        any.package = Some("AL".into());
        assert!(any.matches(&notify));
    }
}
