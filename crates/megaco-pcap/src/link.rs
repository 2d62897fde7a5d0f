//! From a captured frame to its IP packet: the link layers H.248 is
//! captured on (Ethernet with VLAN tags, Linux cooked v1 and v2, raw IP,
//! BSD loopback), then the IPv4 or IPv6 header with its extension headers.

use std::net::IpAddr;

use etherparse::{EtherType, LaxNetSlice, LaxSlicedPacket};

use crate::source::LinkType;

/// An IP packet, or one fragment of one.
#[derive(Debug)]
pub struct IpPacket<'a> {
    /// Source address.
    pub src: IpAddr,
    /// Destination address.
    pub dst: IpAddr,
    /// The upper protocol (6 TCP, 17 UDP, 132 SCTP).
    pub proto: u8,
    /// The IP payload (of this fragment).
    pub payload: &'a [u8],
    /// Set when the packet is a fragment.
    pub fragment: Option<Fragment>,
    /// The payload is shorter than the IP header says (the snapshot length
    /// or a wrong length field cut it).
    pub cut: bool,
}

/// Where a fragment belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fragment {
    /// The datagram's identification.
    pub id: u32,
    /// Byte offset of this fragment in the datagram.
    pub offset: usize,
    /// More fragments follow.
    pub more: bool,
}

/// Why a frame did not yield an IP packet worth reporting.
#[derive(Debug, PartialEq, Eq)]
pub enum LinkError {
    /// A link type this reader does not know.
    UnsupportedLink(i32),
    /// The frame is too short for its link or IP header, or the IP header
    /// is malformed.
    Malformed(String),
}

/// The IP packet inside a frame; `Ok(None)` for frames that carry no IP
/// (ARP, other protocols).
pub fn ip_packet(link: LinkType, data: &[u8]) -> Result<Option<IpPacket<'_>>, LinkError> {
    let sliced = match link {
        LinkType::ETHERNET => LaxSlicedPacket::from_ethernet(data)
            .map_err(|e| LinkError::Malformed(format!("Ethernet: {e}")))?,
        LinkType::LINUX_SLL => {
            // 16 bytes: packet type, ARPHRD, address length, 8 address bytes,
            // then the protocol (an EtherType for Ethernet-like devices).
            let Some(proto) = data.get(14..16) else {
                return Err(LinkError::Malformed("Linux cooked header cut".into()));
            };
            let proto = u16::from_be_bytes([proto[0], proto[1]]);
            LaxSlicedPacket::from_ether_type(EtherType(proto), &data[16..])
        }
        LinkType::LINUX_SLL2 => {
            // 20 bytes, the protocol first.
            if data.len() < 20 {
                return Err(LinkError::Malformed("Linux cooked v2 header cut".into()));
            }
            let proto = u16::from_be_bytes([data[0], data[1]]);
            LaxSlicedPacket::from_ether_type(EtherType(proto), &data[20..])
        }
        LinkType::NULL | LinkType::LOOP => {
            // A 4-byte address family, in either byte order: 2 is IPv4 and
            // 24, 28 or 30 are IPv6 depending on the system.
            let Some(family) = data.get(..4) else {
                return Err(LinkError::Malformed("loopback header cut".into()));
            };
            let le = u32::from_le_bytes([family[0], family[1], family[2], family[3]]);
            let be = u32::from_be_bytes([family[0], family[1], family[2], family[3]]);
            let family = if link == LinkType::LOOP || le > 0xFFFF {
                be
            } else {
                le
            };
            if !matches!(family, 2 | 24 | 28 | 30) {
                return Ok(None);
            }
            raw_ip(&data[4..])?
        }
        LinkType::RAW | LinkType::IPV4 | LinkType::IPV6 | LinkType(12) | LinkType(14) => {
            raw_ip(data)?
        }
        LinkType(other) => return Err(LinkError::UnsupportedLink(other)),
    };
    let Some(net) = sliced.net else {
        return match sliced.stop_err {
            // An IP EtherType whose header does not parse.
            Some((e, _))
                if matches!(
                    sliced.link.as_ref().and_then(|_| ether_type_of(&sliced)),
                    Some(EtherType::IPV4 | EtherType::IPV6)
                ) =>
            {
                Err(LinkError::Malformed(format!("IP header: {e}")))
            }
            _ => Ok(None),
        };
    };
    Ok(match net {
        LaxNetSlice::Ipv4(v4) => {
            let h = v4.header();
            let p = v4.payload();
            let offset = usize::from(h.fragments_offset().value()) * 8;
            Some(IpPacket {
                src: IpAddr::V4(h.source_addr()),
                dst: IpAddr::V4(h.destination_addr()),
                proto: p.ip_number.0,
                payload: p.payload,
                fragment: (offset != 0 || h.more_fragments()).then_some(Fragment {
                    id: u32::from(h.identification()),
                    offset,
                    more: h.more_fragments(),
                }),
                cut: p.incomplete,
            })
        }
        LaxNetSlice::Ipv6(v6) => {
            let h = v6.header();
            let p = v6.payload();
            let fragment = v6_fragment(h.next_header().0, v6.extensions().slice());
            Some(IpPacket {
                src: IpAddr::V6(h.source_addr()),
                dst: IpAddr::V6(h.destination_addr()),
                proto: p.ip_number.0,
                payload: p.payload,
                fragment,
                cut: p.incomplete,
            })
        }
        LaxNetSlice::Arp(_) => None,
    })
}

