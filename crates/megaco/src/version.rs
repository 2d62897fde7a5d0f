//! Which constructs each protocol version can carry.
//!
//! The model is one set of types for v1, v2 and v3 (v3 is a superset).
//! The text and BER encoders call [`check`] first, so that a message whose
//! header says version 1 but which holds, say, a v3 segmented reply is
//! refused with [`EncodeError::Version`] instead of being written in a form
//! no v1 peer can read. The rules follow the extension additions of the
//! H.248.1 ASN.1 modules (v2 over v1, v3 over v2). The PER encoder checks
//! the same rules where it writes each construct, as its per-version
//! layouts need anyway (running `check` first as well costs it 3 % more
//! instructions, and over the edge-value sweep refuses nothing it does
//! not).
//!
//! ```
//! use megaco::model::*;
//! use megaco::EncodeError;
//!
//! let reply = TransactionReply {
//!     transaction_id: 1,
//!     imm_ack_required: false,
//!     result: TransactionResult::ActionReplies(smallvec![]),
//!     segment_number: Some(1),
//!     segmentation_complete: false,
//! };
//! let mut msg = MegacoMessage {
//!     auth_header: None,
//!     mess: Message {
//!         version: 1,
//!         mid: Mid::Device("mg1".into()),
//!         body: MessageBody::Transactions(smallvec![Transaction::Reply(reply)]),
//!     },
//! };
//! assert!(matches!(
//!     megaco::version::check(&msg),
//!     Err(EncodeError::Version { needs: 3, version: 1, .. })
//! ));
//! msg.mess.version = 3;
//! assert!(megaco::version::check(&msg).is_ok());
//! ```

use crate::model::*;
use crate::{EncodeError, MegacoMessage};

/// The highest protocol version this crate speaks.
pub const MAX_VERSION: u8 = 3;

/// Checks that everything in `msg` exists in its protocol version.
pub fn check(msg: &MegacoMessage) -> Result<(), EncodeError> {
    let version = msg.mess.version;
    if !(1..=MAX_VERSION).contains(&version) {
        return Err(EncodeError::UnsupportedVersion(version));
    }
    let c = Checker { version };
    match &msg.mess.body {
        MessageBody::Error(_) => Ok(()),
        MessageBody::Transactions(ts) => ts.iter().try_for_each(|t| c.transaction(t)),
    }
}

struct Checker {
    version: u8,
}

impl Checker {
    /// Fails when `present` and the message's version is below `needs`.
    fn need(&self, present: bool, needs: u8, construct: &'static str) -> Result<(), EncodeError> {
        if present && self.version < needs {
            Err(EncodeError::Version {
                construct,
                version: self.version,
                needs,
            })
        } else {
            Ok(())
        }
    }

    fn transaction(&self, t: &Transaction) -> Result<(), EncodeError> {
        match t {
            Transaction::Request(r) => r.actions.iter().try_for_each(|a| self.action_request(a)),
            Transaction::Pending(_) | Transaction::ResponseAck(_) => Ok(()),
            Transaction::Reply(r) => {
                self.need(
                    r.segment_number.is_some() || r.segmentation_complete,
                    3,
                    "a segmented transaction reply",
                )?;
                match &r.result {
                    TransactionResult::Error(_) => Ok(()),
                    TransactionResult::ActionReplies(rs) => {
                        rs.iter().try_for_each(|a| self.action_reply(a))
                    }
                }
            }
            Transaction::SegmentReply(_) => self.need(true, 3, "a segment reply"),
        }
    }

    fn action_request(&self, a: &ActionRequest) -> Result<(), EncodeError> {
        if let Some(cr) = &a.context_request {
            self.context_request(cr)?;
        }
        if let Some(ca) = &a.context_attr_audit_req {
            self.need(
                ca.iepscallind
                    || ca.context_prop_aud.is_some()
                    || ca.select_priority.is_some()
                    || ca.select_emergency.is_some()
                    || ca.select_iepscallind.is_some()
                    || ca.select_logic.is_some(),
                3,
                "IEPS, property or selection audit of a context",
            )?;
            if let Some(props) = &ca.context_prop_aud {
                props.iter().try_for_each(|p| self.ind_aud_property(p))?;
            }
        }
        a.command_requests
            .iter()
            .try_for_each(|c| self.command(&c.command))
    }

