//! Why an answer could not be packed, thrown to JavaScript as an `Error`.

use alloc::string::{String, ToString};
use core::fmt::Display;

use serde::ser;
use wasm_bindgen::JsValue;

/// Why an answer could not be packed (the `Error`'s message).
#[derive(Debug)]
pub(super) struct PackError(pub(super) String);

impl Display for PackError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PackError {}

impl ser::Error for PackError {
    fn custom<T: Display>(message: T) -> Self {
        Self(message.to_string())
    }
}

impl From<PackError> for JsValue {
    fn from(error: PackError) -> Self {
        js_sys::Error::new(&error.0).into()
    }
}
