//! The Megaco/H.248 message model: one set of types for v1, v2 and v3.
//!
//! The shape follows the H.248.1 v3 ASN.1 module (Annex A), which is a
//! superset of v1 and v2; the protocol version travels in
//! [`Message::version`]. Values are kept in their *text* form, the form of
//! the text encoding (RFC 3525 Annex B) and of Erlang/OTP's megaco records:
//! package names are `"al/of"`, termination ids `"11111111/00000000/00000000"`,
//! property values are lists of strings. The binary codecs map these to the
//! ASN.1 form (packed termination ids, 2+2-octet package/item codes).
//!
//! Fields that are `OPTIONAL` in ASN.1 are `Option`; an optional `NULL` is a
//! `bool`. Optional `SEQUENCE OF` fields are `Option<Vec<_>>` so that absent
//! and empty stay distinct, as they are on the wire.
//!
//! ```
//! use megaco::model::*;
//!
//! let msg = MegacoMessage {
//!     auth_header: None,
//!     mess: Message {
//!         version: 1,
//!         mid: Mid::Ip4(Ip4Address { address: [10, 0, 0, 1], port: Some(2944) }),
//!         body: MessageBody::Transactions(vec![Transaction::Pending(TransactionPending {
//!             transaction_id: 17,
//!         })]),
//!     },
//! };
//! assert_eq!(msg.mess.version, 1);
//! ```

// Variants hold their payloads by value: a message is one tree built once,
// and boxing would only add indirections to every codec.
#![allow(clippy::large_enum_variant)]

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

/// Derives shared by every model type.
macro_rules! model {
    ($($item:item)*) => {
        $(
            #[derive(Debug, Clone, PartialEq, Eq, Hash)]
            #[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
            #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
            $item
        )*
    };
}

