//! Signals and signal lists.

use compact_str::CompactString;
#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use super::*;

model! {
    /// A signal or a signal list.
    pub enum SignalRequest {
        /// A signal.
        Signal(Signal),
        /// A signal list.
        SeqSigList(SeqSigList),
    }

    /// One signal.
    #[derive(Default)]
    pub struct Signal {
        /// The signal.
        pub signal_name: CompactString,
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

    /// `SignalList = id { … }`.
    #[derive(Default)]
    pub struct SeqSigList {
        /// The list id.
        pub id: u16,
        /// The signals in order.
        pub signal_list: Vec<Signal>,
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
}

/// `Signals { … }`: nearly always one signal or list.
pub type SignalsDescriptor = SmallList<SignalRequest>;
/// A signal parameter: same shape as a property.
pub type SigParameter = PropertyParm;