    fn action_reply(&self, a: &ActionReply) -> Result<(), EncodeError> {
        if let Some(cr) = &a.context_reply {
            self.context_request(cr)?;
        }
        a.command_reply
            .iter()
            .try_for_each(|r| self.command_reply(r))
    }

    fn context_request(&self, cr: &ContextRequest) -> Result<(), EncodeError> {
        self.need(cr.iepscallind.is_some(), 3, "the IEPS call indicator")?;
        self.need(cr.context_prop.is_some(), 3, "context properties")?;
        self.need(cr.context_list.is_some(), 3, "a context list")?;
        for t in cr.topology_req.iter().flatten() {
            self.need(t.stream_id.is_some(), 2, "a topology stream")?;
            self.need(
                t.topology_direction_extension.is_some(),
                3,
                "OnewayExternal/OnewayBoth topology",
            )?;
        }
        Ok(())
    }

    fn command(&self, c: &Command) -> Result<(), EncodeError> {
        match c {
            Command::Add(r) | Command::Move(r) | Command::Modify(r) => r
                .descriptors
                .iter()
                .try_for_each(|d| self.amm_descriptor(d)),
            Command::Subtract(r) => r
                .audit_descriptor
                .as_ref()
                .map_or(Ok(()), |a| self.audit_descriptor(a)),
            Command::AuditCapability(r) | Command::AuditValue(r) => {
                self.need(
                    r.termination_id_list.is_some(),
                    3,
                    "an audit of a termination list",
                )?;
                self.audit_descriptor(&r.audit_descriptor)
            }
            Command::Notify(_) => Ok(()),
            Command::ServiceChange(r) => {
                let p = &r.service_change_parms;
                self.need(
                    p.service_change_info.is_some(),
                    2,
                    "ServiceChange audit info",
                )?;
                self.need(
                    p.service_change_incomplete_flag,
                    3,
                    "the ServiceChangeInc flag",
                )?;
                p.service_change_info
                    .as_ref()
                    .map_or(Ok(()), |a| self.audit_descriptor(a))
            }
        }
    }

    fn command_reply(&self, r: &CommandReply) -> Result<(), EncodeError> {
        match r {
            CommandReply::Add(r)
            | CommandReply::Move(r)
            | CommandReply::Modify(r)
            | CommandReply::Subtract(r) => r
                .termination_audit
                .iter()
                .flatten()
                .try_for_each(|p| self.audit_return(p)),
            CommandReply::AuditCapability(r) | CommandReply::AuditValue(r) => match r {
                AuditReply::ContextAuditResult(_) | AuditReply::Error(_) => Ok(()),
                AuditReply::AuditResult(a) => a
                    .termination_audit_result
                    .iter()
                    .try_for_each(|p| self.audit_return(p)),
                AuditReply::AuditResultTermList(a) => {
                    self.need(true, 3, "an audit result for a termination list")?;
                    a.termination_audit_result
                        .iter()
                        .try_for_each(|p| self.audit_return(p))
                }
            },
            CommandReply::Notify(_) | CommandReply::ServiceChange(_) => Ok(()),
        }
    }

    fn amm_descriptor(&self, d: &AmmDescriptor) -> Result<(), EncodeError> {
        match d {
            AmmDescriptor::Media(m) => self.media(m),
            AmmDescriptor::Modem(_) => Ok(()),
            AmmDescriptor::Mux(m) => self.mux(m),
            AmmDescriptor::Events(e) => self.events(e),
            AmmDescriptor::EventBuffer(_) => Ok(()),
            AmmDescriptor::Signals(s) => self.signals(s),
            AmmDescriptor::DigitMap(dm) => self.digit_map(dm.digit_map_value.as_ref()),
            AmmDescriptor::Audit(a) => self.audit_descriptor(a),
            AmmDescriptor::Statistics(_) => {
                self.need(true, 3, "a Statistics descriptor in Add/Move/Modify")
            }
        }
    }