/// The IPv6 fragment header among the extension headers, walked from
/// their bytes: etherparse 0.17's own walk reads past a cut header (and
/// takes the offset and M flag from the wrong bits).
fn v6_fragment(first: u8, mut ext: &[u8]) -> Option<Fragment> {
    let mut next = first;
    loop {
        let len = match next {
            44 => {
                let b = ext.get(..8)?;
                let field = u16::from_be_bytes([b[2], b[3]]);
                let (offset, more) = (usize::from(field >> 3) * 8, field & 1 != 0);
                return (offset != 0 || more).then(|| Fragment {
                    id: u32::from_be_bytes([b[4], b[5], b[6], b[7]]),
                    offset,
                    more,
                });
            }
            // Hop-by-hop, routing, destination options: 8-byte units.
            0 | 43 | 60 => (usize::from(*ext.get(1)?) + 1) * 8,
            // Authentication header: 4-byte units.
            51 => (usize::from(*ext.get(1)?) + 2) * 4,
            _ => return None,
        };
        next = *ext.first()?;
        ext = ext.get(len..)?;
    }
}

fn ether_type_of(p: &LaxSlicedPacket<'_>) -> Option<EtherType> {
    p.ether_payload().map(|e| e.ether_type)
}

fn raw_ip(data: &[u8]) -> Result<LaxSlicedPacket<'_>, LinkError> {
    match data.first().map(|b| b >> 4) {
        Some(4 | 6) => {
            LaxSlicedPacket::from_ip(data).map_err(|e| LinkError::Malformed(format!("IP: {e}")))
        }
        _ => Err(LinkError::Malformed("not an IP packet".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::build;

    #[test]
    fn extension_headers_cut_short_are_no_fragment() {
        // A fragment header after a hop-by-hop header.
        let mut ext = vec![44, 0, 0, 0, 0, 0, 0, 0];
        ext.extend_from_slice(&[17, 0, 0, 9, 0, 0, 0, 7]);
        let f = v6_fragment(0, &ext);
        assert_eq!(
            f,
            Some(Fragment {
                id: 7,
                offset: 8,
                more: true
            })
        );
        for cut in 0..ext.len() {
            assert_eq!(v6_fragment(0, &ext[..cut]), None, "{cut}");
        }
        // A length past the bytes.
        assert_eq!(v6_fragment(60, &[44, 200, 0, 0]), None);
        // An unfragmented fragment header (offset 0, no M flag).
        assert_eq!(v6_fragment(44, &[17, 0, 0, 0, 0, 0, 0, 1]), None);
    }

    #[test]
    fn fragments_are_seen_as_fragments() {
        for (s, d) in [("10.0.0.1", "10.0.0.2"), ("2001:db8::1", "2001:db8::2")] {
            let (s, d): (IpAddr, IpAddr) = (s.parse().unwrap(), d.parse().unwrap());
            let frags = build::ip_fragments(s, d, 17, &[7u8; 300], 9, 128);
            assert_eq!(frags.len(), 3);
            for (i, f) in frags.iter().enumerate() {
                let p = ip_packet(LinkType::RAW, f).unwrap().unwrap();
                assert_eq!(p.proto, 17);
                assert_eq!(
                    p.fragment,
                    Some(Fragment {
                        id: 9,
                        offset: i * 128,
                        more: i < 2
                    }),
                    "{s} {i}"
                );
                assert_eq!(p.payload.len(), if i < 2 { 128 } else { 44 });
            }
        }
    }
}
