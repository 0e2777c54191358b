//! For the tests: that a request type which describes a hand-written parser (for the
//! OpenAPI document) is the real description of what the parser accepts. An example
//! with a value for every field reads into the type, the parser accepts it (a query
//! as the text a query string gives), and, with the schemas built, the example has
//! every property the type's schema documents and no other.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::QueryError;

/// Checks that `example` (an object) describes a request of type `T` that `parse`
/// accepts; `as_query` hands `parse` the example as query-string text.
///
/// # Panics
/// When it does not.
pub(crate) fn check<T, A>(
    example: &Value,
    as_query: bool,
    parse: impl FnOnce(&Map<String, Value>) -> Result<A, QueryError>,
) where
    T: DeserializeOwned + schema::MaybeSchema,
{
    let Value::Object(fields) = example else {
        panic!("an example is an object");
    };
    if let Err(e) = serde_json::from_value::<T>(example.clone()) {
        panic!("the example does not read into the described type: {e}");
    }
    let given: Map<String, Value> = if as_query {
        fields
            .iter()
            .map(|(name, value)| {
                let text = match value {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                (name.clone(), Value::String(text))
            })
            .collect()
    } else {
        fields.clone()
    };
    if let Err(e) = parse(&given) {
        panic!("the parser refuses the described example: {e:?}");
    }
    if let Some(mut documented) = T::properties() {
        let mut keys: Vec<String> = fields.keys().cloned().collect();
        keys.sort();
        documented.sort();
        assert_eq!(
            keys, documented,
            "the example's fields are the documented ones"
        );
    }
}

#[cfg(feature = "schema")]
mod schema {
    use alloc::string::String;
    use alloc::vec::Vec;

    /// The top-level properties of a type's schema (those of flattened members among
    /// them), with the schemas built.
    pub(crate) trait MaybeSchema {
        fn properties() -> Option<Vec<String>>;
    }

    impl<T: schemars::JsonSchema> MaybeSchema for T {
        fn properties() -> Option<Vec<String>> {
            let schema = schemars::SchemaGenerator::default().into_root_schema_for::<T>();
            let properties = schema.get("properties")?.as_object()?;
            Some(properties.keys().cloned().collect())
        }
    }
}

#[cfg(not(feature = "schema"))]
mod schema {
    use alloc::string::String;
    use alloc::vec::Vec;

    /// Without the schemas, nothing to compare.
    pub(crate) trait MaybeSchema {
        fn properties() -> Option<Vec<String>> {
            None
        }
    }

    impl<T> MaybeSchema for T {}
}