model! {
    /// A complete Megaco message, optionally authenticated.
    pub struct MegacoMessage {
        /// The authentication header (`AUTH = …` in text).
        pub auth_header: Option<AuthenticationHeader>,
        /// The message proper.
        pub mess: Message,
    }

    /// `AuthenticationHeader` (H.248.1 clause 10).
    pub struct AuthenticationHeader {
        /// Security parameter index (4 octets).
        pub sec_parm_index: u32,
        /// Sequence number (4 octets).
        pub seq_num: u32,
        /// Authentication data (12 to 32 octets).
        pub ad: Vec<u8>,
    }

    /// Version, sender and body.
    pub struct Message {
        /// Protocol version, 1 to 3 for the versions this crate speaks.
        pub version: u8,
        /// The sender's message identifier.
        pub mid: Mid,
        /// Transactions or a message-level error.
        pub body: MessageBody,
    }

    /// The body of a [`Message`].
    pub enum MessageBody {
        /// A message-level error (`ERROR = …`).
        Error(ErrorDescriptor),
        /// One or more transactions.
        Transactions(Vec<Transaction>),
    }

    /// Message identifier / address (`MId`).
    pub enum Mid {
        /// `[a.b.c.d]:port`.
        Ip4(Ip4Address),
        /// `[ipv6]:port`.
        Ip6(Ip6Address),
        /// `<domain.name>:port`.
        Domain(DomainName),
        /// A device name (`PathName`).
        Device(String),
        /// `MTP{hex}`: the hex digits as written (4 to 8 of them).
        Mtp(String),
    }

    /// An IPv4 address with an optional port.
    pub struct Ip4Address {
        /// The four octets.
        pub address: [u8; 4],
        /// The port, if given.
        pub port: Option<u16>,
    }

    /// An IPv6 address with an optional port.
    pub struct Ip6Address {
        /// The sixteen octets.
        pub address: [u8; 16],
        /// The port, if given.
        pub port: Option<u16>,
    }

    /// A domain name with an optional port.
    pub struct DomainName {
        /// The name, without the angle brackets.
        pub name: String,
        /// The port, if given.
        pub port: Option<u16>,
    }

    /// One transaction of a message.
    pub enum Transaction {
        /// `Transaction = id { … }`.
        Request(TransactionRequest),
        /// `Pending = id { }`.
        Pending(TransactionPending),
        /// `Reply = id { … }`.
        Reply(TransactionReply),
        /// `TransactionResponseAck { … }`: acknowledged id ranges.
        ResponseAck(Vec<TransactionAck>),
        /// v3 `MessageSegment = id/seg`.
        SegmentReply(SegmentReply),
    }

    /// A transaction request.
    pub struct TransactionRequest {
        /// The transaction id.
        pub transaction_id: u32,
        /// The actions, one per context.
        pub actions: Vec<ActionRequest>,
    }

    /// A transaction pending.
    pub struct TransactionPending {
        /// The transaction id.
        pub transaction_id: u32,
    }

    /// A transaction reply.
    pub struct TransactionReply {
        /// The transaction id.
        pub transaction_id: u32,
        /// `ImmAckRequired`.
        pub imm_ack_required: bool,
        /// Error or action replies.
        pub result: TransactionResult,
        /// v3: the segment number (`Reply = id/seg`).
        pub segment_number: Option<u16>,
        /// v3: the last segment (`Reply = id/seg/END`).
        pub segmentation_complete: bool,
    }

    /// The result carried by a [`TransactionReply`].
    pub enum TransactionResult {
        /// The whole transaction failed.
        Error(ErrorDescriptor),
        /// One reply per action.
        ActionReplies(Vec<ActionReply>),
    }

    /// v3 segment reply.
    pub struct SegmentReply {
        /// The transaction id.
        pub transaction_id: u32,
        /// The segment acknowledged.
        pub segment_number: u16,
        /// Set on the last segment.
        pub segmentation_complete: bool,
    }

    /// A range of acknowledged transaction ids.
    pub struct TransactionAck {
        /// First id of the range.
        pub first_ack: u32,
        /// Last id of the range, if it is a range.
        pub last_ack: Option<u32>,
    }

    /// `Error = code { "text" }`.
    pub struct ErrorDescriptor {
        /// The error code (0..65535).
        pub error_code: u16,
        /// The error text, without quotes.
        pub error_text: Option<String>,
    }

    /// The actions for one context in a request.
    pub struct ActionRequest {
        /// The context.
        pub context_id: ContextId,
        /// Context properties to set.
        pub context_request: Option<ContextRequest>,
        /// Context properties to audit.
        pub context_attr_audit_req: Option<ContextAttrAuditRequest>,
        /// The commands.
        pub command_requests: Vec<CommandRequest>,
    }

    /// The replies for one context.
    pub struct ActionReply {
        /// The context.
        pub context_id: ContextId,
        /// An error for the context as a whole.
        pub error_descriptor: Option<ErrorDescriptor>,
        /// Context properties in the reply.
        pub context_reply: Option<ContextRequest>,
        /// The command replies.
        pub command_reply: Vec<CommandReply>,
    }

    /// Context properties (`ContextRequest`).
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
    pub struct AmmRequest {
        /// Terminations.
        pub termination_ids: Vec<TerminationId>,
        /// Descriptors.
        pub descriptors: Vec<AmmDescriptor>,
    }

    /// Add, Move, Modify and Subtract replies.
    pub struct AmmsReply {
        /// Terminations.
        pub termination_ids: Vec<TerminationId>,
        /// Audited values, if any.
        pub termination_audit: Option<Vec<AuditReturnParameter>>,
    }

    /// Subtract request.
    pub struct SubtractRequest {
        /// Terminations.
        pub termination_ids: Vec<TerminationId>,
        /// What to audit on the way out.
        pub audit_descriptor: Option<AuditDescriptor>,
    }

    /// AuditValue and AuditCapability requests.
    pub struct AuditRequest {
        /// The termination.
        pub termination_id: TerminationId,
        /// What to audit.
        pub audit_descriptor: AuditDescriptor,
        /// v3: a list of terminations (the first also in `termination_id`).
        pub termination_id_list: Option<Vec<TerminationId>>,
    }

    /// Result of an audit.
    pub struct AuditResult {
        /// The termination.
        pub termination_id: TerminationId,
        /// The audited values.
        pub termination_audit_result: Vec<AuditReturnParameter>,
    }

    /// v3 result of an audit over a termination list.
    pub struct TermListAuditResult {
        /// The terminations.
        pub termination_id_list: Vec<TerminationId>,
        /// The audited values.
        pub termination_audit_result: Vec<AuditReturnParameter>,
    }

    /// `Audit { … }`: tokens and (v2+) individual audit items.
    pub struct AuditDescriptor {
        /// Descriptor tokens, in the order written.
        pub audit_token: Option<Vec<AuditToken>>,
        /// v2: individual property audit.
        pub audit_property_token: Option<Vec<IndAuditParameter>>,
    }

    /// v2 media descriptor audit.
    pub struct IndAudMediaDescriptor {
        /// Termination state audit.
        pub term_state_descr: Option<IndAudTerminationStateDescriptor>,
        /// Stream audit.
        pub streams: Option<IndAudStreams>,
    }

    /// A stream audit, with a stream id.
    pub struct IndAudStreamDescriptor {
        /// The stream.
        pub stream_id: u16,
        /// What to audit.
        pub stream_parms: IndAudStreamParms,
    }

    /// What to audit in a stream.
    pub struct IndAudStreamParms {
        /// LocalControl audit.
        pub local_control_descriptor: Option<IndAudLocalControlDescriptor>,
        /// Local audit (binary encodings only).
        pub local_descriptor: Option<IndAudLocalRemoteDescriptor>,
        /// Remote audit (binary encodings only).
        pub remote_descriptor: Option<IndAudLocalRemoteDescriptor>,
        /// v3 statistics audit.
        pub statistics_descriptor: Option<IndAudStatisticsDescriptor>,
    }

    /// LocalControl audit.
    pub struct IndAudLocalControlDescriptor {
        /// Audit the mode.
        pub stream_mode: bool,
        /// Audit ReserveValue.
        pub reserve_value: bool,
        /// Audit ReserveGroup.
        pub reserve_group: bool,
        /// Properties to audit.
        pub property_parms: Option<Vec<IndAudPropertyParm>>,
        /// v3: select by mode.
        pub stream_mode_sel: Option<StreamMode>,
    }

    /// One property to audit.
    pub struct IndAudPropertyParm {
        /// The property name.
        pub name: String,
        /// v3: with a value to select on.
        pub property_parms: Option<PropertyParm>,
    }

    /// Local/Remote audit (binary encodings only).
    pub struct IndAudLocalRemoteDescriptor {
        /// The property group.
        pub prop_group_id: Option<u16>,
        /// Properties.
        pub prop_grps: Vec<IndAudPropertyParm>,
    }

    /// TerminationState audit.
    pub struct IndAudTerminationStateDescriptor {
        /// Properties to audit.
        pub property_parms: Vec<IndAudPropertyParm>,
        /// Audit EventBufferControl.
        pub event_buffer_control: bool,
        /// Audit ServiceStates.
        pub service_state: bool,
        /// v3: select by service state.
        pub service_state_sel: Option<ServiceState>,
    }

    /// Events audit.
    pub struct IndAudEventsDescriptor {
        /// The request id.
        pub request_id: Option<u32>,
        /// The event.
        pub pkgd_name: String,
        /// The stream.
        pub stream_id: Option<u16>,
    }

    /// EventBuffer audit.
    pub struct IndAudEventBufferDescriptor {
        /// The event.
        pub event_name: String,
        /// The stream.
        pub stream_id: Option<u16>,
    }

    /// Signal list audit.
    pub struct IndAudSeqSigList {
        /// The list id.
        pub id: u16,
        /// A signal of it.
        pub signal_list: Option<IndAudSignal>,
    }

    /// Signal audit.
    pub struct IndAudSignal {
        /// The signal.
        pub signal_name: String,
        /// The stream.
        pub stream_id: Option<u16>,
        /// v3: the signal request id.
        pub signal_request_id: Option<u32>,
    }

    /// DigitMap audit.
    pub struct IndAudDigitMapDescriptor {
        /// The digit map.
        pub digit_map_name: Option<String>,
    }

    /// Statistic audit.
    pub struct IndAudStatisticsDescriptor {
        /// The statistic.
        pub stat_name: String,
    }

    /// Package audit.
    pub struct IndAudPackagesDescriptor {
        /// The package.
        pub package_name: String,
        /// Its version.
        pub package_version: u8,
    }

    /// Notify request.
    pub struct NotifyRequest {
        /// Terminations.
        pub termination_ids: Vec<TerminationId>,
        /// What was observed.
        pub observed_events_descriptor: ObservedEventsDescriptor,
        /// An error.
        pub error_descriptor: Option<ErrorDescriptor>,
    }

    /// Notify reply.
    pub struct NotifyReply {
        /// Terminations.
        pub termination_ids: Vec<TerminationId>,
        /// An error.
        pub error_descriptor: Option<ErrorDescriptor>,
    }

    /// `ObservedEvents = id { … }`.
    pub struct ObservedEventsDescriptor {
        /// The request id of the Events descriptor that asked.
        pub request_id: u32,
        /// The events seen.
        pub observed_event_lst: Vec<ObservedEvent>,
    }

    /// One observed event.
    pub struct ObservedEvent {
        /// The event.
        pub event_name: String,
        /// The stream.
        pub stream_id: Option<u16>,
        /// Its parameters.
        pub event_par_list: Vec<EventParameter>,
        /// When it was seen.
        pub time_notation: Option<TimeNotation>,
    }

    /// A named value with its relation: property, event and signal
    /// parameters share this shape.
    pub struct PropertyParm {
        /// The name (`pkg/item` for properties, `item` for parameters).
        pub name: String,
        /// One value, or several for ranges and lists.
        pub value: Vec<String>,
        /// How the values relate (absent for `=` with one value).
        pub extra_info: Option<ExtraInfo>,
    }

    /// Service change request.
    pub struct ServiceChangeRequest {
        /// Terminations.
        pub termination_ids: Vec<TerminationId>,
        /// The parameters.
        pub service_change_parms: ServiceChangeParm,
    }

    /// Service change reply.
    pub struct ServiceChangeReply {
        /// Terminations.
        pub termination_ids: Vec<TerminationId>,
        /// Error or parameters.
        pub service_change_result: ServiceChangeResult,
    }

    /// A termination id in text form: `ROOT`, `*`, `$`,
    /// `11111111/00000000/00000000`, `line/$` and so on.
    pub struct TerminationId {
        /// The id as written.
        pub id: String,
    }

    /// `Media { … }`.
    pub struct MediaDescriptor {
        /// TerminationState.
        pub term_state_descr: Option<TerminationStateDescriptor>,
        /// Streams.
        pub streams: Option<Streams>,
    }

    /// A stream with its id.
    pub struct StreamDescriptor {
        /// The stream.
        pub stream_id: u16,
        /// Its parameters.
        pub stream_parms: StreamParms,
    }

    /// What a stream holds.
    pub struct StreamParms {
        /// LocalControl.
        pub local_control_descriptor: Option<LocalControlDescriptor>,
        /// Local (SDP).
        pub local_descriptor: Option<LocalRemoteDescriptor>,
        /// Remote (SDP).
        pub remote_descriptor: Option<LocalRemoteDescriptor>,
        /// v3 statistics of the stream.
        pub statistics_descriptor: Option<Vec<StatisticsParameter>>,
    }

    /// `LocalControl { … }`.
    pub struct LocalControlDescriptor {
        /// Mode.
        pub stream_mode: Option<StreamMode>,
        /// ReserveValue.
        pub reserve_value: Option<bool>,
        /// ReserveGroup.
        pub reserve_group: Option<bool>,
        /// Other properties.
        pub property_parms: Vec<PropertyParm>,
    }

    /// `Local { … }` / `Remote { … }`: SDP as property groups, a new group
    /// at each `v=` line.
    pub struct LocalRemoteDescriptor {
        /// The groups.
        pub prop_grps: Vec<Vec<PropertyParm>>,
    }

    /// `TerminationState { … }`.
    pub struct TerminationStateDescriptor {
        /// Properties.
        pub property_parms: Vec<PropertyParm>,
        /// Buffer.
        pub event_buffer_control: Option<EventBufferControl>,
        /// ServiceStates.
        pub service_state: Option<ServiceState>,
    }

    /// `Mux = type { … }`.
    pub struct MuxDescriptor {
        /// Multiplex type.
        pub mux_type: MuxType,
        /// Terminations.
        pub term_list: Vec<TerminationId>,
        /// Non-standard data (binary only).
        pub non_standard_data: Option<NonStandardData>,
    }

    /// `Events = id { … }`.
    pub struct EventsDescriptor {
        /// Request id (mandatory in text).
        pub request_id: Option<u32>,
        /// Events.
        pub event_list: Vec<RequestedEvent>,
    }

    /// One requested event.
    pub struct RequestedEvent {
        /// The event.
        pub pkgd_name: String,
        /// The stream.
        pub stream_id: Option<u16>,
        /// What to do when it happens.
        pub event_action: Option<RequestedActions>,
        /// Its parameters.
        pub ev_par_list: Vec<EventParameter>,
    }

    /// v3 regulated notification.
    pub struct RegulatedEmbeddedDescriptor {
        /// Embedded events.
        pub second_event: Option<SecondEventsDescriptor>,
        /// Embedded signals.
        pub signals_descriptor: Option<SignalsDescriptor>,
    }

    /// Actions of a requested event.
    pub struct RequestedActions {
        /// KeepActive.
        pub keep_active: Option<bool>,
        /// Digit map.
        pub event_dm: Option<EventDm>,
        /// Embedded events.
        pub second_event: Option<SecondEventsDescriptor>,
        /// Embedded signals.
        pub signals_descriptor: Option<SignalsDescriptor>,
        /// v3 notification behaviour.
        pub notify_behaviour: Option<NotifyBehaviour>,
        /// v3 ResetEventsDescriptor.
        pub reset_events_descriptor: bool,
    }

    /// Embedded events.
    pub struct SecondEventsDescriptor {
        /// Request id.
        pub request_id: Option<u32>,
        /// Events.
        pub event_list: Vec<SecondRequestedEvent>,
    }

    /// One embedded event.
    pub struct SecondRequestedEvent {
        /// The event.
        pub pkgd_name: String,
        /// The stream.
        pub stream_id: Option<u16>,
        /// What to do.
        pub event_action: Option<SecondRequestedActions>,
        /// Its parameters.
        pub ev_par_list: Vec<EventParameter>,
    }

    /// Actions of an embedded event.
    pub struct SecondRequestedActions {
        /// KeepActive.
        pub keep_active: Option<bool>,
        /// Digit map.
        pub event_dm: Option<EventDm>,
        /// Embedded signals.
        pub signals_descriptor: Option<SignalsDescriptor>,
        /// v3 notification behaviour.
        pub notify_behaviour: Option<NotifyBehaviour>,
        /// v3 ResetEventsDescriptor.
        pub reset_events_descriptor: bool,
    }

    /// An event in an EventBuffer descriptor.
    pub struct EventSpec {
        /// The event.
        pub event_name: String,
        /// The stream.
        pub stream_id: Option<u16>,
        /// Its parameters.
        pub event_par_list: Vec<EventParameter>,
    }

    /// `SignalList = id { … }`.
    pub struct SeqSigList {
        /// The list id.
        pub id: u16,
        /// The signals in order.
        pub signal_list: Vec<Signal>,
    }

    /// One signal.
    pub struct Signal {
        /// The signal.
        pub signal_name: String,
        /// The stream.
        pub stream_id: Option<u16>,
        /// Brief, on/off or timeout.
        pub sig_type: Option<SignalType>,
        /// Duration in ms.
        pub duration: Option<u16>,
        /// When to report completion.
        pub notify_completion: Option<Vec<NotifyCompletion>>,
        /// KeepActive.
        pub keep_active: Option<bool>,
        /// Parameters.
        pub sig_par_list: Vec<SigParameter>,
        /// v3 direction.
        pub direction: Option<SignalDirection>,
        /// v3 request id.
        pub request_id: Option<u32>,
        /// v3 inter-signal delay.
        pub intersig_delay: Option<u16>,
    }

    /// `Modem = … { … }`.
    pub struct ModemDescriptor {
        /// Modem types.
        pub mtl: Vec<ModemType>,
        /// Properties.
        pub mpl: Vec<PropertyParm>,
        /// Non-standard data (binary only).
        pub non_standard_data: Option<NonStandardData>,
    }

    /// `DigitMap = name { … }`.
    pub struct DigitMapDescriptor {
        /// The map's name.
        pub digit_map_name: Option<String>,
        /// The map's body.
        pub digit_map_value: Option<DigitMapValue>,
    }

    /// A digit map body with its timers.
    pub struct DigitMapValue {
        /// `T:` start timer.
        pub start_timer: Option<u8>,
        /// `S:` short timer.
        pub short_timer: Option<u8>,
        /// `L:` long timer.
        pub long_timer: Option<u8>,
        /// The body, as written (without the timers).
        pub digit_map_body: String,
        /// v2 `Z:` duration timer.
        pub duration_timer: Option<u8>,
    }

    /// `Services { … }` of a ServiceChange request.
    pub struct ServiceChangeParm {
        /// Method.
        pub service_change_method: ServiceChangeMethod,
        /// Address.
        pub service_change_address: Option<ServiceChangeAddress>,
        /// Version.
        pub service_change_version: Option<u8>,
        /// Profile.
        pub service_change_profile: Option<ServiceChangeProfile>,
        /// Reason (one value; text `"901 mg col boot"` without quotes).
        pub service_change_reason: Vec<String>,
        /// Delay.
        pub service_change_delay: Option<u32>,
        /// MgcIdToTry.
        pub service_change_mgc_id: Option<Mid>,
        /// Time stamp.
        pub time_stamp: Option<TimeNotation>,
        /// Non-standard data.
        pub non_standard_data: Option<NonStandardData>,
        /// v2 `AuditDescriptor` in the parms.
        pub service_change_info: Option<AuditDescriptor>,
        /// v3 `ServiceChangeInc`.
        pub service_change_incomplete_flag: bool,
    }

    /// `Services { … }` of a ServiceChange reply.
    pub struct ServiceChangeResParm {
        /// MgcIdToTry.
        pub service_change_mgc_id: Option<Mid>,
        /// Address.
        pub service_change_address: Option<ServiceChangeAddress>,
        /// Version.
        pub service_change_version: Option<u8>,
        /// Profile.
        pub service_change_profile: Option<ServiceChangeProfile>,
        /// Time stamp.
        pub time_stamp: Option<TimeNotation>,
    }

    /// `Profile = name/version`.
    pub struct ServiceChangeProfile {
        /// The profile name.
        pub profile_name: String,
        /// The profile version.
        pub version: u8,
    }

    /// One package with its version.
    pub struct PackagesItem {
        /// The package.
        pub package_name: String,
        /// Its version.
        pub package_version: u8,
    }

    /// One statistic.
    pub struct StatisticsParameter {
        /// The statistic.
        pub stat_name: String,
        /// Its value (absent in requests).
        pub stat_value: Option<Vec<String>>,
    }

    /// Vendor data.
    pub struct NonStandardData {
        /// Whose.
        pub non_standard_identifier: NonStandardIdentifier,
        /// The data.
        pub data: Vec<u8>,
    }

    /// H.221 vendor identifier.
    pub struct H221NonStandard {
        /// T.35 country code 1.
        pub t35_country_code1: u8,
        /// T.35 country code 2.
        pub t35_country_code2: u8,
        /// T.35 extension.
        pub t35_extension: u8,
        /// Manufacturer code.
        pub manufacturer_code: u16,
    }

    /// `yyyymmddThhmmssss`.
    pub struct TimeNotation {
        /// `yyyymmdd`.
        pub date: String,
        /// `hhmmssss`.
        pub time: String,
    }
}

