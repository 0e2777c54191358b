//! The three OpenAPI documents, generated from the route table and the request and
//! answer types (their `schemars` schemas). The tests compare each with the file the
//! Worker serves (`edge-worker/openapi/*.json`) and, with `UPDATE_OPENAPI=1`
//! (`make openapi`), write it, as rust-analyzer's source generation does: the
//! served text is a build input, never edited by hand.
//!
//! A document is its rows of the table (method, path, access, cache policy), each
//! with its entry in the document's table of operations (`prediction`, `router`,
//! `portal`): names, prose, and the types of its parameters, body and answer.
//!
//! schemars, rather than utoipa or aide: utoipa hangs an operation on one handler
//! `fn` through `#[utoipa::path]`, aide on an axum-style router; an endpoint here is a
//! row of a `static` table, which neither knows. schemars gives the types' schemas
//! alone (the derive reads serde's attributes, so a schema follows the serialisation),
//! and the table gives the rest.

mod headers;
mod operation;
mod paths;
mod portal;
mod prediction;
mod router;

use schemars::SchemaGenerator;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use self::operation::Operation;
use crate::api::routes::{Answer, ROUTES, Route};

/// One of the documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Api {
    /// `GET /v1/openapi.json`.
    Prediction,
    /// `GET /openapi.json`.
    Router,
    /// `GET /portal/api/openapi.json`.
    Portal,
}

impl Api {
    /// The file the Worker serves, under `edge-worker/`.
    pub(super) const fn file(self) -> &'static str {
        match self {
            Self::Prediction => "openapi/prediction-v1.json",
            Self::Router => "openapi/router.json",
            Self::Portal => "openapi/portal.json",
        }
    }

    fn spec(self) -> Spec {
        match self {
            Self::Prediction => prediction::spec(),
            Self::Router => router::spec(),
            Self::Portal => portal::spec(),
        }
    }
}

