//! Media, streams, properties, and the Mux, Modem, DigitMap and Statistics descriptors.

use compact_str::CompactString;
#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use super::*;

model! {
    /// A named value with its relation: property, event and signal
    /// parameters share this shape.
    #[derive(Default)]
    pub struct PropertyParm {
        /// The name (`pkg/item` for properties, `item` for parameters).
        pub name: CompactString,
        /// One value, or several for ranges and lists.
        pub value: Values,
        /// How the values relate (absent for `=` with one value).
        pub extra_info: Option<ExtraInfo>,
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

    /// `Media { … }`.
    #[derive(Default)]
    pub struct MediaDescriptor {
        /// TerminationState.
        pub term_state_descr: Option<TerminationStateDescriptor>,
        /// Streams.
        pub streams: Option<Streams>,
    }

    /// One stream or several.
    pub enum Streams {
        /// A single stream without an id.
        OneStream(StreamParms),
        /// Streams with ids.
        MultiStream(SmallList<StreamDescriptor>),
    }

    /// A stream with its id.
    #[derive(Default)]
    pub struct StreamDescriptor {
        /// The stream.
        pub stream_id: u16,
        /// Its parameters.
        pub stream_parms: StreamParms,
    }

    /// What a stream holds.
    #[derive(Default)]
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
    #[derive(Default)]
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

    /// `Local { … }` / `Remote { … }`: SDP as property groups, a new group
    /// at each `v=` line.
    #[derive(Default)]
    pub struct LocalRemoteDescriptor {
        /// The groups.
        pub prop_grps: SmallList<Vec<PropertyParm>>,
    }

    /// `TerminationState { … }`.
    #[derive(Default)]
    pub struct TerminationStateDescriptor {
        /// Properties.
        pub property_parms: Vec<PropertyParm>,
        /// Buffer.
        pub event_buffer_control: Option<EventBufferControl>,
        /// ServiceStates.
        pub service_state: Option<ServiceState>,
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

    /// `Mux = type { … }`.
    pub struct MuxDescriptor {
        /// Multiplex type.
        pub mux_type: MuxType,
        /// Terminations.
        pub term_list: Vec<TerminationId>,
        /// Non-standard data (binary only).
        pub non_standard_data: Option<NonStandardData>,
    }

    /// Multiplex type.
    #[derive(Copy)]
    #[non_exhaustive]
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

    /// `Modem = … { … }`.
    #[derive(Default)]
    pub struct ModemDescriptor {
        /// Modem types.
        pub mtl: Vec<ModemType>,
        /// Properties.
        pub mpl: Vec<PropertyParm>,
        /// Non-standard data (binary only).
        pub non_standard_data: Option<NonStandardData>,
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

    /// `DigitMap = name { … }`.
    #[derive(Default)]
    pub struct DigitMapDescriptor {
        /// The map's name.
        pub digit_map_name: Option<CompactString>,
        /// The map's body.
        pub digit_map_value: Option<DigitMapValue>,
    }

    /// A digit map body with its timers.
    #[derive(Default)]
    pub struct DigitMapValue {
        /// `T:` start timer.
        pub start_timer: Option<u8>,
        /// `S:` short timer.
        pub short_timer: Option<u8>,
        /// `L:` long timer.
        pub long_timer: Option<u8>,
        /// The body, as written (without the timers).
        pub digit_map_body: CompactString,
        /// v2 `Z:` duration timer.
        pub duration_timer: Option<u8>,
    }

    /// One statistic.
    #[derive(Default)]
    pub struct StatisticsParameter {
        /// The statistic.
        pub stat_name: CompactString,
        /// Its value (absent in requests).
        pub stat_value: Option<Values>,
    }
}

/// `Statistics { … }`.
pub type StatisticsDescriptor = Vec<StatisticsParameter>;

impl PropertyParm {
    /// A property with a single value and no relation (`name=value`).
    ///
    /// ```
    /// let p = megaco::model::PropertyParm::new("tdmc/gain", "2");
    /// assert_eq!(p.value.as_slice(), ["2"]);
    /// ```
    pub fn new(name: impl Into<CompactString>, value: impl Into<CompactString>) -> Self {
        PropertyParm {
            name: name.into(),
            value: smallvec![value.into()],
            extra_info: None,
        }
    }
}