model! {
    /// Context id: a number, or one of the special values.
    #[derive(Copy, PartialOrd, Ord)]
    pub struct ContextId(pub u32);

    /// A command of an action request.
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
        ServiceChange(ServiceChangeRequest),
    }

    /// A command's reply.
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
        ServiceChange(ServiceChangeReply),
    }

    /// The reply to an audit.
    pub enum AuditReply {
        /// Terminations of a context (`AuditValue = * …` on a context).
        ContextAuditResult(Vec<TerminationId>),
        /// An error.
        Error(ErrorDescriptor),
        /// The audited values.
        AuditResult(AuditResult),
        /// v3: values for a termination list.
        AuditResultTermList(TermListAuditResult),
    }

    /// One descriptor of an Add, Move or Modify.
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

    /// One item of an audit reply.
    pub enum AuditReturnParameter {
        /// Error.
        Error(ErrorDescriptor),
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
        /// ObservedEvents.
        ObservedEvents(ObservedEventsDescriptor),
        /// Statistics.
        Statistics(StatisticsDescriptor),
        /// Packages.
        Packages(PackagesDescriptor),
        /// Descriptors named without content (`Media, DigitMap`).
        EmptyDescriptors(AuditDescriptor),
    }

    /// One individual audit item (v2).
    pub enum IndAuditParameter {
        /// Media.
        Media(IndAudMediaDescriptor),
        /// Events.
        Events(IndAudEventsDescriptor),
        /// EventBuffer.
        EventBuffer(IndAudEventBufferDescriptor),
        /// Signals.
        Signals(IndAudSignalsDescriptor),
        /// DigitMap.
        DigitMap(IndAudDigitMapDescriptor),
        /// Statistics.
        Statistics(IndAudStatisticsDescriptor),
        /// Packages.
        Packages(IndAudPackagesDescriptor),
    }

    /// One stream or several, in an audit.
    pub enum IndAudStreams {
        /// A single stream without an id.
        OneStream(IndAudStreamParms),
        /// Streams with ids.
        MultiStream(Vec<IndAudStreamDescriptor>),
    }

    /// A signal or a signal list, in an audit.
    pub enum IndAudSignalsDescriptor {
        /// A signal.
        Signal(IndAudSignal),
        /// A signal list.
        SeqSigList(IndAudSeqSigList),
    }

    /// One stream or several.
    pub enum Streams {
        /// A single stream without an id.
        OneStream(StreamParms),
        /// Streams with ids.
        MultiStream(Vec<StreamDescriptor>),
    }

    /// A signal or a signal list.
    pub enum SignalRequest {
        /// A signal.
        Signal(Signal),
        /// A signal list.
        SeqSigList(SeqSigList),
    }

    /// A digit map by name or by value.
    pub enum EventDm {
        /// By name.
        DigitMapName(String),
        /// By value.
        DigitMapValue(DigitMapValue),
    }

    /// v3 notification behaviour.
    pub enum NotifyBehaviour {
        /// `NotifyImmediate`.
        NotifyImmediate,
        /// `NotifyRegulated`.
        NotifyRegulated(RegulatedEmbeddedDescriptor),
        /// `NeverNotify`.
        NeverNotify,
    }

    /// The outcome of a ServiceChange.
    pub enum ServiceChangeResult {
        /// Refused.
        ErrorDescriptor(ErrorDescriptor),
        /// Accepted, with parameters.
        ServiceChangeResParms(ServiceChangeResParm),
    }

    /// Where to send to after a ServiceChange.
    pub enum ServiceChangeAddress {
        /// A port.
        PortNumber(u16),
        /// IPv4.
        Ip4(Ip4Address),
        /// IPv6.
        Ip6(Ip6Address),
        /// A domain name.
        Domain(DomainName),
        /// A device name.
        Device(String),
        /// MTP hex digits.
        Mtp(String),
    }

    /// Who defined non-standard data.
    pub enum NonStandardIdentifier {
        /// An object identifier, as its arcs.
        Object(Vec<u32>),
        /// An H.221 identifier.
        H221NonStandard(H221NonStandard),
        /// Eight experimental characters.
        Experimental(String),
    }

    /// How the values of a [`PropertyParm`] relate.
    pub enum ExtraInfo {
        /// `>`, `<`, `#`.
        Relation(Relation),
        /// `[a:b]` (true).
        Range(bool),
        /// `[a,b]`: all of (true); `{a,b}`: one of (false).
        Sublist(bool),
    }
}

