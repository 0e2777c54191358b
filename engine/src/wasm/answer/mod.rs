//! Answers handed to JavaScript packed into three arrays and one string, which a
//! small JavaScript function unpacks into plain objects.
//!
//! Built value by value from Rust, a route's answer (about 20 KB of JSON) took one
//! call into JavaScript per number, key and string, each key decoded from UTF-8 on
//! its own: about 0.2 ms, a third of a whole `safest` request. Packed, the numbers
//! cross as one `Float64Array` view, the structure as one `Uint32Array` view, every
//! distinct string once in one string, and JavaScript builds the objects itself.
//!
//! Answers are packed straight from their `Serialize` implementations, through
//! [`serializer`], without a JSON value in between. The objects are those of the
//! answer's JSON value (`serde_json::to_value`) as `serde-wasm-bindgen`'s
//! JSON-compatible serializer built them: the same members in the same order, a
//! number that is not finite as `null`, and an integer outside JavaScript's safe
//! range refused with an error rather than rounded.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use std::collections::HashMap;

use wasm_bindgen::prelude::*;

mod key_text;
mod pack_error;
mod serializer;

// Operation codes of the packed structure, read in order by `unpack`.
const NULL: u32 = 0;
const FALSE: u32 = 1;
const TRUE: u32 = 2;
/// The next number of `numbers`.
const NUMBER: u32 = 3;
/// Followed by the string's index.
const STRING: u32 = 4;
/// Followed by the length, then each item.
const ARRAY: u32 = 5;
/// Followed by the member count, then each member's key index and value.
const OBJECT: u32 = 6;

#[wasm_bindgen(inline_js = r"
export function unpack(ops, numbers, text, lengths) {
  const strings = new Array(lengths.length);
  for (let i = 0, at = 0; i < lengths.length; i++) {
    strings[i] = text.slice(at, at + lengths[i]);
    at += lengths[i];
  }
  let op = 0;
  let number = 0;
  const read = () => {
    switch (ops[op++]) {
      case 0: return null;
      case 1: return false;
      case 2: return true;
      case 3: return numbers[number++];
      case 4: return strings[ops[op++]];
      case 5: {
        const items = new Array(ops[op++]);
        for (let i = 0; i < items.length; i++) items[i] = read();
        return items;
      }
      default: {
        const object = {};
        for (let n = ops[op++]; n > 0; n--) {
          const key = strings[ops[op++]];
          object[key] = read();
        }
        return object;
      }
    }
  };
  return read();
}
")]
extern "C" {
    /// Builds the value a [`Packed`] holds (the slices are read during the call only).
    fn unpack(ops: &[u32], numbers: &[f64], text: &str, lengths: &[u32]) -> JsValue;
}

/// The JavaScript value of `value`.
///
/// # Errors
/// An `Error` for an integer outside JavaScript's safe range or a map key that is
/// a float or a compound.
pub(super) fn to_js<T: serde::Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let mut packed = Packed::default();
    value.serialize(&mut packed)?;
    Ok(packed.unpack())
}

/// A value as `unpack` reads it: each distinct string once, by UTF-16 length.
#[derive(Default)]
struct Packed {
    ops: Vec<u32>,
    numbers: Vec<f64>,
    text: String,
    lengths: Vec<u32>,
    indexes: HashMap<Box<str>, u32>,
}

impl Packed {
    fn unpack(&self) -> JsValue {
        unpack(&self.ops, &self.numbers, &self.text, &self.lengths)
    }

    fn string(&mut self, text: &str) -> u32 {
        if let Some(&index) = self.indexes.get(text) {
            return index;
        }
        let index = count(self.lengths.len());
        self.text.push_str(text);
        self.lengths.push(count(text.encode_utf16().count()));
        self.indexes.insert(text.into(), index);
        index
    }
}

/// A length as the packed structure holds it: `usize` is 32 bits in wasm32.
fn count(length: usize) -> u32 {
    length as u32
}