    fn audit_return(&self, p: &AuditReturnParameter) -> Result<(), EncodeError> {
        match p {
            AuditReturnParameter::Media(m) => self.media(m),
            AuditReturnParameter::Mux(m) => self.mux(m),
            AuditReturnParameter::Events(e) => self.events(e),

            AuditReturnParameter::Signals(s) => self.signals(s),
            AuditReturnParameter::DigitMap(dm) => self.digit_map(dm.digit_map_value.as_ref()),

            AuditReturnParameter::EmptyDescriptors(a) => self.audit_descriptor(a),
            AuditReturnParameter::Error(_)
            | AuditReturnParameter::EventBuffer(_)
            | AuditReturnParameter::ObservedEvents(_)
            | AuditReturnParameter::Modem(_)
            | AuditReturnParameter::Statistics(_)
            | AuditReturnParameter::Packages(_) => Ok(()),
        }
    }

    fn media(&self, m: &MediaDescriptor) -> Result<(), EncodeError> {
        let one = |p: &StreamParms| {
            self.need(
                p.statistics_descriptor.is_some(),
                3,
                "statistics in a stream",
            )
        };
        match &m.streams {
            None => Ok(()),
            Some(Streams::OneStream(p)) => one(p),
            Some(Streams::MultiStream(ss)) => ss.iter().try_for_each(|s| one(&s.stream_parms)),
        }
    }

    fn mux(&self, m: &MuxDescriptor) -> Result<(), EncodeError> {
        self.need(m.mux_type == MuxType::Nx64k, 2, "the Nx64k mux type")
    }

    fn events(&self, e: &EventsDescriptor) -> Result<(), EncodeError> {
        // A bare `Events` (no request id) is valid v1 text; only v1's ASN.1
        // makes the id mandatory, which the binary encoders check.
        for a in e
            .event_list
            .iter()
            .filter_map(|ev| ev.event_action.as_ref())
        {
            self.actions(
                a.notify_behaviour.as_ref(),
                a.reset_events_descriptor,
                a.event_dm.as_ref(),
                a.signals_descriptor.as_deref(),
                a.second_event.as_ref(),
            )?;
        }
        Ok(())
    }

    /// Embedded events: the ASN.1 `SecondEventsDescriptor`, whose events'
    /// actions have no place for embedded events again.
    fn second_events(&self, e: &EventsDescriptor) -> Result<(), EncodeError> {
        for a in e
            .event_list
            .iter()
            .filter_map(|ev| ev.event_action.as_ref())
        {
            if a.second_event.is_some() {
                return Err(EncodeError::Invalid {
                    what: "embedded event",
                    detail: "an embedded event's actions cannot embed events again".into(),
                });
            }
            self.actions(
                a.notify_behaviour.as_ref(),
                a.reset_events_descriptor,
                a.event_dm.as_ref(),
                a.signals_descriptor.as_deref(),
                None,
            )?;
        }
        Ok(())
    }

    /// The checks of a first-level and an embedded event's actions,
    /// including what a regulated notification embeds.
    fn actions(
        &self,
        notify: Option<&NotifyBehaviour>,
        reset: bool,
        dm: Option<&EventDm>,
        signals: Option<&[SignalRequest]>,
        second: Option<&EventsDescriptor>,
    ) -> Result<(), EncodeError> {
        self.need(notify.is_some(), 3, "a notification behaviour")?;
        self.need(reset, 3, "ResetEventsDescriptor")?;
        self.event_dm(dm)?;
        if let Some(s) = signals {
            self.signals(s)?;
        }
        if let Some(second) = second {
            self.second_events(second)?;
        }
        if let Some(NotifyBehaviour::NotifyRegulated(r)) = notify {
            if let Some(s) = &r.signals_descriptor {
                self.signals(s)?;
            }
            if let Some(second) = &r.second_event {
                self.second_events(second)?;
            }
        }
        Ok(())
    }

    fn event_dm(&self, dm: Option<&EventDm>) -> Result<(), EncodeError> {
        match dm {
            Some(EventDm::DigitMapValue(v)) => self.digit_map(Some(v)),
            _ => Ok(()),
        }
    }

