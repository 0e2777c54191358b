//! The partner portal's input parsers on arbitrary bytes: the first byte picks an
//! application body, a key's settings, one browser origin or a `Cookie` header, the
//! rest is the input. Errors are fine; panics are not.
#![no_main]

use chrono::{DateTime, Utc};
use hexrisk_edge::api::portal::applications::Application;
use hexrisk_edge::api::portal::partner_keys::KeySettings;
use hexrisk_edge::api::portal::{origins, sessions};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

fn body(bytes: &[u8]) -> Option<Map<String, Value>> {
    match serde_json::from_slice(bytes) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let now: DateTime<Utc> = DateTime::from_timestamp(1_764_000_000, 0).unwrap_or_default();
    match which % 4 {
        0 => {
            if let Some(body) = body(rest) {
                let _ = Application::parse(&body);
            }
        }
        1 => {
            if let Some(body) = body(rest) {
                let _ = KeySettings::parse(&body, now);
            }
        }
        2 => {
            if let Ok(text) = std::str::from_utf8(rest) {
                let _ = origins::normalise(text);
            }
        }
        _ => {
            if let Ok(text) = std::str::from_utf8(rest) {
                let _ = sessions::id_in(Some(text));
            }
        }
    }
});
