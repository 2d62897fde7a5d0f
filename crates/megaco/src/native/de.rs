//! Reader of the native format: a serde `Deserializer` over a byte slice.
//!
//! The format is not self-describing: the model's types drive the reading,
//! so `deserialize_any` is refused.
use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use super::names;
use crate::codec::Kind;
use crate::error::{DecodeError, DecodeErrorKind as K, Limit};
use crate::{Limits, MegacoMessage};

/// Reads one message body (no header) filling all of `input`; `base` is
/// added to the offsets in errors.
pub(super) fn read(
    input: &[u8],
    compact: bool,
    base: usize,
    limits: &Limits,
) -> Result<MegacoMessage, DecodeError> {
    let mut reader = Reader {
        input,
        pos: 0,
        compact,
        depth: 0,
        limits,
    };
    let result = <MegacoMessage as de::Deserialize>::deserialize(&mut reader);
    let at = |offset: Option<usize>, pos: usize| base + offset.unwrap_or(pos);
    match result {
        Ok(msg) if reader.pos == input.len() => Ok(msg),
        Ok(_) => Err(DecodeError::new(
            Kind::Native,
            base + reader.pos,
            K::TrailingData {
                len: input.len() - reader.pos,
            },
        )),
        Err(e) => Err(DecodeError::new(
            Kind::Native,
            at(e.offset, reader.pos),
            e.kind,
        )),
    }
}

/// Error while reading; `offset` is `None` for errors raised by serde's
/// derived code, which know no position.
#[derive(Debug)]
pub(super) struct DeError {
    offset: Option<usize>,
    kind: K,
}

impl std::fmt::Display for DeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.kind.fmt(f)
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        DeError {
            offset: None,
            kind: K::Invalid {
                what: "model value",
                detail: msg.to_string().into(),
            },
        }
    }
}

struct Reader<'de> {
    input: &'de [u8],
    pos: usize,
    compact: bool,
    /// Open containers (sequences, maps, structs, tuples).
    depth: usize,
    limits: &'de Limits,
}

type Res<T> = Result<T, DeError>;

#[cold]
fn varint(what: &'static str) -> K {
    K::Invalid {
        what: "varint",
        detail: format!("too long or too large for {what}").into(),
    }
}

impl<'de> Reader<'de> {
    #[cold]
    fn err(&self, kind: K) -> DeError {
        DeError {
            offset: Some(self.pos),
            kind,
        }
    }

    #[inline]
    fn byte(&mut self) -> Res<u8> {
        match self.input.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.err(K::Truncated {
                expected: "the rest of the message",
            })),
        }
    }

    #[inline]
    fn varint(&mut self, max_bytes: u32, what: &'static str) -> Res<u64> {
        let start = self.pos;
        let mut value: u64 = 0;
        for i in 0..max_bytes {
            let b = self.byte()?;
            value |= u64::from(b & 0x7F) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        self.pos = start;
        Err(self.err(varint(what)))
    }

    fn u16(&mut self) -> Res<u16> {
        let start = self.pos;
        let v = self.varint(3, "u16")?;
        u16::try_from(v).map_err(|_| {
            self.pos = start;
            self.err(varint("u16"))
        })
    }

    fn u32(&mut self) -> Res<u32> {
        let start = self.pos;
        let v = self.varint(5, "u32")?;
        u32::try_from(v).map_err(|_| {
            self.pos = start;
            self.err(varint("u32"))
        })
    }

    fn u64(&mut self) -> Res<u64> {
        self.varint(10, "u64")
    }

    fn remaining(&self) -> usize {
        self.input.len() - self.pos
    }

    /// A length that must not exceed the remaining input (every item of
    /// a sequence takes at least one byte).
    fn length(&mut self, len: u64) -> Res<usize> {
        let remaining = self.remaining();
        match usize::try_from(len) {
            Ok(n) if n <= remaining => Ok(n),
            _ => Err(self.err(K::BadLength {
                detail: format!("length {len} exceeds the {remaining} bytes remaining").into(),
            })),
        }
    }

    /// A string length within the remaining input and the limit.
    fn string_length(&mut self, len: u64) -> Res<usize> {
        let limit = self.limits.max_string_len;
        self.length_within(len, limit, Limit::StringLen)
    }

    /// A list length within the remaining input and the limit.
    fn list_length(&mut self, len: u64) -> Res<usize> {
        let limit = self.limits.max_list_len;
        self.length_within(len, limit, Limit::ListLen)
    }

    fn length_within(&mut self, len: u64, limit: usize, which: Limit) -> Res<usize> {
        let n = self.length(len)?;
        if n > limit {
            return Err(self.err(K::LimitExceeded {
                limit: which,
                max: limit,
                found: Some(n),
            }));
        }
        Ok(n)
    }

    /// Reads `left` items one level deeper.
    fn nested<V, F>(&mut self, left: usize, visit: F) -> Res<V>
    where
        F: FnOnce(Items<'_, 'de>) -> Res<V>,
    {
        if self.depth >= self.limits.max_depth {
            return Err(self.err(K::LimitExceeded {
                limit: Limit::Depth,
                max: self.limits.max_depth,
                found: None,
            }));
        }
        self.depth += 1;
        let r = visit(Items {
            reader: &mut *self,
            left,
        });
        self.depth -= 1;
        r
    }

    fn take(&mut self, n: usize) -> &'de [u8] {
        let s = &self.input[self.pos..self.pos + n];
        self.pos += n;
        s
    }

    fn byte_string(&mut self) -> Res<&'de [u8]> {
        let len = self.u64()?;
        let n = self.string_length(len)?;
        Ok(self.take(n))
    }

    fn text(&mut self, raw: &'de [u8], start: usize) -> Res<&'de str> {
        std::str::from_utf8(raw).map_err(|_| DeError {
            offset: Some(start),
            kind: K::InvalidUtf8,
        })
    }

    fn str(&mut self) -> Res<&'de str> {
        let start = self.pos;
        if self.compact {
            let tag = self.u64()?;
            if tag & 1 == 1 {
                let code = tag >> 1;
                return names::name_of(code).ok_or_else(|| DeError {
                    offset: Some(start),
                    kind: K::Invalid {
                        what: "string code",
                        detail: format!("{code} is not in the table").into(),
                    },
                });
            }
            let n = self.string_length(tag >> 1)?;
            let raw = self.take(n);
            self.text(raw, start)
        } else {
            let raw = self.byte_string()?;
            self.text(raw, start)
        }
    }

    fn flag(&mut self, expected: &'static str) -> Res<bool> {
        match self.byte()? {
            0 => Ok(false),
            1 => Ok(true),
            found => {
                self.pos -= 1;
                Err(self.err(K::Unexpected {
                    expected,
                    found: found.to_string().into(),
                }))
            }
        }
    }
}