    fn signals(&self, s: &[SignalRequest]) -> Result<(), EncodeError> {
        for r in s {
            match r {
                SignalRequest::Signal(sig) => self.signal(sig)?,
                SignalRequest::SeqSigList(l) => {
                    l.signal_list.iter().try_for_each(|s| self.signal(s))?
                }
            }
        }
        Ok(())
    }

    fn signal(&self, s: &Signal) -> Result<(), EncodeError> {
        self.need(s.direction.is_some(), 3, "a signal direction")?;
        self.need(s.request_id.is_some(), 3, "a signal request id")?;
        self.need(s.intersig_delay.is_some(), 3, "an inter-signal delay")?;
        self.need(
            s.notify_completion
                .iter()
                .flatten()
                .any(|n| *n == NotifyCompletion::OnIteration),
            3,
            "NotifyCompletion on iteration",
        )
    }

    fn digit_map(&self, v: Option<&DigitMapValue>) -> Result<(), EncodeError> {
        self.need(
            v.is_some_and(|v| v.duration_timer.is_some()),
            2,
            "a digit-map duration timer (Z:)",
        )
    }

    fn audit_descriptor(&self, a: &AuditDescriptor) -> Result<(), EncodeError> {
        let Some(items) = &a.audit_property_token else {
            return Ok(());
        };
        self.need(true, 2, "an individual audit (auditPropertyToken)")?;
        items.iter().try_for_each(|i| self.ind_audit(i))
    }

    fn ind_audit(&self, i: &IndAuditParameter) -> Result<(), EncodeError> {
        match i {
            IndAuditParameter::Media(m) => {
                if let Some(ts) = &m.term_state_descr {
                    self.need(
                        ts.service_state_sel.is_some(),
                        3,
                        "a service-state selection",
                    )?;
                    ts.property_parms
                        .iter()
                        .try_for_each(|p| self.ind_aud_property(p))?;
                }
                let one = |p: &IndAudStreamParms| -> Result<(), EncodeError> {
                    self.need(
                        p.statistics_descriptor.is_some(),
                        3,
                        "a stream statistics audit",
                    )?;
                    if let Some(lc) = &p.local_control_descriptor {
                        self.need(lc.stream_mode_sel.is_some(), 3, "a stream-mode selection")?;
                        lc.property_parms
                            .iter()
                            .flatten()
                            .try_for_each(|p| self.ind_aud_property(p))?;
                    }
                    Ok(())
                };
                match &m.streams {
                    None => Ok(()),
                    Some(IndAudStreams::OneStream(p)) => one(p),
                    Some(IndAudStreams::MultiStream(ss)) => {
                        ss.iter().try_for_each(|s| one(&s.stream_parms))
                    }
                }
            }
            IndAuditParameter::Signals(IndAudSignalsDescriptor::Signal(s))
            | IndAuditParameter::Signals(IndAudSignalsDescriptor::SeqSigList(IndAudSeqSigList {
                signal_list: Some(s),
                ..
            })) => self.need(
                s.signal_request_id.is_some(),
                3,
                "a signal request id in an audit",
            ),
            _ => Ok(()),
        }
    }

