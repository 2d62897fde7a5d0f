use megaco::ber::{self, BerConfig};
#[test]
fn probe() {
    let text = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../corpus/vectors/pretty/msg22a.txt"
    ))
    .unwrap();
    let m = megaco::text::decode(&text).unwrap();
    let b = ber::encode(&m, &BerConfig::default()).unwrap();
    std::fs::write("/tmp/msg22a.ber", &b).unwrap();
}
