//! The names of the codec configurations: one table that `megaco bench`
//! rows, `megaco transform` directories, the CLI's `--to`/`--from`
//! values and the stack's encoding options all read.
//!
//! The table is [`Encoding::named`]'s documentation.

use std::fmt;
use std::str::FromStr;

use super::{Encoding, Kind};
use crate::ber::{BerConfig, Dialect, Mapping, TermIdLevels};
#[cfg(feature = "native")]
use crate::native::NativeConfig;
use crate::per::PerConfig;
use crate::text::Style;

/// One named configuration.
struct Entry {
    name: &'static str,
    slug: &'static str,
    make: fn() -> Encoding,
}

/// Every named configuration, in the order `megaco bench` lists them.
const ENTRIES: &[Entry] = &[
    Entry {
        name: "pretty",
        slug: "pretty",
        make: Encoding::pretty,
    },
    Entry {
        name: "compact",
        slug: "compact",
        make: Encoding::compact,
    },
    Entry {
        name: "ber",
        slug: "ber",
        make: || Encoding::Ber(BerConfig::default()),
    },
    Entry {
        name: "ber [otp]",
        slug: "ber-otp",
        make: || Encoding::Ber(BerConfig::otp()),
    },
    Entry {
        name: "ber [native]",
        slug: "ber-native",
        make: || {
            Encoding::Ber(BerConfig {
                mapping: Mapping::Native,
                ..BerConfig::otp()
            })
        },
    },
    Entry {
        name: "per",
        slug: "per",
        make: || Encoding::Per(PerConfig::default()),
    },
    Entry {
        name: "per [native]",
        slug: "per-native",
        make: || Encoding::Per(PerConfig::native()),
    },
    #[cfg(feature = "native")]
    Entry {
        name: "native",
        slug: "native",
        make: || Encoding::Native(NativeConfig::PLAIN),
    },
    #[cfg(feature = "native")]
    Entry {
        name: "native [compact]",
        slug: "native-compact",
        make: || Encoding::Native(NativeConfig::COMPACT),
    },
    #[cfg(feature = "native")]
    Entry {
        name: "native [compressed]",
        slug: "native-compressed",
        make: || Encoding::Native(NativeConfig::COMPRESSED),
    },
    #[cfg(feature = "native")]
    Entry {
        name: "native [compact,compressed]",
        slug: "native-compact-compressed",
        make: || Encoding::Native(NativeConfig::COMPACT_COMPRESSED),
    },
];

/// What a name says about a configuration: equal shapes, equal names.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shape {
    Text(Style),
    Ber(Dialect, Mapping),
    Per(Mapping),
    #[cfg(feature = "native")]
    Native {
        compact: bool,
        compressed: bool,
    },
}

impl Shape {
    fn of(encoding: &Encoding) -> Shape {
        match encoding {
            Encoding::Text { style, .. } => Shape::Text(*style),
            Encoding::Ber(c) => Shape::Ber(c.dialect, c.mapping.clone()),
            Encoding::Per(c) => Shape::Per(c.mapping.clone()),
            #[cfg(feature = "native")]
            Encoding::Native(c) => Shape::Native {
                compact: c.compact,
                compressed: c.compressed,
            },
        }
    }

    fn entry(&self) -> Option<&'static Entry> {
        ENTRIES.iter().find(|e| Shape::of(&(e.make)()) == *self)
    }
}

