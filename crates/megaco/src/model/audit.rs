//! Audits: what to audit (`Audit { … }`, the v2 individual audit items) and what comes back.

use compact_str::CompactString;
#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use super::*;

model! {
    /// AuditValue and AuditCapability requests.
    #[derive(Default)]
    pub struct AuditRequest {
        /// The termination.
        pub termination_id: TerminationId,
        /// What to audit.
        pub audit_descriptor: AuditDescriptor,
        /// v3: a list of terminations (the first also in `termination_id`).
        pub termination_id_list: Option<Vec<TerminationId>>,
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

    /// Result of an audit.
    #[derive(Default)]
    pub struct AuditResult {
        /// The termination.
        pub termination_id: TerminationId,
        /// The audited values.
        pub termination_audit_result: Vec<AuditReturnParameter>,
    }

    /// v3 result of an audit over a termination list.
    #[derive(Default)]
    pub struct TermListAuditResult {
        /// The terminations.
        pub termination_id_list: Vec<TerminationId>,
        /// The audited values.
        pub termination_audit_result: Vec<AuditReturnParameter>,
    }

    /// `Audit { … }`: tokens and (v2+) individual audit items.
    #[derive(Default)]
    pub struct AuditDescriptor {
        /// Descriptor tokens, in the order written.
        pub audit_token: Option<Vec<AuditToken>>,
        /// v2: individual property audit.
        pub audit_property_token: Option<Vec<IndAuditParameter>>,
    }

    /// One item of an audit reply.
    #[non_exhaustive]
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

    /// One individual audit item (v2).
    #[non_exhaustive]
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

    /// v2 media descriptor audit.
    #[derive(Default)]
    pub struct IndAudMediaDescriptor {
        /// Termination state audit.
        pub term_state_descr: Option<IndAudTerminationStateDescriptor>,
        /// Stream audit.
        pub streams: Option<IndAudStreams>,
    }

    /// One stream or several, in an audit.
    pub enum IndAudStreams {
        /// A single stream without an id.
        OneStream(IndAudStreamParms),
        /// Streams with ids.
        MultiStream(Vec<IndAudStreamDescriptor>),
    }

    /// A stream audit, with a stream id.
    #[derive(Default)]
    pub struct IndAudStreamDescriptor {
        /// The stream.
        pub stream_id: u16,
        /// What to audit.
        pub stream_parms: IndAudStreamParms,
    }

    /// What to audit in a stream.
    #[derive(Default)]
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
    #[derive(Default)]
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
    #[derive(Default)]
    pub struct IndAudPropertyParm {
        /// The property name.
        pub name: CompactString,
        /// v3: with a value to select on.
        pub property_parms: Option<PropertyParm>,
    }

    /// Local/Remote audit (binary encodings only).
    #[derive(Default)]
    pub struct IndAudLocalRemoteDescriptor {
        /// The property group.
        pub prop_group_id: Option<u16>,
        /// Properties.
        pub prop_grps: Vec<IndAudPropertyParm>,
    }

    /// TerminationState audit.
    #[derive(Default)]
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
    #[derive(Default)]
    pub struct IndAudEventsDescriptor {
        /// The request id.
        pub request_id: Option<u32>,
        /// The event.
        pub pkgd_name: CompactString,
        /// The stream.
        pub stream_id: Option<u16>,
    }

    /// EventBuffer audit.
    #[derive(Default)]
    pub struct IndAudEventBufferDescriptor {
        /// The event.
        pub event_name: CompactString,
        /// The stream.
        pub stream_id: Option<u16>,
    }

    /// A signal or a signal list, in an audit.
    pub enum IndAudSignalsDescriptor {
        /// A signal.
        Signal(IndAudSignal),
        /// A signal list.
        SeqSigList(IndAudSeqSigList),
    }

    /// Signal list audit.
    #[derive(Default)]
    pub struct IndAudSeqSigList {
        /// The list id.
        pub id: u16,
        /// A signal of it.
        pub signal_list: Option<IndAudSignal>,
    }

    /// Signal audit.
    #[derive(Default)]
    pub struct IndAudSignal {
        /// The signal.
        pub signal_name: CompactString,
        /// The stream.
        pub stream_id: Option<u16>,
        /// v3: the signal request id.
        pub signal_request_id: Option<u32>,
    }

    /// DigitMap audit.
    #[derive(Default)]
    pub struct IndAudDigitMapDescriptor {
        /// The digit map.
        pub digit_map_name: Option<CompactString>,
    }

    /// Statistic audit.
    #[derive(Default)]
    pub struct IndAudStatisticsDescriptor {
        /// The statistic.
        pub stat_name: CompactString,
    }

    /// Package audit.
    #[derive(Default)]
    pub struct IndAudPackagesDescriptor {
        /// The package.
        pub package_name: CompactString,
        /// Its version.
        pub package_version: u8,
    }

    /// One package with its version.
    #[derive(Default)]
    pub struct PackagesItem {
        /// The package.
        pub package_name: CompactString,
        /// Its version.
        pub package_version: u8,
    }
}

/// `Packages { … }`.
pub type PackagesDescriptor = Vec<PackagesItem>;

impl AuditDescriptor {
    /// An audit descriptor with neither tokens nor items (`Audit { }`).
    pub fn empty() -> Self {
        AuditDescriptor::default()
    }
}
