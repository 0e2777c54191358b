//! `serde::Serializer` for [`Packed`]: an answer packed as its JSON value would be
//! (`serde_json::to_value`), without building that value. Unit, `None` and numbers
//! that are not finite are `null`; bytes are arrays of numbers; a variant with data
//! is an object of one member named after it; map keys as [`KeyText`] writes them.

use alloc::string::String;
use core::fmt::Display;

use serde::Serialize;
use serde::ser;

use super::key_text::KeyText;
use super::pack_error::PackError;
use super::{ARRAY, FALSE, NULL, NUMBER, OBJECT, Packed, STRING, TRUE};

/// The largest integer JavaScript numbers hold exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

fn unsafe_integer(value: impl Display) -> PackError {
    PackError(alloc::format!(
        "{value} can't be represented as a JavaScript number"
    ))
}

impl Packed {
    fn number(&mut self, value: f64) {
        if value.is_finite() {
            self.ops.push(NUMBER);
            self.numbers.push(value);
        } else {
            self.ops.push(NULL);
        }
    }

    fn unsigned(&mut self, value: u64) -> Result<(), PackError> {
        if value > MAX_SAFE_INTEGER {
            return Err(unsafe_integer(value));
        }
        self.number(value as f64);
        Ok(())
    }

    fn signed(&mut self, value: i64) -> Result<(), PackError> {
        if value.unsigned_abs() > MAX_SAFE_INTEGER {
            return Err(unsafe_integer(value));
        }
        self.number(value as f64);
        Ok(())
    }

    fn text(&mut self, text: &str) {
        let index = self.string(text);
        self.ops.extend([STRING, index]);
    }

    /// Opens an array or object whose length is written by [`Compound::close`].
    fn open(&mut self, op: u32) -> Compound<'_> {
        self.ops.extend([op, 0]);
        let slot = self.ops.len() - 1;
        Compound {
            packed: self,
            slot,
            items: 0,
        }
    }

    /// Opens an object of one member named `variant`, holding an open array or object.
    fn open_variant(&mut self, variant: &str, op: u32) -> Compound<'_> {
        let key = self.string(variant);
        self.ops.extend([OBJECT, 1, key]);
        self.open(op)
    }
}

/// An open array or object: counts its items and writes the count when closed.
pub(super) struct Compound<'a> {
    packed: &'a mut Packed,
    slot: usize,
    items: u32,
}

impl Compound<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), PackError> {
        value.serialize(&mut *self.packed)?;
        self.items += 1;
        Ok(())
    }

    fn entry<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), PackError> {
        let index = self.packed.string(key);
        self.packed.ops.push(index);
        value.serialize(&mut *self.packed)?;
        self.items += 1;
        Ok(())
    }

    fn close(self) {
        self.packed.ops[self.slot] = self.items;
    }
}

impl<'a> ser::Serializer for &'a mut Packed {
    type Ok = ();
    type Error = PackError;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = MapCompound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, value: bool) -> Result<(), PackError> {
        self.ops.push(if value { TRUE } else { FALSE });
        Ok(())
    }

    fn serialize_i8(self, value: i8) -> Result<(), PackError> {
        self.serialize_i64(value.into())
    }

    fn serialize_i16(self, value: i16) -> Result<(), PackError> {
        self.serialize_i64(value.into())
    }

    fn serialize_i32(self, value: i32) -> Result<(), PackError> {
        self.serialize_i64(value.into())
    }

    fn serialize_i64(self, value: i64) -> Result<(), PackError> {
        self.signed(value)
    }

    fn serialize_i128(self, value: i128) -> Result<(), PackError> {
        match (u64::try_from(value), i64::try_from(value)) {
            (Ok(value), _) => self.unsigned(value),
            (_, Ok(value)) => self.signed(value),
            _ => Err(PackError("number out of range".into())),
        }
    }

    fn serialize_u8(self, value: u8) -> Result<(), PackError> {
        self.serialize_u64(value.into())
    }

    fn serialize_u16(self, value: u16) -> Result<(), PackError> {
        self.serialize_u64(value.into())
    }

    fn serialize_u32(self, value: u32) -> Result<(), PackError> {
        self.serialize_u64(value.into())
    }

    fn serialize_u64(self, value: u64) -> Result<(), PackError> {
        self.unsigned(value)
    }

    fn serialize_u128(self, value: u128) -> Result<(), PackError> {
        u64::try_from(value)
            .map_err(|_| PackError("number out of range".into()))
            .and_then(|value| self.unsigned(value))
    }

    fn serialize_f32(self, value: f32) -> Result<(), PackError> {
        self.serialize_f64(value.into())
    }

    fn serialize_f64(self, value: f64) -> Result<(), PackError> {
        self.number(value);
        Ok(())
    }

    fn serialize_char(self, value: char) -> Result<(), PackError> {
        self.serialize_str(value.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, value: &str) -> Result<(), PackError> {
        self.text(value);
        Ok(())
    }

    fn serialize_bytes(self, value: &[u8]) -> Result<(), PackError> {
        let mut array = self.open(ARRAY);
        for byte in value {
            array.element(byte)?;
        }
        array.close();
        Ok(())
    }

    fn serialize_none(self) -> Result<(), PackError> {
        self.serialize_unit()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), PackError> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), PackError> {
        self.ops.push(NULL);
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), PackError> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), PackError> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), PackError> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), PackError> {
        let mut object = self.open(OBJECT);
        object.entry(variant, value)?;
        object.close();
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, PackError> {
        Ok(self.open(ARRAY))
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'a>, PackError> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'a>, PackError> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, PackError> {
        Ok(self.open_variant(variant, ARRAY))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<MapCompound<'a>, PackError> {
        Ok(MapCompound {
            object: self.open(OBJECT),
            key: None,
        })
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'a>, PackError> {
        Ok(self.open(OBJECT))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, PackError> {
        Ok(self.open_variant(variant, OBJECT))
    }
}

/// The compound serializers of arrays (a variant's tuple data included): each
/// element packed in turn.
macro_rules! packs_elements {
    ($($compound:ident :: $method:ident),*) => {$(
        impl ser::$compound for Compound<'_> {
            type Ok = ();
            type Error = PackError;

            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), PackError> {
                self.element(value)
            }

            fn end(self) -> Result<(), PackError> {
                self.close();
                Ok(())
            }
        }
    )*};
}

packs_elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// The compound serializers of objects (a variant's struct data included): each
/// field packed as a member.
macro_rules! packs_fields {
    ($($compound:ident),*) => {$(
        impl ser::$compound for Compound<'_> {
            type Ok = ();
            type Error = PackError;

            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), PackError> {
                self.entry(key, value)
            }

            fn end(self) -> Result<(), PackError> {
                self.close();
                Ok(())
            }
        }
    )*};
}

packs_fields!(SerializeStruct, SerializeStructVariant);

/// An open object whose members come as keys and values.
pub(super) struct MapCompound<'a> {
    object: Compound<'a>,
    key: Option<String>,
}

impl ser::SerializeMap for MapCompound<'_> {
    type Ok = ();
    type Error = PackError;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), PackError> {
        self.key = Some(key.serialize(KeyText)?);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), PackError> {
        let key = self
            .key
            .take()
            .ok_or_else(|| PackError("a map value without its key".into()))?;
        self.object.entry(&key, value)
    }

    fn end(self) -> Result<(), PackError> {
        self.object.close();
        Ok(())
    }
}
