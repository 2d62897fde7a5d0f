//! The string table of the `compact` native format: strings frequent in
//! Megaco messages (termination ids of the benchmark corpus, package and
//! item names of the common packages, SDP line names and values), each
//! written as a one-byte code. Append only: a code, once given, keeps its
//! string, or older data would decode differently.

macro_rules! table {
    ($($s:literal),* $(,)?) => {
        /// The table, in code order.
        pub(super) const NAMES: &[&str] = &[$($s),*];

        /// The code of `s`, if it is in the table.
        #[inline]
        pub(super) fn code_of(s: &str) -> Option<u8> {
            // Comparisons fail fast on the length or the first bytes.
            let mut _code = 0u8;
            $(
                if s == $s {
                    return Some(_code);
                }
                _code += 1;
            )*
            None
        }
    };
}

table!(
    // Termination ids of the benchmark corpus and the special ones.
    "11111111/00000000/00000000",
    "11111111/00001111/00000000",
    "11111111/11111111/11111111",
    "11111111/00001111/00001111",
    "11111111/00000000/00001111",
    "11111111/00000000/11111111",
    "11111111/11111111/00000000",
    "ROOT",
    "root",
    "*",
    "$",
    // Package / item names.
    "al/on",
    "al/of",
    "al/fl",
    "al/ri",
    "al",
    "tdmc/gain",
    "tdmc/ec",
    "cg/rt",
    "cg/bt",
    "cg/dt",
    "nt/jit",
    "nt/os",
    "nt/or",
    "nt/dur",
    "nt/qualert",
    "rtp/ps",
    "rtp/pr",
    "rtp/pl",
    "rtp/jit",
    "rtp/delay",
    "tonedet/std",
    "tonegen/pt",
    "dd/ce",
    "dg/d0",
    "ct/ct",
    "g/sc",
    "it/ito",
    // Parameter names and values.
    "strict",
    "state",
    "exact",
    "ds",
    "Meth",
    "resgw",
    "901 mg col boot",
    // SDP line names and frequent values.
    "v",
    "o",
    "s",
    "c",
    "t",
    "m",
    "a",
    "0",
    "0 0",
    "-",
    "audio",
    "RTP/AVP",
    "ptime",
    "ptime:30",
    "fmtp",
    "recvonly",
    "sendrecv",
    "IN IP4 124.124.124.222",
);

const _: () = assert!(NAMES.len() <= 64, "codes must fit a one-byte tag");

/// The string of `code`, if the table has it.
#[inline]
pub(super) fn name_of(code: u64) -> Option<&'static str> {
    usize::try_from(code)
        .ok()
        .and_then(|i| NAMES.get(i).copied())
}
