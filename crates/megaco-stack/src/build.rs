//! Small constructors for the requests and replies every gateway and
//! controller sends: ServiceChange, Notify and their replies.
//!
//! ```
//! use megaco::model::*;
//! use megaco_stack::build;
//!
//! let register = build::service_change(
//!     TerminationId::root(),
//!     ServiceChangeMethod::Restart,
//!     "901 mg col boot",
//! );
//! assert_eq!(register.context_id, ContextId::NULL);
//! ```

use megaco::model::*;

/// An action on the null context with one ServiceChange of `termination`.
pub fn service_change(
    termination: TerminationId,
    method: ServiceChangeMethod,
    reason: &str,
) -> ActionRequest {
    let parms = ServiceChangeParm {
        service_change_method: method,
        service_change_address: None,
        service_change_version: None,
        service_change_profile: None,
        service_change_reason: smallvec![reason.into()],
        service_change_delay: None,
        service_change_mgc_id: None,
        time_stamp: None,
        non_standard_data: None,
        service_change_info: None,
        service_change_incomplete_flag: false,
    };
    action(
        ContextId::NULL,
        Command::ServiceChange(Box::new(ServiceChangeRequest {
            termination_ids: vec![termination].into(),
            service_change_parms: parms,
        })),
    )
}

/// An action with one Notify of `termination` reporting `event` (e.g.
/// `"al/of"`) for the events descriptor `request_id`.
pub fn notify(
    context: ContextId,
    termination: TerminationId,
    request_id: u32,
    event: &str,
) -> ActionRequest {
    action(
        context,
        Command::Notify(NotifyRequest {
            termination_ids: vec![termination].into(),
            observed_events_descriptor: ObservedEventsDescriptor {
                request_id,
                observed_event_lst: vec![ObservedEvent {
                    event_name: event.to_string().into(),
                    stream_id: None,
                    event_par_list: vec![],
                    time_notation: None,
                }]
                .into(),
            },
            error_descriptor: None,
        }),
    )
}

/// An action on `context` with the single `command`.
pub fn action(context: ContextId, command: Command) -> ActionRequest {
    ActionRequest {
        context_id: context,
        context_request: None,
        context_attr_audit_req: None,
        command_requests: vec![CommandRequest {
            command,
            optional: false,
            wildcard_return: false,
        }]
        .into(),
    }
}

/// The reply a controller gives a ServiceChange it accepts: the same
/// terminations, with the given parameters.
pub fn service_change_reply(
    context: ContextId,
    termination_ids: Vec<TerminationId>,
    parms: ServiceChangeResParm,
) -> ActionReply {
    action_reply(
        context,
        CommandReply::ServiceChange(Box::new(ServiceChangeReply {
            termination_ids: termination_ids.into(),
            service_change_result: ServiceChangeResult::ServiceChangeResParms(parms),
        })),
    )
}

/// Service change reply parameters with nothing set but an optional
/// address.
pub fn service_change_res_parm(address: Option<ServiceChangeAddress>) -> ServiceChangeResParm {
    ServiceChangeResParm {
        service_change_mgc_id: None,
        service_change_address: address,
        service_change_version: None,
        service_change_profile: None,
        time_stamp: None,
    }
}

/// A Notify reply for `termination_ids`.
pub fn notify_reply(context: ContextId, termination_ids: Vec<TerminationId>) -> ActionReply {
    action_reply(
        context,
        CommandReply::Notify(NotifyReply {
            termination_ids: termination_ids.into(),
            error_descriptor: None,
        }),
    )
}

/// An action reply on `context` with the single `reply`.
pub fn action_reply(context: ContextId, reply: CommandReply) -> ActionReply {
    ActionReply {
        context_id: context,
        error_descriptor: None,
        context_reply: None,
        command_reply: vec![reply].into(),
    }
}

/// The usual answer of a controller: a ServiceChange gets a
/// ServiceChangeReply (no parameters), a Notify a NotifyReply, and any
/// other command error 501 ("Not Implemented").
pub fn default_replies(actions: &[ActionRequest]) -> TransactionResult {
    let mut replies = Vec::with_capacity(actions.len());
    for a in actions {
        let mut command_reply = Vec::with_capacity(a.command_requests.len());
        let mut error = None;
        for c in &a.command_requests {
            match &c.command {
                Command::ServiceChange(sc) => {
                    command_reply.push(CommandReply::ServiceChange(Box::new(ServiceChangeReply {
                        termination_ids: sc.termination_ids.clone(),
                        service_change_result: ServiceChangeResult::ServiceChangeResParms(
                            service_change_res_parm(None),
                        ),
                    })))
                }
                Command::Notify(n) => command_reply.push(CommandReply::Notify(NotifyReply {
                    termination_ids: n.termination_ids.clone(),
                    error_descriptor: None,
                })),
                _ => {
                    error = Some(ErrorDescriptor {
                        error_code: 501,
                        error_text: Some("Not Implemented".into()),
                    });
                    break;
                }
            }
        }
        replies.push(ActionReply {
            context_id: a.context_id,
            error_descriptor: error,
            context_reply: None,
            command_reply: command_reply.into(),
        });
    }
    TransactionResult::ActionReplies(replies.into())
}