    fn ind_aud_property(&self, p: &IndAudPropertyParm) -> Result<(), EncodeError> {
        self.need(
            p.property_parms.is_some(),
            3,
            "a property value in an audit",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(version: u8, action: ActionRequest) -> MegacoMessage {
        MegacoMessage {
            auth_header: None,
            mess: Message {
                version,
                mid: Mid::Device("mg".into()),
                body: MessageBody::Transactions(
                    vec![Transaction::Request(TransactionRequest {
                        transaction_id: 1,
                        actions: vec![action].into(),
                    })]
                    .into(),
                ),
            },
        }
    }

    fn topology(stream_id: Option<u16>, ext: Option<TopologyDirectionExtension>) -> ActionRequest {
        ActionRequest {
            context_id: ContextId(1),
            context_request: Some(ContextRequest {
                priority: None,
                emergency: None,
                topology_req: Some(vec![TopologyRequest {
                    termination_from: TerminationId::new("a"),
                    termination_to: TerminationId::new("b"),
                    topology_direction: TopologyDirection::Oneway,
                    stream_id,
                    topology_direction_extension: ext,
                }]),
                iepscallind: None,
                context_prop: None,
                context_list: None,
            }),
            context_attr_audit_req: None,
            command_requests: vec![].into(),
        }
    }

    #[test]
    fn topology_stream_needs_v2_and_extension_needs_v3() {
        let a = topology(Some(1), None);
        assert_eq!(
            check(&message(1, a.clone())),
            Err(EncodeError::Version {
                construct: "a topology stream",
                version: 1,
                needs: 2
            })
        );
        assert_eq!(check(&message(2, a)), Ok(()));
        let b = topology(None, Some(TopologyDirectionExtension::OnewayBoth));
        assert!(matches!(
            check(&message(2, b.clone())),
            Err(EncodeError::Version { needs: 3, .. })
        ));
        assert_eq!(check(&message(3, b)), Ok(()));
    }

    #[test]
    fn unsupported_versions_are_refused() {
        let a = topology(None, None);
        assert_eq!(
            check(&message(0, a.clone())),
            Err(EncodeError::UnsupportedVersion(0))
        );
        assert_eq!(
            check(&message(4, a.clone())),
            Err(EncodeError::UnsupportedVersion(4))
        );
        assert_eq!(check(&message(1, a)), Ok(()));
    }

    #[test]
    fn nested_signal_features_are_found() {
        let sig = Signal {
            signal_name: "cg/rt".into(),
            stream_id: None,
            sig_type: None,
            duration: None,
            notify_completion: Some(vec![NotifyCompletion::OnIteration]),
            keep_active: None,
            sig_par_list: vec![],
            direction: None,
            request_id: None,
            intersig_delay: None,
        };
        let action = ActionRequest {
            context_id: ContextId::NULL,
            context_request: None,
            context_attr_audit_req: None,
            command_requests: vec![CommandRequest {
                command: Command::Modify(AmmRequest {
                    termination_ids: vec![TerminationId::new("t1")].into(),
                    descriptors: vec![AmmDescriptor::Events(EventsDescriptor {
                        request_id: Some(1),
                        event_list: vec![RequestedEvent {
                            pkgd_name: "al/of".into(),
                            stream_id: None,
                            event_action: Some(RequestedActions {
                                keep_active: None,
                                event_dm: None,
                                second_event: None,
                                signals_descriptor: Some(
                                    vec![SignalRequest::SeqSigList(SeqSigList {
                                        id: 1,
                                        signal_list: vec![sig],
                                    })]
                                    .into(),
                                ),
                                notify_behaviour: None,
                                reset_events_descriptor: false,
                            }),
                            ev_par_list: vec![].into(),
                        }],
                    })],
                }),
                optional: false,
                wildcard_return: false,
            }]
            .into(),
        };
        assert_eq!(
            check(&message(2, action.clone())),
            Err(EncodeError::Version {
                construct: "NotifyCompletion on iteration",
                version: 2,
                needs: 3
            })
        );
        assert_eq!(check(&message(3, action)), Ok(()));
    }

    /// An embedded event's actions have no place for embedded events in
    /// the ASN.1 or the text grammar: one level is checked, two refused.
    #[test]
    fn embedded_events_do_not_nest() {
        let events = |second: Option<EventsDescriptor>| EventsDescriptor {
            request_id: Some(1),
            event_list: vec![RequestedEvent {
                pkgd_name: "al/of".into(),
                event_action: Some(RequestedActions {
                    second_event: second,
                    ..Default::default()
                }),
                ..Default::default()
            }],
        };
        let action = |e: EventsDescriptor| ActionRequest {
            context_id: ContextId::NULL,
            command_requests: smallvec![CommandRequest {
                command: Command::Modify(AmmRequest {
                    termination_ids: smallvec![TerminationId::new("t1")],
                    descriptors: vec![AmmDescriptor::Events(e)],
                }),
                optional: false,
                wildcard_return: false,
            }],
            ..Default::default()
        };
        let one = events(Some(events(None)));
        assert_eq!(check(&message(1, action(one.clone()))), Ok(()));
        let two = events(Some(one));
        assert!(matches!(
            check(&message(1, action(two))),
            Err(EncodeError::Invalid {
                what: "embedded event",
                ..
            })
        ));
    }
}
