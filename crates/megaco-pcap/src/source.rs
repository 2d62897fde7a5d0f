//! The records of a pcap or pcapng file, one at a time, through a buffer
//! of fixed size: a file of any length is read in constant memory.

use std::fmt;
use std::io::{self, Read};
use std::sync::{Arc, Mutex};

use pcap_parser::pcapng::{Block, OptionCode, PcapNGOption};
use pcap_parser::traits::PcapReaderIterator;
use pcap_parser::{PcapBlockOwned, PcapError};

/// The reading buffer's limit. A record longer than this (a pcap record
/// or pcapng block) is an absurd length: the largest snapshot length tools
/// write is 256 KiB.
pub const BUFFER: usize = 1 << 20;

/// The reading buffer's first size; it grows (up to [`BUFFER`]) for a
/// record that does not fit.
const FIRST_BUFFER: usize = 1 << 16;

/// When a packet was captured: nanoseconds since the Unix epoch (UTC).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub u64);

impl Timestamp {
    /// Seconds since the Unix epoch.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// Nanoseconds from `earlier` to `self` (0 when `earlier` is later).
    pub fn since(self, earlier: Timestamp) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

impl fmt::Display for Timestamp {
    /// `seconds.microseconds` since the epoch.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{:06}",
            self.0 / 1_000_000_000,
            self.0 % 1_000_000_000 / 1000
        )
    }
}

/// A data link type (LINKTYPE_* of the pcap and pcapng formats).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkType(pub i32);

impl LinkType {
    /// BSD loopback, address family in host byte order.
    pub const NULL: LinkType = LinkType(0);
    /// Ethernet II (with 802.1Q tags).
    pub const ETHERNET: LinkType = LinkType(1);
    /// Raw IPv4 or IPv6.
    pub const RAW: LinkType = LinkType(101);
    /// OpenBSD loopback, address family in network byte order.
    pub const LOOP: LinkType = LinkType(108);
    /// Linux cooked capture v1.
    pub const LINUX_SLL: LinkType = LinkType(113);
    /// Raw IPv4.
    pub const IPV4: LinkType = LinkType(228);
    /// Raw IPv6.
    pub const IPV6: LinkType = LinkType(229);
    /// Linux cooked capture v2.
    pub const LINUX_SLL2: LinkType = LinkType(276);
}

/// One captured packet, borrowed from the reading buffer.
pub struct Frame<'a> {
    /// 1-based number of the packet in the file, as Wireshark counts.
    pub number: u64,
    /// When it was captured.
    pub time: Timestamp,
    /// The link layer of the interface it was captured on.
    pub link: LinkType,
    /// The captured bytes.
    pub data: &'a [u8],
    /// The length on the wire (more than `data.len()` when the snapshot
    /// length cut the packet).
    pub orig_len: u32,
}

/// What went wrong reading the file itself. After any of these the rest
/// of the file cannot be read (the record boundaries are lost).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FileError {
    /// The file starts with neither a pcap nor a pcapng header.
    #[error("not a pcap or pcapng file")]
    NotACapture,
    /// The file ends inside a record.
    #[error("file truncated at byte {offset}, inside a record")]
    Truncated {
        /// Bytes read before the cut.
        offset: u64,
    },
    /// A record or block longer than the reader accepts.
    #[error(
        "record at byte {offset} declares an absurd length (over {} bytes)",
        BUFFER
    )]
    AbsurdLength {
        /// Where the record starts.
        offset: u64,
    },
    /// A record or block header that does not parse.
    #[error("corrupt record header at byte {offset}: {reason}")]
    Corrupt {
        /// Where the record starts.
        offset: u64,
        /// What the parser said.
        reason: String,
    },
    /// A packet on an interface no description block declared.
    #[error("packet on undeclared interface {interface} at byte {offset}")]
    UnknownInterface {
        /// Where the block starts.
        offset: u64,
        /// The interface id.
        interface: u32,
    },
    /// The operating system failed to read.
    #[error("read error: {0}")]
    Io(String),
}

