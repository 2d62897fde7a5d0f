//! Commands, their replies and the context properties beside them.

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use super::*;

model! {
    /// Context properties (`ContextRequest`).
    #[derive(Default)]
    pub struct ContextRequest {
        /// Priority 0..15.
        pub priority: Option<u8>,
        /// Emergency on (`true`) or off (`false`, v3 `EmergencyOff`).
        pub emergency: Option<bool>,
        /// Topology triples.
        pub topology_req: Option<Vec<TopologyRequest>>,
        /// v3 IEPS call indicator.
        pub iepscallind: Option<bool>,
        /// v3 context properties.
        pub context_prop: Option<Vec<PropertyParm>>,
        /// v3 context list (ContextAudit replies).
        pub context_list: Option<Vec<ContextId>>,
    }

    /// v2/v3 context attribute audit (`ContextAudit { … }`).
    #[derive(Default)]
    pub struct ContextAttrAuditRequest {
        /// Audit the topology.
        pub topology: bool,
        /// Audit the emergency indicator.
        pub emergency: bool,
        /// Audit the priority.
        pub priority: bool,
        /// v3: audit the IEPS indicator.
        pub iepscallind: bool,
        /// v3: context properties to audit.
        pub context_prop_aud: Option<Vec<IndAudPropertyParm>>,
        /// v3 selection: priority.
        pub select_priority: Option<u8>,
        /// v3 selection: emergency.
        pub select_emergency: Option<bool>,
        /// v3 selection: IEPS indicator.
        pub select_iepscallind: Option<bool>,
        /// v3 selection logic (default AND).
        pub select_logic: Option<SelectLogic>,
    }

    /// One command with its flags.
    pub struct CommandRequest {
        /// The command.
        pub command: Command,
        /// `O-` prefix: optional command.
        pub optional: bool,
        /// `W-` prefix: wildcarded response requested.
        pub wildcard_return: bool,
    }

    /// A command of an action request.
    #[non_exhaustive]
    pub enum Command {
        /// `Add`.
        Add(AmmRequest),
        /// `Move`.
        Move(AmmRequest),
        /// `Modify`.
        Modify(AmmRequest),
        /// `Subtract`.
        Subtract(SubtractRequest),
        /// `AuditCapability`.
        AuditCapability(AuditRequest),
        /// `AuditValue`.
        AuditValue(AuditRequest),
        /// `Notify`.
        Notify(NotifyRequest),
        /// `ServiceChange`.
        ServiceChange(Box<ServiceChangeRequest>),
    }

    /// A command's reply.
    #[non_exhaustive]
    pub enum CommandReply {
        /// `Add`.
        Add(AmmsReply),
        /// `Move`.
        Move(AmmsReply),
        /// `Modify`.
        Modify(AmmsReply),
        /// `Subtract`.
        Subtract(AmmsReply),
        /// `AuditCapability`.
        AuditCapability(AuditReply),
        /// `AuditValue`.
        AuditValue(AuditReply),
        /// `Notify`.
        Notify(NotifyReply),
        /// `ServiceChange`.
        ServiceChange(Box<ServiceChangeReply>),
    }

    /// A topology triple.
    pub struct TopologyRequest {
        /// From termination.
        pub termination_from: TerminationId,
        /// To termination.
        pub termination_to: TerminationId,
        /// Direction.
        pub topology_direction: TopologyDirection,
        /// v2: stream.
        pub stream_id: Option<u16>,
        /// v3: direction extension.
        pub topology_direction_extension: Option<TopologyDirectionExtension>,
    }

    /// Add, Move and Modify requests.
    #[derive(Default)]
    pub struct AmmRequest {
        /// Terminations.
        pub termination_ids: SmallList<TerminationId>,
        /// Descriptors.
        pub descriptors: Vec<AmmDescriptor>,
    }

    /// Add, Move, Modify and Subtract replies.
    #[derive(Default)]
    pub struct AmmsReply {
        /// Terminations.
        pub termination_ids: SmallList<TerminationId>,
        /// Audited values, if any.
        pub termination_audit: Option<Vec<AuditReturnParameter>>,
    }

    /// One descriptor of an Add, Move or Modify.
    #[non_exhaustive]
    pub enum AmmDescriptor {
        /// Media.
        Media(MediaDescriptor),
        /// Modem.
        Modem(ModemDescriptor),
        /// Mux.
        Mux(MuxDescriptor),
        /// Events.
        Events(EventsDescriptor),
        /// EventBuffer.
        EventBuffer(EventBufferDescriptor),
        /// Signals.
        Signals(SignalsDescriptor),
        /// DigitMap.
        DigitMap(DigitMapDescriptor),
        /// Audit.
        Audit(AuditDescriptor),
        /// v2 Statistics.
        Statistics(StatisticsDescriptor),
    }

    /// Subtract request.
    #[derive(Default)]
    pub struct SubtractRequest {
        /// Terminations.
        pub termination_ids: SmallList<TerminationId>,
        /// What to audit on the way out.
        pub audit_descriptor: Option<AuditDescriptor>,
    }

    /// Notify request.
    #[derive(Default)]
    pub struct NotifyRequest {
        /// Terminations.
        pub termination_ids: SmallList<TerminationId>,
        /// What was observed.
        pub observed_events_descriptor: ObservedEventsDescriptor,
        /// An error.
        pub error_descriptor: Option<ErrorDescriptor>,
    }

    /// Notify reply.
    #[derive(Default)]
    pub struct NotifyReply {
        /// Terminations.
        pub termination_ids: SmallList<TerminationId>,
        /// An error.
        pub error_descriptor: Option<ErrorDescriptor>,
    }

    /// v3 selection logic.
    #[derive(Copy)]
    pub enum SelectLogic {
        /// All conditions.
        And,
        /// Any condition.
        Or,
    }

    /// Topology direction.
    #[derive(Copy)]
    pub enum TopologyDirection {
        /// `Bothway`.
        Bothway,
        /// `Isolate`.
        Isolate,
        /// `Oneway`.
        Oneway,
    }

    /// v3 topology direction extension.
    #[derive(Copy)]
    pub enum TopologyDirectionExtension {
        /// `OnewayExternal`.
        OnewayExternal,
        /// `OnewayBoth`.
        OnewayBoth,
    }
}
impl ContextRequest {
    /// Whether nothing is set (empty lists count as unset). Text has no
    /// form for an empty context request (its items are elements of the action's list), so it writes
    /// nothing and the text decoder reads such an action with none.
    ///
    /// ```
    /// use megaco::model::ContextRequest;
    /// let mut cr = ContextRequest {
    ///     priority: None,
    ///     emergency: None,
    ///     topology_req: None,
    ///     iepscallind: None,
    ///     context_prop: Some(vec![]),
    ///     context_list: None,
    /// };
    /// assert!(cr.is_empty());
    /// cr.priority = Some(3);
    /// assert!(!cr.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.priority.is_none()
            && self.emergency.is_none()
            && self.topology_req.as_ref().map_or(true, Vec::is_empty)
            && self.iepscallind.is_none()
            && self.context_prop.as_ref().map_or(true, Vec::is_empty)
            && self.context_list.as_ref().map_or(true, Vec::is_empty)
    }
}

impl ContextAttrAuditRequest {
    /// Whether nothing is audited or selected; as with
    /// [`ContextRequest::is_empty`], text writes nothing for it.
    pub fn is_empty(&self) -> bool {
        self.is_empty_but_logic() && self.select_logic.is_none()
    }

    /// Whether nothing is set but (perhaps) the select logic.
    pub(crate) fn is_empty_but_logic(&self) -> bool {
        !self.topology
            && !self.emergency
            && !self.priority
            && !self.iepscallind
            && self.context_prop_aud.as_ref().map_or(true, Vec::is_empty)
            && self.select_priority.is_none()
            && self.select_emergency.is_none()
            && self.select_iepscallind.is_none()
    }
}