impl Encoding {
    /// Every named configuration, in the order `megaco bench` lists them.
    ///
    /// A configuration is written `codec [option,option]`, as Erlang/OTP's
    /// measurement tools write theirs (`ber [native]`), or in a form without
    /// spaces for shells and file names, its *slug* (`ber-native`). Both parse.
    ///
    /// | name | slug | configuration |
    /// | --- | --- | --- |
    /// | `pretty` | `pretty` | text, pretty |
    /// | `compact` | `compact` | text, compact |
    /// | `ber` | `ber` | BER, RFC 3525 A.2 value wrapping ([`BerConfig::default`]) |
    /// | `ber [otp]` | `ber-otp` | BER as Erlang/OTP writes it ([`BerConfig::otp`]) |
    /// | `ber [native]` | `ber-native` | BER, OTP's layout, no name or termination id mapping |
    /// | `per` | `per` | aligned PER ([`PerConfig::default`]) |
    /// | `per [native]` | `per-native` | PER without the mapping ([`PerConfig::native`]) |
    /// | `native` | `native` | the native format ([`NativeConfig::PLAIN`]) |
    /// | `native [compact]` | `native-compact` | [`NativeConfig::COMPACT`] |
    /// | `native [compressed]` | `native-compressed` | [`NativeConfig::COMPRESSED`] |
    /// | `native [compact,compressed]` | `native-compact-compressed` | [`NativeConfig::COMPACT_COMPRESSED`] |
    ///
    /// A name says the style, dialect, mapping and native flags; it does not
    /// carry limits or a custom name registry, which keep their defaults when a
    /// name is parsed. Termination-id levels other than the default three of 8
    /// bits are shown by [`Display`](fmt::Display) (`per [levels 4.4]`) and are
    /// not parsed back.
    ///
    /// ```
    /// use megaco::codec::Encoding;
    ///
    /// let names: Vec<String> = Encoding::named().iter().map(|e| e.to_string()).collect();
    /// assert_eq!(names[..4], ["pretty", "compact", "ber", "ber [otp]"]);
    /// ```
    pub fn named() -> Vec<Encoding> {
        ENTRIES.iter().map(|e| (e.make)()).collect()
    }

    /// The name of this configuration (`ber [otp]`), when it is one of
    /// [`Encoding::named`]; limits and the name registry are not part of
    /// a name.
    ///
    /// ```
    /// use megaco::codec::Encoding;
    ///
    /// assert_eq!(Encoding::ber().name(), Some("ber [otp]"));
    /// assert_eq!(Encoding::per().name(), Some("per"));
    /// ```
    pub fn name(&self) -> Option<&'static str> {
        Shape::of(self).entry().map(|e| e.name)
    }

    /// The name in a form without spaces or brackets (`ber-otp`), for
    /// shells and file names, when this is one of [`Encoding::named`].
    pub fn slug(&self) -> Option<&'static str> {
        Shape::of(self).entry().map(|e| e.slug)
    }

    /// The usual file extension of one message in this encoding: `txt`,
    /// `ber`, `per` or `bin` (native).
    pub fn extension(&self) -> &'static str {
        match self.kind() {
            Kind::Text => "txt",
            Kind::Ber => "ber",
            Kind::Per => "per",
            Kind::Native => "bin",
        }
    }

    /// The configuration the first bytes of a message announce, from the
    /// same signatures as [`sniff`](super::sniff) (so a PER answer is a
    /// guess that decoding must confirm): text is `compact` when its
    /// header starts `!/` and `pretty` otherwise (the text decoder reads
    /// both), BER is `ber` (whose decoder also reads OTP's values), PER is
    /// `per`, and native bytes name their configuration in their header
    /// byte.
    ///
    /// ```
    /// use megaco::codec::Encoding;
    ///
    /// let msg = megaco::text::decode(b"!/1 <mg> PN=5{}").unwrap();
    /// for encoding in Encoding::named() {
    ///     let bytes = encoding.encode(&msg).unwrap();
    ///     let guess = Encoding::guess(&bytes).unwrap();
    ///     assert_eq!(guess.decode(&bytes).unwrap(), encoding.decode(&bytes).unwrap());
    /// }
    /// assert!(Encoding::guess(b"GET / HTTP/1.1").is_none());
    /// ```
    pub fn guess(bytes: &[u8]) -> Option<Encoding> {
        Some(match super::sniff(bytes)? {
            Kind::Text if header(bytes).starts_with(b"!/") => Encoding::compact(),
            Kind::Text => Encoding::pretty(),
            Kind::Ber => Encoding::Ber(BerConfig::default()),
            Kind::Per => Encoding::Per(PerConfig::default()),
            #[cfg(feature = "native")]
            Kind::Native => {
                let flags = bytes[0] & 0x0F;
                Encoding::Native(NativeConfig {
                    compact: flags & 1 != 0,
                    compressed: flags & 2 != 0,
                    ..NativeConfig::PLAIN
                })
            }
            #[cfg(not(feature = "native"))]
            Kind::Native => return None,
        })
    }
}

/// Text from its header on: leading white space and `;` comments skipped.
fn header(mut rest: &[u8]) -> &[u8] {
    loop {
        match rest.first() {
            Some(b) if b.is_ascii_whitespace() => rest = &rest[1..],
            Some(b';') => {
                let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                rest = &rest[end..];
            }
            _ => return rest,
        }
    }
}