model! {
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

    /// Descriptor tokens of an audit, in ASN.1 bit order.
    #[derive(Copy, PartialOrd, Ord)]
    pub enum AuditToken {
        /// Mux.
        Mux,
        /// Modem.
        Modem,
        /// Media.
        Media,
        /// Events.
        Events,
        /// Signals.
        Signals,
        /// DigitMap.
        DigitMap,
        /// Statistics.
        Stats,
        /// ObservedEvents.
        ObservedEvents,
        /// Packages.
        Packages,
        /// EventBuffer.
        EventBuffer,
    }

    /// Stream mode.
    #[derive(Copy)]
    pub enum StreamMode {
        /// `SendOnly`.
        SendOnly,
        /// `ReceiveOnly`.
        RecvOnly,
        /// `SendReceive`.
        SendRecv,
        /// `Inactive`.
        Inactive,
        /// `LoopBack`.
        LoopBack,
    }

    /// `>`, `<`, `#`.
    #[derive(Copy)]
    pub enum Relation {
        /// `>`.
        GreaterThan,
        /// `<`.
        SmallerThan,
        /// `#`.
        UnequalTo,
    }

    /// `Buffer = Off | LockStep`.
    #[derive(Copy)]
    pub enum EventBufferControl {
        /// `Off`.
        Off,
        /// `LockStep`.
        LockStep,
    }

    /// `ServiceStates = …`.
    #[derive(Copy)]
    pub enum ServiceState {
        /// `Test`.
        Test,
        /// `OutOfService`.
        OutOfSvc,
        /// `InService`.
        InSvc,
    }

    /// Multiplex type.
    #[derive(Copy)]
    pub enum MuxType {
        /// H.221.
        H221,
        /// H.223.
        H223,
        /// H.226.
        H226,
        /// V.76.
        V76,
        /// v2 N×64k.
        Nx64k,
    }

    /// Signal type.
    #[derive(Copy)]
    pub enum SignalType {
        /// `Brief`.
        Brief,
        /// `OnOff`.
        OnOff,
        /// `TimeOut`.
        TimeOut,
    }

    /// v3 signal direction.
    #[derive(Copy)]
    pub enum SignalDirection {
        /// `Internal`.
        Internal,
        /// `External`.
        External,
        /// `Both`.
        Both,
    }

    /// `NotifyCompletion` reasons, in ASN.1 bit order.
    #[derive(Copy, PartialOrd, Ord)]
    pub enum NotifyCompletion {
        /// `TimeOut`.
        OnTimeOut,
        /// `InterruptByEvent`.
        OnInterruptByEvent,
        /// `InterruptByNewSignalsDescr`.
        OnInterruptByNewSignalDescr,
        /// `OtherReason`.
        OtherReason,
        /// v3 `Iteration`.
        OnIteration,
    }

    /// Modem type.
    #[derive(Copy)]
    pub enum ModemType {
        /// V.18.
        V18,
        /// V.22.
        V22,
        /// V.22bis.
        V22bis,
        /// V.32.
        V32,
        /// V.32bis.
        V32bis,
        /// V.34.
        V34,
        /// V.90.
        V90,
        /// V.91.
        V91,
        /// Synchronous ISDN.
        SynchIsdn,
    }

    /// ServiceChange method.
    #[derive(Copy)]
    pub enum ServiceChangeMethod {
        /// `Failover`.
        Failover,
        /// `Forced`.
        Forced,
        /// `Graceful`.
        Graceful,
        /// `Restart`.
        Restart,
        /// `Disconnected`.
        Disconnected,
        /// `HandOff`.
        HandOff,
    }
}

