//! TPKT framing (RFC 1006 section 6, used by H.248.1 Annex D.2 / RFC 3525
//! D.2 for Megaco over TCP).
//!
//! Each message is preceded by a four-octet header: version `3`, a
//! reserved octet `0`, and the packet length as a 16-bit big-endian number
//! that counts the header itself. So a payload is at most 65 531 octets.
//!
//! ```
//! use megaco_stack::tpkt::{self, FrameDecoder};
//!
//! let framed = tpkt::frame(b"!/1 [10.0.0.1] PN=1{}").unwrap();
//! assert_eq!(&framed[..4], &[3, 0, 0, 25]);
//!
//! let mut dec = FrameDecoder::default();
//! dec.extend(&framed[..10]);
//! assert_eq!(dec.next_frame().unwrap(), None); // not all there yet
//! dec.extend(&framed[10..]);
//! assert_eq!(dec.next_frame().unwrap().unwrap(), b"!/1 [10.0.0.1] PN=1{}");
//! ```

/// The TPKT version octet.
pub const VERSION: u8 = 3;
/// The header length.
pub const HEADER_LEN: usize = 4;
/// The largest payload a TPKT packet carries.
pub const MAX_PAYLOAD: usize = u16::MAX as usize - HEADER_LEN;

/// Malformed TPKT input, or a payload that does not fit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TpktError {
    /// The version octet is not 3.
    #[error("TPKT version {0}, expected 3")]
    BadVersion(u8),
    /// The length is smaller than the header.
    #[error("TPKT length {0} is smaller than its 4-octet header")]
    LengthTooSmall(u16),
    /// The payload is longer than the receiver accepts.
    #[error("TPKT payload of {len} octets exceeds the limit of {max}")]
    TooLarge {
        /// The payload length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The stream ended inside a packet.
    #[error("stream ended inside a TPKT packet ({have} of {need} octets)")]
    Truncated {
        /// Octets read of the packet.
        have: usize,
        /// Octets the packet needs.
        need: usize,
    },
}

/// The header for a payload of `len` octets.
pub fn header(len: usize) -> Result<[u8; HEADER_LEN], TpktError> {
    if len > MAX_PAYLOAD {
        return Err(TpktError::TooLarge {
            len,
            max: MAX_PAYLOAD,
        });
    }
    let total = (len + HEADER_LEN) as u16;
    let [hi, lo] = total.to_be_bytes();
    Ok([VERSION, 0, hi, lo])
}

/// `payload` with its TPKT header.
pub fn frame(payload: &[u8]) -> Result<Vec<u8>, TpktError> {
    let mut out = Vec::with_capacity(payload.len() + HEADER_LEN);
    out.extend_from_slice(&header(payload.len())?);
    out.extend_from_slice(payload);
    Ok(out)
}

/// Checks a header; returns the payload length.
pub fn parse_header(h: [u8; HEADER_LEN], max_payload: usize) -> Result<usize, TpktError> {
    if h[0] != VERSION {
        return Err(TpktError::BadVersion(h[0]));
    }
    let total = u16::from_be_bytes([h[2], h[3]]);
    if usize::from(total) < HEADER_LEN {
        return Err(TpktError::LengthTooSmall(total));
    }
    let len = usize::from(total) - HEADER_LEN;
    if len > max_payload {
        return Err(TpktError::TooLarge {
            len,
            max: max_payload,
        });
    }
    Ok(len)
}

/// Splits a byte stream into TPKT payloads.
///
/// The reserved octet is not checked (RFC 1006 asks receivers to ignore
/// it). After an error the stream cannot be resynchronised; drop it.
#[derive(Debug)]
pub struct FrameDecoder {
    buf: Vec<u8>,
    max_payload: usize,
}

impl Default for FrameDecoder {
    fn default() -> Self {
        FrameDecoder::new(MAX_PAYLOAD)
    }
}

impl FrameDecoder {
    /// A decoder refusing payloads longer than `max_payload` octets.
    pub fn new(max_payload: usize) -> Self {
        FrameDecoder {
            buf: Vec::new(),
            max_payload,
        }
    }

    /// Appends received bytes.
    pub fn extend(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete payload, `None` if more bytes are needed.
    pub fn next_frame(&mut self) -> Result<Option<Vec<u8>>, TpktError> {
        let Some(h) = self.buf.first_chunk::<HEADER_LEN>() else {
            return Ok(None);
        };
        let len = parse_header(*h, self.max_payload)?;
        if self.buf.len() < HEADER_LEN + len {
            return Ok(None);
        }
        let payload = self.buf[HEADER_LEN..HEADER_LEN + len].to_vec();
        self.buf.drain(..HEADER_LEN + len);
        Ok(Some(payload))
    }

    /// Octets received but not yet returned as a payload.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }
}

/// Reads one TPKT payload from `r`; `Ok(None)` on a clean end of stream
/// before a header.
#[cfg(feature = "tokio")]
pub async fn read_frame<R: tokio::io::AsyncRead + Unpin>(
    r: &mut R,
    max_payload: usize,
) -> std::io::Result<Option<Vec<u8>>> {
    use tokio::io::AsyncReadExt;
    let mut h = [0u8; HEADER_LEN];
    let mut got = 0;
    while got < HEADER_LEN {
        let n = r.read(&mut h[got..]).await?;
        if n == 0 {
            if got == 0 {
                return Ok(None);
            }
            return Err(invalid(TpktError::Truncated {
                have: got,
                need: HEADER_LEN,
            }));
        }
        got += n;
    }
    let len = parse_header(h, max_payload).map_err(invalid)?;
    let mut payload = vec![0u8; len];
    let mut got = 0;
    while got < len {
        let n = r.read(&mut payload[got..]).await?;
        if n == 0 {
            return Err(invalid(TpktError::Truncated {
                have: HEADER_LEN + got,
                need: HEADER_LEN + len,
            }));
        }
        got += n;
    }
    Ok(Some(payload))
}

#[cfg(feature = "tokio")]
fn invalid(e: TpktError) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, e)
}