/// A pcapng interface: its link type and clock.
#[derive(Clone, Copy)]
struct Interface {
    link: LinkType,
    /// Timestamp units per second.
    resolution: u64,
    /// Seconds added to every timestamp.
    offset: i64,
}

/// Reads frames off a capture file.
pub struct Source<'r> {
    reader: Box<dyn PcapReaderIterator + Send + 'r>,
    /// pcap: the one link type and whether timestamps are nanoseconds.
    legacy: Option<(LinkType, bool)>,
    /// pcapng: the interfaces of the current section.
    interfaces: Vec<Interface>,
    number: u64,
    done: bool,
    capacity: usize,
    /// The current section (or file) is big-endian.
    big_endian: bool,
    /// The last error the input gave (the parser only says it failed).
    read_error: Arc<Mutex<Option<String>>>,
}

/// A reader that keeps its last error, to say why reading failed.
struct Remember<R> {
    inner: R,
    error: Arc<Mutex<Option<String>>>,
}

impl<R: Read> Read for Remember<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).inspect_err(|e| {
            let why = match e.kind() {
                io::ErrorKind::IsADirectory => "is a directory".to_string(),
                _ => e.to_string(),
            };
            if let Ok(mut slot) = self.error.lock() {
                *slot = Some(why);
            }
        })
    }
}

/// What [`Source::next`] found.
pub enum Step {
    /// A frame was handed to the callback.
    Frame,
    /// The file cannot be read further.
    Error(FileError),
    /// The end of the file.
    End,
}

impl<'r> Source<'r> {
    /// Opens a capture from its bytes: pcap (either byte order,
    /// microsecond or nanosecond timestamps) or pcapng.
    pub fn new(input: impl Read + Send + 'r) -> Result<Self, FileError> {
        let read_error = Arc::new(Mutex::new(None));
        let input = Remember {
            inner: input,
            error: Arc::clone(&read_error),
        };
        let reader = pcap_parser::create_reader(FIRST_BUFFER, input).map_err(|e| match e {
            PcapError::ReadError => FileError::Io(last_error(&read_error)),
            _ => FileError::NotACapture,
        })?;
        Ok(Source {
            reader,
            legacy: None,
            interfaces: Vec::new(),
            number: 0,
            done: false,
            capacity: FIRST_BUFFER,
            big_endian: false,
            read_error,
        })
    }

    /// Bytes of the file consumed so far.
    pub fn offset(&self) -> u64 {
        self.reader.consumed() as u64
    }

