//! A device name spelled like the `MTP` token (fuzz finding: the pretty
//! header `MEGACO/2 mtp` followed by a line end did not read back).

use megaco::model::Mid;

#[test]
fn a_device_name_spelled_mtp_reads_back_before_a_line_end_or_a_space() {
    for text in ["MEGACO/2 mtp\nError = 400 { }", "!/2 MTP Error=400{}"] {
        let msg = megaco::text::decode(text.as_bytes()).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert!(
            matches!(&msg.mess.mid, Mid::Device(_)),
            "{:?}",
            msg.mess.mid
        );
    }
}

#[test]
fn mtp_with_a_brace_is_still_an_mtp_address() {
    for text in [
        "!/2 MTP{0a0b} Error=400{}",
        "MEGACO/2 MTP {0A0B}\nError = 400 { }",
    ] {
        let msg = megaco::text::decode(text.as_bytes()).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert!(matches!(&msg.mess.mid, Mid::Mtp(_)), "{:?}", msg.mess.mid);
    }
}