/// `EventBuffer { … }`.
pub type EventBufferDescriptor = Vec<EventSpec>;
/// `Signals { … }`.
pub type SignalsDescriptor = Vec<SignalRequest>;
/// `Statistics { … }`.
pub type StatisticsDescriptor = Vec<StatisticsParameter>;
/// `Packages { … }`.
pub type PackagesDescriptor = Vec<PackagesItem>;
/// An event parameter: same shape as a property.
pub type EventParameter = PropertyParm;
/// A signal parameter: same shape as a property.
pub type SigParameter = PropertyParm;

impl ContextId {
    /// The null context, `-`.
    pub const NULL: ContextId = ContextId(0);
    /// Choose a context, `$`.
    pub const CHOOSE: ContextId = ContextId(0xFFFF_FFFE);
    /// All contexts, `*`.
    pub const ALL: ContextId = ContextId(0xFFFF_FFFF);
}

impl TerminationId {
    /// A termination id from its text form.
    ///
    /// ```
    /// let t = megaco::model::TerminationId::new("11111111/00000000/$");
    /// assert!(t.has_wildcard());
    /// assert_eq!(t.levels().count(), 3);
    /// ```
    pub fn new(id: impl Into<String>) -> Self {
        TerminationId { id: id.into() }
    }

    /// The root termination, `ROOT`.
    pub fn root() -> Self {
        TerminationId::new("ROOT")
    }

    /// Whether this is the root termination (any case).
    pub fn is_root(&self) -> bool {
        self.id.eq_ignore_ascii_case("root")
    }

    /// Whether the id holds a `*` or `$` wildcard.
    pub fn has_wildcard(&self) -> bool {
        self.id.bytes().any(|b| b == b'*' || b == b'$')
    }

    /// The `/`-separated levels of the id.
    pub fn levels(&self) -> impl Iterator<Item = &str> {
        self.id.split('/')
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

impl AuditDescriptor {
    /// An audit descriptor with neither tokens nor items (`Audit { }`).
    pub fn empty() -> Self {
        AuditDescriptor {
            audit_token: None,
            audit_property_token: None,
        }
    }
}

impl PropertyParm {
    /// A property with a single value and no relation (`name=value`).
    ///
    /// ```
    /// let p = megaco::model::PropertyParm::new("tdmc/gain", "2");
    /// assert_eq!(p.value, vec!["2".to_string()]);
    /// ```
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        PropertyParm {
            name: name.into(),
            value: vec![value.into()],
            extra_info: None,
        }
    }
}