    /// Reads up to the next packet and hands it to `sink`.
    pub fn next(&mut self, sink: &mut dyn FnMut(Frame<'_>)) -> Step {
        if self.done {
            return Step::End;
        }
        loop {
            let offset = self.reader.consumed() as u64;
            let (size, handed) = match self.reader.next() {
                Ok((size, block)) => {
                    let handed = match block {
                        PcapBlockOwned::LegacyHeader(h) => {
                            self.legacy =
                                Some((LinkType(h.network.0), h.is_nanosecond_precision()));
                            self.big_endian = h.is_bigendian();
                            false
                        }
                        PcapBlockOwned::Legacy(b) => {
                            let (link, nanos) = self.legacy.unwrap_or((LinkType::ETHERNET, false));
                            let frac = if nanos {
                                u64::from(b.ts_usec)
                            } else {
                                u64::from(b.ts_usec) * 1000
                            };
                            self.number += 1;
                            sink(Frame {
                                number: self.number,
                                time: Timestamp(u64::from(b.ts_sec) * 1_000_000_000 + frac),
                                link,
                                data: b.data,
                                orig_len: b.origlen,
                            });
                            true
                        }
                        PcapBlockOwned::NG(Block::SectionHeader(shb)) => {
                            self.interfaces.clear();
                            self.big_endian = shb.big_endian();
                            false
                        }
                        PcapBlockOwned::NG(Block::InterfaceDescription(idb)) => {
                            let resolution = match ts_resolution(&idb.options) {
                                Ok(r) => r,
                                Err(reason) => {
                                    self.done = true;
                                    return Step::Error(FileError::Corrupt {
                                        offset,
                                        reason: format!(
                                            "interface {}: {reason}",
                                            self.interfaces.len()
                                        ),
                                    });
                                }
                            };
                            self.interfaces.push(Interface {
                                link: LinkType(idb.linktype.0),
                                resolution,
                                offset: ts_offset(&idb.options, self.big_endian),
                            });
                            false
                        }
                        PcapBlockOwned::NG(Block::EnhancedPacket(epb)) => {
                            let Some(iface) = self.interfaces.get(epb.if_id as usize).copied()
                            else {
                                self.done = true;
                                return Step::Error(FileError::UnknownInterface {
                                    offset,
                                    interface: epb.if_id,
                                });
                            };
                            let ticks = (u64::from(epb.ts_high) << 32) | u64::from(epb.ts_low);
                            self.number += 1;
                            // The block's data is padded to 4 bytes; caplen says
                            // how much of it was captured.
                            let data = &epb.data[..(epb.caplen as usize).min(epb.data.len())];
                            sink(Frame {
                                number: self.number,
                                time: ng_time(ticks, iface),
                                link: iface.link,
                                data,
                                orig_len: epb.origlen,
                            });
                            true
                        }
                        PcapBlockOwned::NG(Block::SimplePacket(spb)) => {
                            let Some(iface) = self.interfaces.first().copied() else {
                                self.done = true;
                                return Step::Error(FileError::UnknownInterface {
                                    offset,
                                    interface: 0,
                                });
                            };
                            self.number += 1;
                            let len = (spb.origlen as usize).min(spb.data.len());
                            sink(Frame {
                                number: self.number,
                                time: Timestamp::default(),
                                link: iface.link,
                                data: &spb.data[..len],
                                orig_len: spb.origlen,
                            });
                            true
                        }
                        PcapBlockOwned::NG(_) => false,
                    };
                    (size, handed)
                }
                Err(e) => {
                    let e = e.to_owned_vec();
                    match self.failed(e, offset) {
                        Some(step) => return step,
                        None => continue,
                    }
                }
            };
            self.reader.consume(size);
            if handed {
                return Step::Frame;
            }
        }
    }
}

impl Source<'_> {
    /// What a reading error means: `None` to try again (after reading
    /// more), or the step to return.
    fn failed(&mut self, e: PcapError<&'static [u8]>, offset: u64) -> Option<Step> {
        let refill = |s: &mut Self| match s.reader.refill() {
            Ok(()) => None,
            Err(e) => {
                s.done = true;
                Some(Step::Error(FileError::Io(match e {
                    PcapError::ReadError => last_error(&s.read_error),
                    e => e.to_string(),
                })))
            }
        };
        match e {
            PcapError::Eof => {
                self.done = true;
                Some(Step::End)
            }
            PcapError::Incomplete(_) => refill(self),
            PcapError::BufferTooSmall | PcapError::UnexpectedEof
                if self.declared_len().is_some_and(|n| n > self.capacity) =>
            {
                // A record longer than the buffer: grow it, within reason.
                let need = self.declared_len().unwrap_or(usize::MAX);
                if need > BUFFER {
                    self.done = true;
                    return Some(Step::Error(FileError::AbsurdLength { offset }));
                }
                self.capacity = need.next_power_of_two().min(BUFFER);
                self.reader.grow(self.capacity);
                refill(self)
            }
            e => {
                self.done = true;
                // The file ends inside the record; unless the record's own
                // length says it is all there, when its fields disagree.
                let whole = self
                    .declared_len()
                    .filter(|&n| n >= 12 && n <= self.reader.data().len());
                Some(Step::Error(match e {
                    PcapError::UnexpectedEof => match whole {
                        Some(n) => FileError::Corrupt {
                            offset,
                            reason: format!("declared length {n} does not hold what it declares"),
                        },
                        None => FileError::Truncated { offset },
                    },
                    PcapError::BufferTooSmall => FileError::AbsurdLength { offset },
                    PcapError::ReadError => FileError::Io(last_error(&self.read_error)),
                    other => FileError::Corrupt {
                        offset,
                        reason: self.corrupt_reason(&other),
                    },
                }))
            }
        }
    }

