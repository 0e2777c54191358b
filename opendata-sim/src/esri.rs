//! ArcGIS response encodings: `f=json`, `f=pjson` (one-space indent, key order kept, as
//! the real Houston page), `f=geojson`, the HTML stand-in, and the error body (HTTP 200).

use serde_json::{Value, json};

use crate::dataset::Dataset;
use crate::message::{Request, Response};

/// The JSON content type.
pub(crate) const JSON: &str = "application/json; charset=utf-8";

/// An ArcGIS error body (HTTP 200, as ArcGIS Server sends them).
pub(crate) fn error(code: u16, message: &str, details: &[&str]) -> Response {
    Response::json(
        200,
        &json!({"error": {"code": code, "message": message, "details": details}}),
    )
}

/// An ArcGIS "Unable to complete operation." error with one detail.
pub(crate) fn invalid(detail: &str) -> Response {
    error(400, "Unable to complete operation.", &[detail])
}

/// The `f` parameter.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// `f=json`: compact Esri JSON.
    Json,
    /// `f=pjson`: Esri JSON with a one-space indent.
    Pjson,
    /// `f=geojson`.
    GeoJson,
}

/// Reads `f`: `None` for the HTML page (absent or `html`).
pub(crate) fn format(req: &Request, geojson: bool) -> Result<Option<Format>, Response> {
    match req.param("f").map(str::to_ascii_lowercase).as_deref() {
        None | Some("" | "html") => Ok(None),
        Some("json") => Ok(Some(Format::Json)),
        Some("pjson") => Ok(Some(Format::Pjson)),
        Some("geojson") if geojson => Ok(Some(Format::GeoJson)),
        Some(_) => Err(invalid("Invalid format")),
    }
}

/// The stand-in for ArcGIS's HTML pages.
pub(crate) fn html_stub(ds: &Dataset) -> Response {
    Response::new(
        200,
        "text/html; charset=utf-8",
        format!(
            "<html><body><h2>{} (layer)</h2><p>Ask with f=json.</p></body></html>\n",
            ds.title()
        ),
    )
}

/// Serializes `value` in `format`.
pub(crate) fn send(value: &Value, format: Format) -> Response {
    match format {
        Format::Json => Response::new(200, JSON, value.to_string()),
        Format::Pjson => {
            let mut out = String::new();
            pretty(value, 0, &mut out);
            Response::new(200, JSON, out)
        }
        Format::GeoJson => Response::new(
            200,
            "application/geo+json; charset=utf-8",
            value.to_string(),
        ),
    }
}

/// Pretty-prints with a one-space indent, as ArcGIS's `f=pjson` does.
fn pretty(value: &Value, depth: usize, out: &mut String) {
    let pad = |d: usize, out: &mut String| {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', d));
    };
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                pad(depth + 1, out);
                pretty(item, depth + 1, out);
            }
            pad(depth, out);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                pad(depth + 1, out);
                out.push_str(&Value::String(k.clone()).to_string());
                out.push_str(": ");
                pretty(v, depth + 1, out);
            }
            pad(depth, out);
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}
