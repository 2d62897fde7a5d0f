//! Reaching into a decoded model, for tests that edit one field.

use megaco::model::{Command, MegacoMessage, MessageBody, Transaction};

/// The first command of the first request of `m`.
pub fn first_command(m: &mut MegacoMessage) -> &mut Command {
    let MessageBody::Transactions(ts) = &mut m.mess.body else {
        unreachable!()
    };
    let Transaction::Request(r) = &mut ts[0] else {
        unreachable!()
    };
    &mut r.actions[0].command_requests[0].command
}
