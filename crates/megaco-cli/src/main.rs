//! The `megaco` command-line tool.
#![forbid(unsafe_code)]

fn main() {
    println!("megaco {}", env!("CARGO_PKG_VERSION"));
}
