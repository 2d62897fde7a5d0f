//! Messages, transactions and actions: the envelope of every command.

use compact_str::CompactString;
#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use super::*;

model! {
    /// A complete Megaco message, optionally authenticated.
    pub struct MegacoMessage {
        /// The authentication header (`AUTH = …` in text).
        pub auth_header: Option<AuthenticationHeader>,
        /// The message proper.
        pub mess: Message,
    }

    /// `AuthenticationHeader` (H.248.1 clause 10).
    #[derive(Default)]
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
        Transactions(SmallList<Transaction>),
    }

    /// One transaction of a message.
    #[non_exhaustive]
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
    #[derive(Default)]
    pub struct TransactionRequest {
        /// The transaction id.
        pub transaction_id: u32,
        /// The actions, one per context.
        pub actions: SmallList<ActionRequest>,
    }

    /// A transaction pending.
    #[derive(Default)]
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
        ActionReplies(SmallList<ActionReply>),
    }

    /// v3 segment reply.
    #[derive(Default)]
    pub struct SegmentReply {
        /// The transaction id.
        pub transaction_id: u32,
        /// The segment acknowledged.
        pub segment_number: u16,
        /// Set on the last segment.
        pub segmentation_complete: bool,
    }

    /// A range of acknowledged transaction ids.
    #[derive(Default)]
    pub struct TransactionAck {
        /// First id of the range.
        pub first_ack: u32,
        /// Last id of the range, if it is a range.
        pub last_ack: Option<u32>,
    }

    /// `Error = code { "text" }`.
    #[derive(Default)]
    pub struct ErrorDescriptor {
        /// The error code (0..65535).
        pub error_code: u16,
        /// The error text, without quotes.
        pub error_text: Option<CompactString>,
    }

    /// The actions for one context in a request.
    #[derive(Default)]
    pub struct ActionRequest {
        /// The context.
        pub context_id: ContextId,
        /// Context properties to set.
        pub context_request: Option<ContextRequest>,
        /// Context properties to audit.
        pub context_attr_audit_req: Option<ContextAttrAuditRequest>,
        /// The commands.
        pub command_requests: SmallList<CommandRequest>,
    }

    /// The replies for one context.
    #[derive(Default)]
    pub struct ActionReply {
        /// The context.
        pub context_id: ContextId,
        /// An error for the context as a whole.
        pub error_descriptor: Option<ErrorDescriptor>,
        /// Context properties in the reply.
        pub context_reply: Option<ContextRequest>,
        /// The command replies.
        pub command_reply: SmallList<CommandReply>,
    }
}
