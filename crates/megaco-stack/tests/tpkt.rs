//! TPKT framing against RFC 1006 section 6: `03 00 LL LL` then the
//! payload, the length counting the 4-octet header.
use megaco_stack::tpkt::{self, FrameDecoder, TpktError};

#[test]
fn header_is_rfc1006() {
    // A 20-octet payload: packet length 24 = 0x0018.
    let framed = tpkt::frame(&[0xAA; 20]).unwrap();
    assert_eq!(&framed[..4], &[0x03, 0x00, 0x00, 0x18]);
    assert_eq!(framed.len(), 24);
    // A 300-octet payload: 304 = 0x0130, big-endian.
    assert_eq!(tpkt::header(300).unwrap(), [0x03, 0x00, 0x01, 0x30]);
    // The empty payload is a bare header of length 4.
    assert_eq!(tpkt::frame(b"").unwrap(), [3, 0, 0, 4]);
    // The largest payload is 65535 - 4 octets.
    assert_eq!(tpkt::header(65_531).unwrap(), [3, 0, 0xFF, 0xFF]);
    assert_eq!(
        tpkt::header(65_532),
        Err(TpktError::TooLarge {
            len: 65_532,
            max: 65_531
        })
    );
}

#[test]
fn decoder_splits_a_stream() {
    let mut stream = tpkt::frame(b"first").unwrap();
    stream.extend(tpkt::frame(b"").unwrap());
    stream.extend(tpkt::frame(b"second message").unwrap());
    // Byte by byte.
    let mut dec = FrameDecoder::default();
    let mut out = Vec::new();
    for b in &stream {
        dec.extend(std::slice::from_ref(b));
        while let Some(f) = dec.next_frame().unwrap() {
            out.push(f);
        }
    }
    assert_eq!(out, [b"first".to_vec(), vec![], b"second message".to_vec()]);
    assert_eq!(dec.buffered(), 0);
}

#[test]
fn decoder_refuses_bad_headers() {
    let mut dec = FrameDecoder::default();
    dec.extend(&[0x02, 0x00, 0x00, 0x08, 1, 2, 3, 4]);
    assert_eq!(dec.next_frame(), Err(TpktError::BadVersion(2)));

    for short in [0u16, 3] {
        let mut dec = FrameDecoder::default();
        let [hi, lo] = short.to_be_bytes();
        dec.extend(&[3, 0, hi, lo]);
        assert_eq!(dec.next_frame(), Err(TpktError::LengthTooSmall(short)));
    }

    let mut dec = FrameDecoder::new(100);
    dec.extend(&[3, 0, 0x01, 0x00]);
    assert_eq!(
        dec.next_frame(),
        Err(TpktError::TooLarge { len: 252, max: 100 })
    );
}

#[test]
fn reserved_octet_is_ignored() {
    let mut dec = FrameDecoder::default();
    dec.extend(&[3, 0x7F, 0, 6, b'o', b'k']);
    assert_eq!(dec.next_frame().unwrap().unwrap(), b"ok");
}

#[tokio::test]
async fn read_frame_from_a_stream() {
    let mut input: &[u8] = &[3, 0, 0, 7, b'a', b'b', b'c', 3, 0, 0, 9, b'x'];
    let first = tpkt::read_frame(&mut input, 100).await.unwrap();
    assert_eq!(first.unwrap(), b"abc");
    // The second packet announces 5 octets and the stream has 1.
    let err = tpkt::read_frame(&mut input, 100).await.unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
    let tpkt_err = err.get_ref().unwrap().downcast_ref::<TpktError>().unwrap();
    assert_eq!(*tpkt_err, TpktError::Truncated { have: 5, need: 9 });
    // A clean end of stream between packets.
    let mut empty: &[u8] = &[];
    assert!(tpkt::read_frame(&mut empty, 100).await.unwrap().is_none());
    // A header that is too long for the limit is refused before reading on.
    let mut big: &[u8] = &[3, 0, 0xFF, 0xFF];
    let err = tpkt::read_frame(&mut big, 1000).await.unwrap_err();
    let tpkt_err = err.get_ref().unwrap().downcast_ref::<TpktError>().unwrap();
    assert_eq!(
        *tpkt_err,
        TpktError::TooLarge {
            len: 65_531,
            max: 1000
        }
    );
}
