//! Events: requested (`Events`), embedded, observed, buffered.

use compact_str::CompactString;
#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use super::*;

model! {
    /// `Events = id { … }`, and the embedded events of an event's actions
    /// or of a regulated notification (ASN.1 `SecondEventsDescriptor`,
    /// the same shape).
    #[derive(Default)]
    pub struct EventsDescriptor {
        /// Request id (mandatory in text).
        pub request_id: Option<u32>,
        /// Events.
        pub event_list: Vec<RequestedEvent>,
    }

    /// One requested event; also an embedded one (ASN.1
    /// `SecondRequestedEvent`).
    #[derive(Default)]
    pub struct RequestedEvent {
        /// The event.
        pub pkgd_name: CompactString,
        /// The stream.
        pub stream_id: Option<u16>,
        /// What to do when it happens.
        pub event_action: Option<RequestedActions>,
        /// Its parameters.
        pub ev_par_list: SmallList<EventParameter>,
    }

    /// Actions of a requested event, and of an embedded one (ASN.1
    /// `SecondRequestedActions`, which is this without `second_event`:
    /// the encoders refuse an embedded event that embeds events again, as
    /// the ASN.1 and the text grammar have no form for it).
    #[derive(Default)]
    pub struct RequestedActions {
        /// KeepActive.
        pub keep_active: Option<bool>,
        /// Digit map.
        pub event_dm: Option<EventDm>,
        /// Embedded events (in a first-level event only).
        pub second_event: Option<EventsDescriptor>,
        /// Embedded signals.
        pub signals_descriptor: Option<SignalsDescriptor>,
        /// v3 notification behaviour.
        pub notify_behaviour: Option<NotifyBehaviour>,
        /// v3 ResetEventsDescriptor.
        pub reset_events_descriptor: bool,
    }

    /// A digit map by name or by value.
    pub enum EventDm {
        /// By name.
        DigitMapName(CompactString),
        /// By value.
        DigitMapValue(DigitMapValue),
    }

    /// v3 notification behaviour.
    pub enum NotifyBehaviour {
        /// `NotifyImmediate`.
        NotifyImmediate,
        /// `NotifyRegulated`.
        NotifyRegulated(Box<RegulatedEmbeddedDescriptor>),
        /// `NeverNotify`.
        NeverNotify,
    }

    /// v3 regulated notification.
    #[derive(Default)]
    pub struct RegulatedEmbeddedDescriptor {
        /// Embedded events.
        pub second_event: Option<EventsDescriptor>,
        /// Embedded signals.
        pub signals_descriptor: Option<SignalsDescriptor>,
    }

    /// An event in an EventBuffer descriptor.
    #[derive(Default)]
    pub struct EventSpec {
        /// The event.
        pub event_name: CompactString,
        /// The stream.
        pub stream_id: Option<u16>,
        /// Its parameters.
        pub event_par_list: Vec<EventParameter>,
    }

    /// `ObservedEvents = id { … }`.
    #[derive(Default)]
    pub struct ObservedEventsDescriptor {
        /// The request id of the Events descriptor that asked.
        pub request_id: u32,
        /// The events seen.
        pub observed_event_lst: SmallList<ObservedEvent>,
    }

    /// One observed event.
    #[derive(Default)]
    pub struct ObservedEvent {
        /// The event.
        pub event_name: CompactString,
        /// The stream.
        pub stream_id: Option<u16>,
        /// Its parameters.
        pub event_par_list: Vec<EventParameter>,
        /// When it was seen.
        pub time_notation: Option<TimeNotation>,
    }

    /// `yyyymmddThhmmssss`.
    #[derive(Default)]
    pub struct TimeNotation {
        /// `yyyymmdd`.
        pub date: CompactString,
        /// `hhmmssss`.
        pub time: CompactString,
    }
}

/// `EventBuffer { … }`.
pub type EventBufferDescriptor = Vec<EventSpec>;
/// An event parameter: same shape as a property.
pub type EventParameter = PropertyParm;