/// The family name and the options that differ from the family's default.
fn describe(shape: &Shape) -> (&'static str, Vec<String>) {
    fn levels(mapping: &Mapping) -> Option<String> {
        match mapping {
            Mapping::Text(l) if *l != TermIdLevels::default() => {
                let widths: Vec<String> = l.levels().iter().map(u8::to_string).collect();
                Some(format!("levels {}", widths.join(".")))
            }
            _ => None,
        }
    }
    let (family, flags, mapping): (_, &[&str], _) = match shape {
        Shape::Text(Style::Pretty) => ("pretty", &[], None),
        Shape::Text(Style::Compact) => ("compact", &[], None),
        Shape::Ber(dialect, mapping) => {
            let flags: &[&str] = match (dialect, mapping) {
                (Dialect::Standard, Mapping::Native) => &["standard", "native"],
                (Dialect::Otp, Mapping::Native) => &["native"],
                (Dialect::Otp, _) => &["otp"],
                (Dialect::Standard, _) => &[],
            };
            ("ber", flags, Some(mapping))
        }
        Shape::Per(mapping) => {
            let flags: &[&str] = if *mapping == Mapping::Native {
                &["native"]
            } else {
                &[]
            };
            ("per", flags, Some(mapping))
        }
        #[cfg(feature = "native")]
        Shape::Native {
            compact,
            compressed,
        } => {
            let flags: &[&str] = match (compact, compressed) {
                (false, false) => &[],
                (true, false) => &["compact"],
                (false, true) => &["compressed"],
                (true, true) => &["compact", "compressed"],
            };
            ("native", flags, None)
        }
    };
    let mut opts: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
    opts.extend(mapping.and_then(levels));
    (family, opts)
}

/// Writes the configuration's name (`ber [otp]`); a configuration that
/// is not one of [`Encoding::named`] (other termination-id levels, the
/// standard dialect without mapping) is written the same way with its
/// options (`ber [standard,native]`, `per [levels 4.4]`).
impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape = Shape::of(self);
        if let Some(e) = shape.entry() {
            return f.write_str(e.name);
        }
        let (family, opts) = describe(&shape);
        if opts.is_empty() {
            f.write_str(family)
        } else {
            write!(f, "{family} [{}]", opts.join(","))
        }
    }
}

/// A name that is no codec configuration, from [`Encoding`]'s `FromStr`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownEncoding {
    /// The name given.
    pub name: String,
}

impl fmt::Display for UnknownEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = ENTRIES.iter().map(|e| e.slug).collect();
        write!(
            f,
            "unknown encoding {:?}; known: {}",
            self.name,
            known.join(", ")
        )
    }
}

impl std::error::Error for UnknownEncoding {}

/// Reads a name (`ber [otp]`, `BER[OTP]`) or a slug (`ber-otp`),
/// ignoring case and spaces; the options in brackets may come in any
/// order (`native [compressed, compact]`). Besides the names of
/// [`Encoding::named`], `ber [standard,native]` is read.
///
/// ```
/// use megaco::codec::Encoding;
///
/// let e: Encoding = "ber-native".parse().unwrap();
/// assert_eq!(e.to_string(), "ber [native]");
/// assert_eq!("Native [compressed, compact]".parse::<Encoding>().unwrap().slug(),
///            Some("native-compact-compressed"));
/// assert!("ber [bogus]".parse::<Encoding>().is_err());
/// ```
impl FromStr for Encoding {
    type Err = UnknownEncoding;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let unknown = || UnknownEncoding {
            name: s.to_string(),
        };
        let flat: String = s
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        let (family, opts): (&str, Vec<&str>) = match flat.split_once('[') {
            Some((family, rest)) => {
                let inner = rest.strip_suffix(']').ok_or_else(unknown)?;
                (family, inner.split(',').collect())
            }
            None => {
                let mut parts = flat.split('-');
                let family = parts.next().unwrap_or_default();
                (family, parts.collect())
            }
        };
        let mut opts = opts;
        opts.sort_unstable();
        let has_dup = opts.windows(2).any(|w| w[0] == w[1]);
        if has_dup || opts.iter().any(|o| o.is_empty()) {
            return Err(unknown());
        }
        let encoding = match (family, opts.as_slice()) {
            ("pretty", []) => Encoding::pretty(),
            ("compact", []) => Encoding::compact(),
            ("ber", []) | ("ber", ["standard"]) => Encoding::Ber(BerConfig::default()),
            ("ber", ["otp"]) => Encoding::Ber(BerConfig::otp()),
            ("ber", ["native"]) | ("ber", ["native", "otp"]) => Encoding::Ber(BerConfig {
                mapping: Mapping::Native,
                ..BerConfig::otp()
            }),
            ("ber", ["native", "standard"]) => Encoding::Ber(BerConfig {
                mapping: Mapping::Native,
                ..BerConfig::default()
            }),
            ("per", []) => Encoding::Per(PerConfig::default()),
            ("per", ["native"]) => Encoding::Per(PerConfig::native()),
            #[cfg(feature = "native")]
            ("native", opts) => {
                let mut config = NativeConfig::PLAIN;
                for o in opts {
                    match *o {
                        "compact" => config.compact = true,
                        "compressed" => config.compressed = true,
                        _ => return Err(unknown()),
                    }
                }
                Encoding::Native(config)
            }
            _ => return Err(unknown()),
        };
        Ok(encoding)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_and_slug_reads_back_as_itself() {
        let named = Encoding::named();
        assert_eq!(named.len(), ENTRIES.len());
        for (e, entry) in named.iter().zip(ENTRIES) {
            assert_eq!(e.name(), Some(entry.name));
            assert_eq!(e.slug(), Some(entry.slug));
            assert_eq!(e.to_string(), entry.name);
            for text in [entry.name, entry.slug, &entry.name.to_uppercase()] {
                let back: Encoding = text.parse().unwrap();
                assert_eq!(Shape::of(&back), Shape::of(e), "{text}");
            }
        }
        // Names are unique, and so are slugs.
        for (i, a) in ENTRIES.iter().enumerate() {
            for b in &ENTRIES[i + 1..] {
                assert_ne!(a.name, b.name);
                assert_ne!(a.slug, b.slug);
            }
        }
    }

