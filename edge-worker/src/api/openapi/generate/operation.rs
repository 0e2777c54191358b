//! What a document says of one operation beyond its row of the route table: its
//! name and prose, the types of its parameters, body and answer, and the error
//! answers particular to it. Method, path, access, cache policy and the answers
//! every operation of its access gets come from the row (`super::paths`).

use http::Method;
use schemars::{JsonSchema, Schema, SchemaGenerator};

/// A type's schema, as a table names it: `schema::<T>` or `parameters::<T>`.
pub(super) type SchemaOf = fn(&mut SchemaGenerator) -> Schema;

/// The schema of `T`: a reference to its component, or the schema itself for a
/// type that is always inline.
pub(super) fn schema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// The object schema of `T` itself, never a reference: the parameters of an
/// operation, one property each (those the path names are path parameters).
pub(super) fn parameters<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    T::json_schema(generator)
}

/// The media type of JSON.
pub(super) const JSON: &str = "application/json";

/// The schema of an OpenAPI document: the answer of each document's own row.
pub(super) fn openapi_document(_: &mut SchemaGenerator) -> Schema {
    schemars::json_schema!({ "type": "object", "description": "An OpenAPI 3.1 document." })
}

/// An operation of a document.
pub(super) struct Operation {
    /// Its row's method.
    pub method: Method,
    /// Its row's path, as the route table spells it.
    pub path: &'static str,
    /// `operationId`.
    pub id: &'static str,
    /// One line.
    pub summary: &'static str,
    /// More, where a line is not enough.
    pub description: Option<&'static str>,
    /// Its path and query parameters: an object type's properties.
    pub parameters: Option<SchemaOf>,
    /// Its JSON body.
    pub body: Option<SchemaOf>,
    /// Its successful answer.
    pub success: Success,
    /// Its other answers, by status, beyond those its access gives every operation:
    /// errors, with the error body, and a body-less `204` (which HTTP gives no body).
    pub errors: &'static [(u16, &'static str)],
}

/// A successful answer.
pub(super) struct Success {
    /// `200`, or `201` for a creation.
    pub status: u16,
    /// What it is.
    pub description: &'static str,
    /// Its body.
    pub content: Content,
    /// Headers beyond those of its row (a session's `Set-Cookie`), by component name.
    pub headers: &'static [&'static str],
}

/// The body of an answer.
pub(super) enum Content {
    /// JSON of a type.
    Json(SchemaOf),
    /// One body in each of several media types.
    #[allow(
        dead_code,
        reason = "the router's map layers answer JSON or GeoJSON, and tiles"
    )]
    Media(&'static [(&'static str, SchemaOf)]),
}

impl Success {
    /// `200` with a JSON body.
    pub(super) const fn json(description: &'static str, body: SchemaOf) -> Self {
        Self {
            status: 200,
            description,
            content: Content::Json(body),
            headers: &[],
        }
    }
}