/// What a document says beyond its operations.
struct Spec {
    /// `info`.
    pub info: Value,
    /// `servers`.
    pub servers: Value,
    /// The security scheme every operation needs unless public: its name and object.
    pub security: (&'static str, Value),
    /// Whether the document's operations need the scheme by default (a public
    /// operation then says `security: []`).
    pub secured: bool,
    /// Whether a row is one of the document's operations.
    pub serves: fn(&Route) -> bool,
    /// The prefix the document's `servers` URL carries, left out of its paths.
    pub base: &'static str,
    /// The operations.
    pub operations: &'static [Operation],
    /// The error answers of every operation of a row's access and method.
    pub common_errors: fn(&Route) -> Vec<(u16, &'static str)>,
    /// The header components.
    pub headers: Map<String, Value>,
}

/// The schema generators of a document: answers as they are serialised, requests
/// as they are read; and the answer schemas that a sandbox key's answers extend.
struct Generators {
    answers: SchemaGenerator,
    requests: SchemaGenerator,
    sandboxed: Vec<Value>,
}

fn generator(settings: SchemaSettings) -> SchemaGenerator {
    settings
        .with(|s| {
            s.definitions_path = "/components/schemas".into();
            s.meta_schema = None;
        })
        .into_generator()
}

/// The document of `api`.
///
/// # Errors
/// A row of the document without an entry in its table, an entry without a row, or
/// a component named twice with different schemas.
pub(super) fn document(api: Api) -> Result<Value, String> {
    let spec = api.spec();
    let mut generators = Generators {
        answers: generator(SchemaSettings::draft2020_12().for_serialize()),
        requests: generator(SchemaSettings::draft2020_12().for_deserialize()),
        sandboxed: Vec::new(),
    };
    let rows: Vec<&Route> = ROUTES
        .iter()
        .filter(|row| (spec.serves)(row) && !matches!(row.answer, Answer::PortalFile))
        .collect();
    for entry in spec.operations {
        if !rows
            .iter()
            .any(|row| row.method == entry.method && row.path == entry.path)
        {
            return Err(format!(
                "{api:?}: {} {} is in the table of operations but not a row",
                entry.method, entry.path
            ));
        }
    }
    let mut paths = Map::new();
    for row in rows {
        let entry = spec
            .operations
            .iter()
            .find(|entry| entry.method == row.method && entry.path == row.path)
            .ok_or_else(|| format!("{api:?}: {} {} has no entry", row.method, row.path))?;
        let path = row.path.strip_prefix(spec.base).unwrap_or(row.path);
        let item = paths
            .entry(path)
            .or_insert_with(|| Value::Object(Map::new()));
        item[row.method.as_str().to_ascii_lowercase()] =
            paths::operation(&spec, row, entry, &mut generators)?;
    }
    let mut schemas = generators.answers.take_definitions(true);
    for (name, schema) in generators.requests.take_definitions(true) {
        match schemas.get(&name) {
            Some(other) if *other != schema => {
                return Err(format!(
                    "{api:?}: two types are called {name} with different schemas"
                ));
            }
            _ => {
                schemas.insert(name, schema);
            }
        }
    }
    for schema in &generators.sandboxed {
        mark_sandbox(schema, &mut schemas);
    }
    schemas.sort_keys();
    let (scheme, security) = spec.security;
    let mut document = json!({
        "openapi": "3.1.0",
        "info": spec.info,
        "servers": spec.servers,
        "security": [{ scheme: [] }],
        "components": {
            "securitySchemes": { scheme: security },
            "schemas": schemas,
            "headers": spec.headers,
        },
        "paths": paths,
    });
    if !spec.secured {
        document.as_object_mut().map(|d| d.remove("security"));
    }
    tidy(&mut document);
    Ok(document)
}

/// Formats OpenAPI defines (and JSON Schema's `date`, `date-time`); schemars also
/// writes Rust's integer widths (`uint`, `uint8`...), which a client cannot use and
/// the schemas' `minimum` already says.
const FORMATS: [&str; 6] = ["int32", "int64", "float", "double", "date", "date-time"];

/// Doc comments as one line a paragraph, and only the formats of [`FORMATS`].
fn tidy(value: &mut Value) {
    match value {
        Value::Object(object) => {
            if let Some(Value::String(text)) = object.get_mut("description") {
                *text = text
                    .split("\n\n")
                    .map(|paragraph| paragraph.split_whitespace().collect::<Vec<_>>().join(" "))
                    .collect::<Vec<_>>()
                    .join("\n\n");
            }
            if object
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|format| !FORMATS.contains(&format))
            {
                object.remove("format");
            }
            object.values_mut().for_each(tidy);
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// Adds `sandbox_mode` to the object an answer to a sandbox key ends with (the
/// Worker's, after the engine's members: `plumbing::success_body`).
/// An answer of several forms (`oneOf`, `anyOf`) has it in each.
fn mark_sandbox(schema: &Value, schemas: &mut Map<String, Value>) {
    let target = match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => reference
            .strip_prefix("#/components/schemas/")
            .and_then(|name| schemas.get(name))
            .cloned()
            .map(|component| (reference.to_owned(), component)),
        None => None,
    };
    let Some((reference, component)) = target else {
        return;
    };
    for forms in ["oneOf", "anyOf"] {
        if let Some(Value::Array(forms)) = component.get(forms) {
            for form in forms {
                mark_sandbox(form, schemas);
            }
        }
    }
    let name = reference.trim_start_matches("#/components/schemas/");
    if let Some(Value::Object(properties)) = schemas
        .get_mut(name)
        .and_then(|component| component.get_mut("properties"))
    {
        properties.insert(
            "sandbox_mode".into(),
            json!({ "const": true, "description": "Present (true) on answers to sandbox keys." }),
        );
    }
}

#[cfg(test)]
mod tests;
