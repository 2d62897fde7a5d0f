//! Writer of the native format: a serde `Serializer` into a byte vector.
use serde::ser::{self, Serialize};

use super::names;
use crate::EncodeError;

/// Appends the body of `value` (no header) to `out`.
pub(super) fn write<T: Serialize + ?Sized>(
    value: &T,
    compact: bool,
    max_depth: usize,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    value
        .serialize(&mut Writer {
            out,
            compact,
            depth: 0,
            max_depth,
        })
        .map_err(|e| EncodeError::Invalid {
            what: "native",
            detail: e.0,
        })
}

/// Error of the writer (only for what serde cannot express here).
#[derive(Debug)]
pub(super) struct SerError(String);

impl std::fmt::Display for SerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SerError {}

impl ser::Error for SerError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        SerError(msg.to_string())
    }
}

struct Writer<'a> {
    out: &'a mut Vec<u8>,
    compact: bool,
    /// Open containers (sequences, maps, structs, tuples): the reader
    /// refuses nesting deeper than its limit, so the writer does too.
    depth: usize,
    max_depth: usize,
}

/// Appends `v` as an unsigned LEB128 varint.
#[inline]
pub(super) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

impl Writer<'_> {
    #[inline]
    fn varint(&mut self, v: u64) {
        put_varint(self.out, v);
    }

    /// Opens a container, one level deeper.
    #[inline]
    fn enter(&mut self) -> Res {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(SerError(format!(
                "nested deeper than max_depth {}",
                self.max_depth
            )));
        }
        Ok(())
    }

    #[inline]
    fn bytes(&mut self, b: &[u8]) {
        self.varint(b.len() as u64);
        self.out.extend_from_slice(b);
    }
}

type Res = Result<(), SerError>;

impl<'a, 'b> ser::Serializer for &'a mut Writer<'b> {
    type Ok = ();
    type Error = SerError;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, v: bool) -> Res {
        self.out.push(u8::from(v));
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Res {
        self.out.push(v as u8);
        Ok(())
    }
    fn serialize_i16(self, v: i16) -> Res {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Res {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Res {
        // Zig-zag, so that small negative numbers stay short.
        self.varint(((v << 1) ^ (v >> 63)) as u64);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Res {
        self.out.push(v);
        Ok(())
    }
    fn serialize_u16(self, v: u16) -> Res {
        self.varint(v.into());
        Ok(())
    }
    fn serialize_u32(self, v: u32) -> Res {
        self.varint(v.into());
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> Res {
        self.varint(v);
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Res {
        self.out.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Res {
        self.out.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_char(self, v: char) -> Res {
        self.varint(u32::from(v).into());
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Res {
        if self.compact {
            if let Some(code) = names::code_of(v) {
                self.varint((u64::from(code) << 1) | 1);
            } else {
                self.varint((v.len() as u64) << 1);
                self.out.extend_from_slice(v.as_bytes());
            }
        } else {
            self.bytes(v.as_bytes());
        }
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Res {
        self.bytes(v);
        Ok(())
    }
    fn serialize_none(self) -> Res {
        self.out.push(0);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Res {
        self.out.push(1);
        value.serialize(self)
    }
    fn serialize_unit(self) -> Res {
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Res {
        Ok(())
    }
    fn serialize_unit_variant(self, _name: &'static str, index: u32, _v: &'static str) -> Res {
        self.varint(index.into());
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Res {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
        value: &T,
    ) -> Res {
        self.varint(index.into());
        value.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self, SerError> {
        let len = len.ok_or_else(|| SerError("sequence without a known length".into()))?;
        self.varint(len as u64);
        self.enter()?;
        Ok(self)
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self, SerError> {
        self.enter()?;
        Ok(self)
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Self, SerError> {
        self.enter()?;
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self, SerError> {
        self.varint(index.into());
        self.enter()?;
        Ok(self)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self, SerError> {
        let len = len.ok_or_else(|| SerError("map without a known length".into()))?;
        self.varint(len as u64);
        self.enter()?;
        Ok(self)
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self, SerError> {
        self.enter()?;
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self, SerError> {
        self.varint(index.into());
        self.enter()?;
        Ok(self)
    }
    fn is_human_readable(&self) -> bool {
        false
    }
}

macro_rules! compound {
    ($($trait:ident :: $method:ident),*) => {
        $(
            impl ser::$trait for &mut Writer<'_> {
                type Ok = ();
                type Error = SerError;
                #[inline]
                fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Res {
                    value.serialize(&mut **self)
                }
                #[inline]
                fn end(self) -> Res {
                    self.depth -= 1;
                    Ok(())
                }
            }
        )*
    };
}

compound!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for &mut Writer<'_> {
    type Ok = ();
    type Error = SerError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Res {
        key.serialize(&mut **self)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Res {
        value.serialize(&mut **self)
    }
    fn end(self) -> Res {
        self.depth -= 1;
        Ok(())
    }
}

impl ser::SerializeStruct for &mut Writer<'_> {
    type Ok = ();
    type Error = SerError;
    #[inline]
    fn serialize_field<T: Serialize + ?Sized>(&mut self, _key: &'static str, value: &T) -> Res {
        value.serialize(&mut **self)
    }
    fn end(self) -> Res {
        self.depth -= 1;
        Ok(())
    }
}

impl ser::SerializeStructVariant for &mut Writer<'_> {
    type Ok = ();
    type Error = SerError;
    #[inline]
    fn serialize_field<T: Serialize + ?Sized>(&mut self, _key: &'static str, value: &T) -> Res {
        value.serialize(&mut **self)
    }
    fn end(self) -> Res {
        self.depth -= 1;
        Ok(())
    }
}
