//! Which constructs each protocol version can carry.
use crate::{EncodeError, MegacoMessage};

/// Checks that everything in `msg` exists in its protocol version.
pub fn check(msg: &MegacoMessage) -> Result<(), EncodeError> {
    let v = msg.mess.version;
    if !(1..=3).contains(&v) {
        return Err(EncodeError::UnsupportedVersion(v));
    }
    Ok(())
}
