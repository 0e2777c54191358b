//! One operation of a document as OpenAPI: its row gives the method, path, access
//! (security, the key's quota headers and the answers every operation of that
//! access gets) and cache policy (`If-None-Match`, `ETag`, 304); its entry in the
//! document's table gives the rest.

use serde_json::{Map, Value, json};

use super::operation::{Content, JSON, Operation};
use super::{Generators, Spec};
use crate::api::plumbing::error::ErrorBody;
use crate::api::routes::{Access, Answer, Route};

/// The OpenAPI operation object of `operation`, answered by `row`.
pub(super) fn operation(
    spec: &Spec,
    row: &Route,
    operation: &Operation,
    generators: &mut Generators,
) -> Result<Value, String> {
    let mut object = Map::new();
    object.insert("operationId".into(), json!(operation.id));
    object.insert("summary".into(), json!(operation.summary));
    if let Some(description) = operation.description {
        object.insert("description".into(), json!(description));
    }
    let mut parameters = match operation.parameters {
        Some(schema) => path_and_query(row.path, &schema(&mut generators.requests).to_value())?,
        None => Vec::new(),
    };
    if row.cache.is_some() {
        parameters.push(json!({
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "description": "an ETag of an earlier answer: 304 Not Modified (no body) while it is still the current one",
            "schema": { "type": "string" },
        }));
    }
    if !parameters.is_empty() {
        object.insert("parameters".into(), Value::Array(parameters));
    }
    if let Some(body) = operation.body {
        let schema = body(&mut generators.requests).to_value();
        object.insert(
            "requestBody".into(),
            json!({ "required": true, "content": { JSON: { "schema": schema } } }),
        );
    }
    if row.access == Access::Public && spec.secured {
        object.insert("security".into(), json!([]));
    }
    object.insert(
        "responses".into(),
        Value::Object(responses(spec, row, operation, generators)),
    );
    Ok(Value::Object(object))
}

/// Path parameters (those `path` names in braces) and query parameters, one per
/// property of `schema`.
fn path_and_query(path: &str, schema: &Value) -> Result<Vec<Value>, String> {
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("the parameters of {path} are not an object type"))?;
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    Ok(properties
        .iter()
        .map(|(name, property)| {
            let in_path = path.contains(&format!("{{{name}}}"));
            let mut property = property.clone();
            // A parameter is absent or text: never null.
            if let Some(Value::Array(types)) = property.get_mut("type") {
                types.retain(|t| t != "null");
                if let [only] = &types[..] {
                    property["type"] = only.clone();
                }
            }
            let description = property
                .as_object_mut()
                .and_then(|p| p.remove("description"));
            let mut parameter = json!({
                "name": name,
                "in": if in_path { "path" } else { "query" },
                "required": in_path || required.contains(&json!(name)),
            });
            if let Some(description) = description {
                parameter["description"] = description;
            }
            parameter["schema"] = property;
            parameter
        })
        .collect())
}

/// Every answer of the operation: its success, the 304 of a cached row, its own
/// errors and those of its access.
fn responses(
    spec: &Spec,
    row: &Route,
    operation: &Operation,
    generators: &mut Generators,
) -> Map<String, Value> {
    let keyed = matches!(row.access, Access::Key(_));
    let quota = |with_retry: bool| {
        let mut headers = Map::new();
        if keyed {
            headers.insert("RateLimit".into(), header_ref("RateLimit"));
            headers.insert("RateLimit-Policy".into(), header_ref("RateLimit-Policy"));
        }
        if with_retry {
            headers.insert("Retry-After".into(), header_ref("Retry-After"));
        }
        headers
    };
    let mut answers = Map::new();

    let success = &operation.success;
    let mut answer = Map::new();
    answer.insert("description".into(), json!(success.description));
    let content = match &success.content {
        Content::Json(schema) => vec![(JSON, *schema)],
        Content::Media(media) => media.to_vec(),
    };
    if !content.is_empty() {
        let mut by_media = Map::new();
        for (media, schema) in content {
            let schema = schema(&mut generators.answers).to_value();
            if keyed && media == JSON {
                generators.sandboxed.push(schema.clone());
            }
            by_media.insert(media.into(), json!({ "schema": schema }));
        }
        answer.insert("content".into(), Value::Object(by_media));
    }
    let mut headers = quota(false);
    if row.cache.is_some() {
        headers.insert("ETag".into(), header_ref("ETag"));
        headers.insert("Cache-Control".into(), header_ref("Cache-Control"));
    }
    for name in success.headers {
        headers.insert((*name).into(), header_ref(name));
    }
    if !headers.is_empty() {
        answer.insert("headers".into(), Value::Object(headers));
    }
    answers.insert(success.status.to_string(), Value::Object(answer));

    if row.cache.is_some() {
        let mut headers = Map::new();
        headers.insert("ETag".into(), header_ref("ETag"));
        headers.insert("Cache-Control".into(), header_ref("Cache-Control"));
        headers.extend(quota(false));
        answers.insert(
            "304".into(),
            json!({
                "description": "Not Modified: the If-None-Match tag is the current representation's",
                "headers": headers,
            }),
        );
    }

    let error = generators
        .answers
        .subschema_for::<ErrorBody<'_>>()
        .to_value();
    let mut errors: Vec<(u16, &str)> = (spec.common_errors)(row);
    for (status, description) in operation.errors {
        match errors.iter_mut().find(|(s, _)| s == status) {
            Some(common) => common.1 = description,
            None => errors.push((*status, description)),
        }
    }
    errors.sort_by_key(|(status, _)| *status);
    for (status, description) in errors {
        // Health answers its record with either status.
        let body = match (&row.answer, &success.content) {
            (Answer::Health(_), Content::Json(schema)) => {
                schema(&mut generators.answers).to_value()
            }
            _ => error.clone(),
        };
        let mut answer = json!({ "description": description });
        if status != 204 {
            answer["content"] = json!({ JSON: { "schema": body } });
        }
        // The key is checked (and counted) before the request is read: what follows
        // the check carries its quota.
        let headers = match status {
            429 => quota(true),
            401 | 403 | 405 | 500 | 503 => Map::new(),
            _ => quota(false),
        };
        if !headers.is_empty() {
            answer["headers"] = Value::Object(headers);
        }
        answers.insert(status.to_string(), answer);
    }
    answers
}

fn header_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/headers/{name}") })
}
