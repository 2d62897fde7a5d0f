//! Lists the ASN.1 codecs in the registry only when the megaco crate next
//! to this one has them with the API the registry calls: each is detected
//! by the declarations it uses, so a build without them (or with a changed
//! API) still compiles, without those codecs.
use std::path::Path;

fn has(file: &Path, needles: &[&str]) -> bool {
    std::fs::read_to_string(file).is_ok_and(|s| needles.iter().all(|n| s.contains(n)))
}

fn main() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../megaco/src");
    println!("cargo::rerun-if-changed={}", src.display());
    println!("cargo::rustc-check-cfg=cfg(megaco_per)");
    println!("cargo::rustc-check-cfg=cfg(megaco_ber)");
    let lib = src.join("lib.rs");
    if has(&lib, &["pub mod per;"])
        && has(
            &src.join("per/mod.rs"),
            &[
                "pub struct PerConfig",
                "pub fn native() -> Self",
                "impl Default for PerConfig",
                "pub fn encode(msg: &MegacoMessage, cfg: &PerConfig) -> Result<Vec<u8>, EncodeError>",
                "pub fn decode(bytes: &[u8], cfg: &PerConfig) -> Result<MegacoMessage, PerError>",
            ],
        )
    {
        println!("cargo::rustc-cfg=megaco_per");
    }
    if has(&lib, &["pub mod ber;"])
        && has(
            &src.join("ber/mod.rs"),
            &[
                "pub struct BerConfig",
                "pub dialect: Dialect",
                "pub mapping: Mapping",
                "    Otp,",
                "    Native,",
                "impl Default for BerConfig",
                "pub fn encode(msg: &MegacoMessage, cfg: &BerConfig) -> Result<Vec<u8>, EncodeError>",
                "pub fn decode(bytes: &[u8], cfg: &BerConfig) -> Result<MegacoMessage, BerError>",
            ],
        )
    {
        println!("cargo::rustc-cfg=megaco_ber");
    }
}