    #[test]
    fn the_constructors_have_names() {
        assert_eq!(Encoding::pretty().name(), Some("pretty"));
        assert_eq!(Encoding::compact().name(), Some("compact"));
        // Encoding::ber() is OTP's configuration, for OTP peers.
        assert_eq!(Encoding::ber().name(), Some("ber [otp]"));
        assert_eq!(Encoding::per().name(), Some("per"));
        #[cfg(feature = "native")]
        assert_eq!(Encoding::native().name(), Some("native"));
    }

    #[test]
    fn unnamed_configurations_show_their_options() {
        let standard_native = Encoding::Ber(BerConfig {
            mapping: Mapping::Native,
            ..BerConfig::default()
        });
        assert_eq!(standard_native.name(), None);
        assert_eq!(standard_native.to_string(), "ber [standard,native]");
        let back: Encoding = standard_native.to_string().parse().unwrap();
        assert_eq!(Shape::of(&back), Shape::of(&standard_native));

        let levels = Mapping::Text(TermIdLevels::new(&[4, 4]).unwrap());
        let per = Encoding::Per(PerConfig {
            mapping: levels.clone(),
            ..PerConfig::default()
        });
        assert_eq!(per.to_string(), "per [levels 4.4]");
        assert_eq!(per.slug(), None);
        let ber = Encoding::Ber(BerConfig {
            mapping: levels,
            ..BerConfig::otp()
        });
        assert_eq!(ber.to_string(), "ber [otp,levels 4.4]");
    }

    #[test]
    fn bad_names_are_refused_with_the_known_ones() {
        for bad in [
            "",
            "ber [",
            "ber []",
            "ber [otp,otp]",
            "ber [otp,standard]",
            "per-otp",
            "text",
            "native [fast]",
            "ber-",
        ] {
            let err = bad.parse::<Encoding>().unwrap_err();
            assert_eq!(err.name, bad);
            assert!(err
                .to_string()
                .contains("known: pretty, compact, ber, ber-otp"));
        }
    }

    #[test]
    fn extensions() {
        let exts: Vec<&str> = Encoding::named().iter().map(|e| e.extension()).collect();
        assert_eq!(exts[..7], ["txt", "txt", "ber", "ber", "ber", "per", "per"]);
    }

    #[test]
    fn guessing_text_styles() {
        let compact = Encoding::guess(b" ; a comment\n!/1 <mg> PN=1{}").unwrap();
        assert_eq!(compact.name(), Some("compact"));
        let pretty = Encoding::guess(b"; !/\nMEGACO/1 <mg> Pending = 1 { }").unwrap();
        assert_eq!(pretty.name(), Some("pretty"));
    }
}
