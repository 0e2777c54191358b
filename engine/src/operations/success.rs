//! The `"status": "success"` that every successful answer of both APIs opens with,
//! as a type: an answer struct names it as its first field, and its schema is the
//! constant.

/// The `status` member of a successful answer: always the text `success`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Success;

impl serde::Serialize for Success {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str("success")
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Success {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> alloc::borrow::Cow<'static, str> {
        "Success".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "const": "success" })
    }
}
