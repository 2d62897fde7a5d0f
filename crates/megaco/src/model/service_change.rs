//! ServiceChange parameters and results, and non-standard data.

use compact_str::CompactString;
#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use super::*;

model! {
    /// Service change request.
    pub struct ServiceChangeRequest {
        /// Terminations.
        pub termination_ids: SmallList<TerminationId>,
        /// The parameters.
        pub service_change_parms: ServiceChangeParm,
    }

    /// Service change reply.
    pub struct ServiceChangeReply {
        /// Terminations.
        pub termination_ids: SmallList<TerminationId>,
        /// Error or parameters.
        pub service_change_result: ServiceChangeResult,
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
        pub service_change_reason: Values,
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
    #[derive(Default)]
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
        Device(CompactString),
        /// MTP hex digits.
        Mtp(CompactString),
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

    /// `Profile = name/version`.
    #[derive(Default)]
    pub struct ServiceChangeProfile {
        /// The profile name.
        pub profile_name: CompactString,
        /// The profile version.
        pub version: u8,
    }

    /// Vendor data.
    pub struct NonStandardData {
        /// Whose.
        pub non_standard_identifier: NonStandardIdentifier,
        /// The data.
        pub data: Vec<u8>,
    }

    /// Who defined non-standard data.
    pub enum NonStandardIdentifier {
        /// An object identifier, as its arcs.
        Object(Vec<u32>),
        /// An H.221 identifier.
        H221NonStandard(H221NonStandard),
        /// Eight experimental characters.
        Experimental(CompactString),
    }

    /// H.221 vendor identifier.
    #[derive(Default)]
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
}