    /// Why the record at the reading position does not parse, in a few
    /// words: the parser's own text quotes the whole rest of its buffer
    /// (a quarter of a megabyte on one line).
    fn corrupt_reason<I>(&self, e: &PcapError<I>) -> String {
        match e {
            PcapError::NomError(_, kind) | PcapError::OwnedNomError(_, kind) => {
                match self.declared_len() {
                    Some(n) => format!("declared length {n} ({} failed)", kind.description()),
                    None => format!("{} failed", kind.description()),
                }
            }
            PcapError::HeaderNotRecognized => "not a pcap or pcapng record".to_string(),
            _ => "unreadable".to_string(),
        }
    }

    /// The length the record at the reading position declares, header
    /// included (a pcap record's captured length plus 16, a pcapng block's
    /// total length).
    fn declared_len(&self) -> Option<usize> {
        let data = self.reader.data();
        let field = |at: usize| {
            let b: [u8; 4] = data.get(at..at + 4)?.try_into().ok()?;
            Some(if self.big_endian {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            } as usize)
        };
        if self.legacy.is_some() {
            field(8).map(|n| n.saturating_add(16))
        } else {
            field(4)
        }
    }
}

/// What the input said when it failed.
fn last_error(slot: &Mutex<Option<String>>) -> String {
    slot.lock()
        .ok()
        .and_then(|mut e| e.take())
        .unwrap_or_else(|| "cannot read the file".into())
}

/// An interface's timestamp units per second, from its `if_tsresol`
/// option (pcapng, section 4.2): without the option, microseconds; with
/// it, a negative power of 10, or of 2 when the high bit is set. A
/// resolution finer than a 64-bit count of units per second (past 10^19
/// or 2^63), or an option that is not one byte, is refused: the
/// timestamps cannot be read.
fn ts_resolution(options: &[PcapNGOption<'_>]) -> Result<u64, String> {
    let Some(option) = options.iter().find(|o| o.code == OptionCode::IfTsresol) else {
        return Ok(1_000_000);
    };
    let value = match option.as_bytes() {
        Ok(&[v]) => v,
        _ => return Err(format!("if_tsresol option of {} bytes, not 1", option.len)),
    };
    let exponent = u32::from(value & 0x7F);
    let units = if value & 0x80 == 0 {
        10u64.checked_pow(exponent)
    } else {
        1u64.checked_shl(exponent)
    };
    units.ok_or_else(|| {
        let base = if value & 0x80 == 0 { 10 } else { 2 };
        format!("if_tsresol {value:#04x} (units of {base}^-{exponent} s) too fine to count")
    })
}

/// An interface's `if_tsoffset` option (pcapng, section 4.2): seconds
/// added to each of its timestamps, a signed 64-bit integer in the
/// section's byte order; 0 without the option. (pcap-parser's
/// `ts_offset` reads it little-endian in either order.)
fn ts_offset(options: &[PcapNGOption<'_>], big_endian: bool) -> i64 {
    let value = options
        .iter()
        .find(|o| o.code == OptionCode::IfTsoffset)
        .and_then(|o| <[u8; 8]>::try_from(o.as_bytes().ok()?.get(..8)?).ok());
    match value {
        Some(b) if big_endian => i64::from_be_bytes(b),
        Some(b) => i64::from_le_bytes(b),
        None => 0,
    }
}

/// A pcapng timestamp in nanoseconds since the epoch.
fn ng_time(ticks: u64, iface: Interface) -> Timestamp {
    let res = u128::from(iface.resolution);
    let ticks = u128::from(ticks);
    let nanos = (ticks / res) * 1_000_000_000 + (ticks % res) * 1_000_000_000 / res;
    let offset = i128::from(iface.offset) * 1_000_000_000;
    let total = (nanos as i128 + offset).clamp(0, i128::from(u64::MAX));
    Timestamp(total as u64)
}