impl<'de> de::Deserializer<'de> for &mut Reader<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Res<V::Value> {
        Err(de::Error::custom(
            "the native format is not self-describing",
        ))
    }
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        visitor.visit_bool(self.flag("a bool (0 or 1)")?)
    }
    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        visitor.visit_i8(self.byte()? as i8)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        let z = self.u64()?;
        visitor.visit_i64(((z >> 1) as i64) ^ -((z & 1) as i64))
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        visitor.visit_u8(self.byte()?)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        visitor.visit_u16(self.u16()?)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        visitor.visit_u32(self.u32()?)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        visitor.visit_u64(self.u64()?)
    }
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        let mut b = [0u8; 4];
        for x in &mut b {
            *x = self.byte()?;
        }
        visitor.visit_f32(f32::from_le_bytes(b))
    }
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        let mut b = [0u8; 8];
        for x in &mut b {
            *x = self.byte()?;
        }
        visitor.visit_f64(f64::from_le_bytes(b))
    }
    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        let start = self.pos;
        let v = self.u32()?;
        match char::from_u32(v) {
            Some(c) => visitor.visit_char(c),
            None => Err(DeError {
                offset: Some(start),
                kind: K::Invalid {
                    what: "char",
                    detail: format!("{v:#x} is not a char").into(),
                },
            }),
        }
    }
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        visitor.visit_borrowed_str(self.str()?)
    }
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        visitor.visit_borrowed_str(self.str()?)
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        visitor.visit_borrowed_bytes(self.byte_string()?)
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        visitor.visit_borrowed_bytes(self.byte_string()?)
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        if self.flag("an Option tag (0 or 1)")? {
            visitor.visit_some(self)
        } else {
            visitor.visit_none()
        }
    }
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        visitor.visit_unit()
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Res<V::Value> {
        visitor.visit_unit()
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Res<V::Value> {
        visitor.visit_newtype_struct(self)
    }
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        let len = self.u64()?;
        let n = self.list_length(len)?;
        self.nested(n, |items| visitor.visit_seq(items))
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Res<V::Value> {
        self.nested(len, |items| visitor.visit_seq(items))
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Res<V::Value> {
        self.deserialize_tuple(len, visitor)
    }
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        let len = self.u64()?;
        let n = self.list_length(len)?;
        self.nested(n, |items| visitor.visit_map(items))
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Res<V::Value> {
        self.deserialize_tuple(fields.len(), visitor)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Res<V::Value> {
        visitor.visit_enum(self)
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Res<V::Value> {
        visitor.visit_u32(self.u32()?)
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, _visitor: V) -> Res<V::Value> {
        Err(de::Error::custom("the native format cannot skip values"))
    }
    fn is_human_readable(&self) -> bool {
        false
    }
}

/// A counted run of items (sequence, tuple, struct fields, map entries).
struct Items<'a, 'de> {
    reader: &'a mut Reader<'de>,
    left: usize,
}

impl<'de> de::SeqAccess<'de> for Items<'_, 'de> {
    type Error = DeError;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Res<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.reader).map(Some)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

impl<'de> de::MapAccess<'de> for Items<'_, 'de> {
    type Error = DeError;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Res<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.reader).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Res<V::Value> {
        seed.deserialize(&mut *self.reader)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

impl<'de> de::EnumAccess<'de> for &mut Reader<'de> {
    type Error = DeError;
    type Variant = Self;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Res<(V::Value, Self)> {
        let start = self.pos;
        let index = self.u32()?;
        let value = seed
            .deserialize(index.into_deserializer())
            .map_err(|e: DeError| DeError {
                offset: Some(start),
                kind: e.kind,
            })?;
        Ok((value, self))
    }
}

impl<'de> de::VariantAccess<'de> for &mut Reader<'de> {
    type Error = DeError;
    fn unit_variant(self) -> Res<()> {
        Ok(())
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Res<T::Value> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Res<V::Value> {
        de::Deserializer::deserialize_tuple(self, len, visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Res<V::Value> {
        de::Deserializer::deserialize_tuple(self, fields.len(), visitor)
    }
}
