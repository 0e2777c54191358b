//! Map keys as the text of object members' names: strings, characters, integers and
//! booleans, as `serde_json` writes them. Unlike `serde_json`, which writes a finite
//! float key in its own shortest form, a float key is refused: no answer has one,
//! and Rust's float formatting would not spell every one alike.

use alloc::string::{String, ToString};

use serde::Serialize;
use serde::ser::{self, Impossible};

use super::pack_error::PackError;

/// Map keys that are integers, written in decimal.
macro_rules! integer_keys {
    ($($method:ident: $type:ty),*) => {$(
        fn $method(self, value: $type) -> Result<String, PackError> {
            Ok(value.to_string())
        }
    )*};
}

/// Map keys that JSON cannot name a member with.
macro_rules! refused_keys {
    ($($method:ident: $type:ty),*) => {$(
        fn $method(self, _value: $type) -> Result<String, PackError> {
            Err(key_must_be_text())
        }
    )*};
}

/// A map key as the text of an object member's name (see the module's doc).
pub(super) struct KeyText;

fn key_must_be_text() -> PackError {
    PackError("key must be a string".into())
}

impl ser::Serializer for KeyText {
    type Ok = String;
    type Error = PackError;
    type SerializeSeq = Impossible<String, PackError>;
    type SerializeTuple = Impossible<String, PackError>;
    type SerializeTupleStruct = Impossible<String, PackError>;
    type SerializeTupleVariant = Impossible<String, PackError>;
    type SerializeMap = Impossible<String, PackError>;
    type SerializeStruct = Impossible<String, PackError>;
    type SerializeStructVariant = Impossible<String, PackError>;

    fn serialize_str(self, value: &str) -> Result<String, PackError> {
        Ok(value.into())
    }

    fn serialize_char(self, value: char) -> Result<String, PackError> {
        Ok(value.to_string())
    }

    integer_keys!(
        serialize_i8: i8,
        serialize_i16: i16,
        serialize_i32: i32,
        serialize_i64: i64,
        serialize_u8: u8,
        serialize_u16: u16,
        serialize_u32: u32,
        serialize_u64: u64,
        serialize_i128: i128,
        serialize_u128: u128
    );

    fn serialize_bool(self, value: bool) -> Result<String, PackError> {
        Ok(if value { "true" } else { "false" }.into())
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<String, PackError> {
        Ok(variant.into())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<String, PackError> {
        value.serialize(self)
    }

    refused_keys!(
        serialize_f32: f32,
        serialize_f64: f64,
        serialize_bytes: &[u8]
    );

    fn serialize_none(self) -> Result<String, PackError> {
        Err(key_must_be_text())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<String, PackError> {
        Err(key_must_be_text())
    }

    fn serialize_unit(self) -> Result<String, PackError> {
        Err(key_must_be_text())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<String, PackError> {
        Err(key_must_be_text())
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<String, PackError> {
        Err(key_must_be_text())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, PackError> {
        Err(key_must_be_text())
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, PackError> {
        Err(key_must_be_text())
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, PackError> {
        Err(key_must_be_text())
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, PackError> {
        Err(key_must_be_text())
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, PackError> {
        Err(key_must_be_text())
    }

    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, PackError> {
        Err(key_must_be_text())
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, PackError> {
        Err(key_must_be_text())
    }
}
