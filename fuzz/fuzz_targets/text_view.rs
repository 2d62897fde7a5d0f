//! The borrowed view of text against the owned text decoder on the same
//! bytes: never a panic, and whenever the owned decoder accepts the input,
//! the view accepts it too and every field it yields equals the owned
//! model's (see `view_check`). Default limits, and tight ones so that the
//! depth and list limits are reached.
#![no_main]
use libfuzzer_sys::fuzz_target;
use megaco::codec::Encoding;
use megaco::text::Style;
use megaco::Limits;

mod view_check;

fuzz_target!(|data: &[u8]| {
    let tight = Limits {
        max_depth: 6,
        max_list_len: 4,
        max_string_len: 40,
        ..Limits::DEFAULT
    };
    for limits in [Limits::DEFAULT, tight] {
        let enc = Encoding::Text {
            style: Style::Compact,
            limits,
        };
        view_check::check(data, &enc, "input");
    }
});
