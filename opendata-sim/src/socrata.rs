//! Socrata SODA 2.x: `GET /resource/<dataset>.json`.
//!
//! Supported: `$select` (`:*`, `*`, or a comma list of columns, system fields included),
//! `$where` (the subset in [`crate::soql`]: comparisons on `:updated_at` and
//! `:created_at`, both bounds allowed; `=` and `IN (...)` on any other column, `AND`
//! between terms), `$order` (comma list of `column [ASC|DESC]`), `$limit` (default 1000,
//! over 50,000 a 400), `$offset` (default 0), `$$app_token`, and simple equality filters
//! (`?police_district=PARK`). Without `$order` the row order is shuffled afresh for every
//! request (seeded), as the real docs warn that unordered results are not stable.
//!
//! Rows render as real SODA JSON does: nulls omitted, numbers as strings, floating
//! timestamps without a zone, `X-SODA2-Fields` / `X-SODA2-Types` headers. Errors use
//! Socrata's body shape `{"code":..,"error":true,"message":..,"data":{}}`; the codes
//! for unsupported queries are this server's choice.

use std::cmp::Ordering;

use chrono::NaiveDateTime;
use serde_json::{Map, Value, json};

use crate::dataset::Dataset;
use crate::faults::PageFault;
use crate::message::{Request, Response};
use crate::rng::Rng;
use crate::schema::{Row, compare_values, fixed_timestamp};
use crate::script::World;
use crate::soql::{self, Op, Term};

/// The largest `$limit` a SODA 2.0 endpoint accepts.
const MAX_LIMIT: usize = 50_000;

/// A column a query can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Col {
    Id,
    CreatedAt,
    UpdatedAt,
    Version,
    Field(usize),
}

/// A Socrata error response.
pub(crate) fn error(status: u16, code: &str, message: &str) -> Response {
    Response::json(
        status,
        &json!({"code": code, "error": true, "message": message, "data": {}}),
    )
}

fn no_such_column(name: &str) -> Response {
    error(
        400,
        "query.soql.no-such-column",
        &format!("No such column: {name}"),
    )
}

fn malformed(message: &str) -> Response {
    error(400, "query.compiler.malformed", message)
}

fn resolve(ds: &Dataset, name: &str) -> Option<Col> {
    match name {
        ":id" => Some(Col::Id),
        ":created_at" => Some(Col::CreatedAt),
        ":updated_at" => Some(Col::UpdatedAt),
        ":version" => Some(Col::Version),
        _ => ds.field_index(name).map(Col::Field),
    }
}

fn col_name(ds: &Dataset, col: Col) -> &str {
    match col {
        Col::Id => ":id",
        Col::CreatedAt => ":created_at",
        Col::UpdatedAt => ":updated_at",
        Col::Version => ":version",
        Col::Field(i) => &ds.fields()[i].name,
    }
}

fn col_type(ds: &Dataset, col: Col) -> &'static str {
    match col {
        Col::Field(i) => ds.fields()[i].kind.soda_type(),
        _ => "meta_data",
    }
}

/// `:*, *`: the system fields, then every column.
pub(crate) fn all_columns(ds: &Dataset) -> Vec<Col> {
    let mut cols = vec![Col::Id, Col::CreatedAt, Col::UpdatedAt, Col::Version];
    cols.extend((0..ds.fields().len()).map(Col::Field));
    cols
}

/// A column's value as SODA JSON sends it (`None`: null, omitted).
fn cell(row: &Row, col: Col) -> Option<Value> {
    match col {
        Col::Id => Some(Value::String(row.socrata_id().to_owned())),
        Col::CreatedAt => Some(Value::String(fixed_timestamp(row.created_at()))),
        Col::UpdatedAt => Some(Value::String(fixed_timestamp(row.updated_at()))),
        Col::Version => Some(Value::String(row.version().to_owned())),
        Col::Field(i) => match row.value(i) {
            Value::Null => None,
            Value::Number(n) => Some(Value::String(n.to_string())),
            other => Some(other.clone()),
        },
    }
}

/// One row as a SODA JSON object with the given columns.
pub(crate) fn render_row(ds: &Dataset, row: &Row, cols: &[Col]) -> Value {
    let mut obj = Map::new();
    for &col in cols {
        if let Some(v) = cell(row, col) {
            obj.insert(col_name(ds, col).to_owned(), v);
        }
    }
    Value::Object(obj)
}

fn compare(a: &Row, b: &Row, col: Col) -> Ordering {
    match col {
        Col::Id => a.socrata_id().cmp(b.socrata_id()),
        Col::CreatedAt => a.created_at().cmp(&b.created_at()),
        Col::UpdatedAt => a.updated_at().cmp(&b.updated_at()),
        Col::Version => a.version().cmp(b.version()),
        Col::Field(i) => compare_values(a.value(i), b.value(i)),
    }
}

/// A row filter read from `$where`: each term of the conjunction on a column.
enum Filter {
    /// A system timestamp (`:created_at`, `:updated_at`) against an instant.
    Stamp(Col, Op, i64),
    /// A column's text (`:id`, or a field's value as SODA renders it) against a
    /// literal: equality or membership.
    Text(Col, Vec<String>),
}

impl Filter {
    fn keeps(&self, row: &Row) -> bool {
        match self {
            Filter::Stamp(col, op, ms) => {
                let at = if *col == Col::CreatedAt {
                    row.created_at()
                } else {
                    row.updated_at()
                };
                op.holds(at.cmp(ms))
            }
            Filter::Text(col, values) => {
                let text = match cell(row, *col) {
                    Some(Value::String(s)) => s,
                    Some(other) => other.to_string(),
                    None => return false,
                };
                values.contains(&text)
            }
        }
    }
}

/// Parses `$where` into row filters: comparisons on `:updated_at` and
/// `:created_at` (both bounds allowed), `=` and `IN (...)` on any other column.
fn parse_where(ds: &Dataset, clause: &str) -> Result<Vec<Filter>, Response> {
    let terms = soql::parse(clause).map_err(|why| {
        malformed(&format!(
            "Could not parse $where `{}`: {why}",
            clause.trim()
        ))
    })?;
    let mut filters = Vec::with_capacity(terms.len());
    for term in terms {
        let (column, filter) = match term {
            Term::Compare {
                column,
                op,
                literal,
            } => {
                let col = resolve(ds, &column).ok_or_else(|| no_such_column(&column))?;
                let filter = match col {
                    Col::CreatedAt | Col::UpdatedAt => {
                        let ms = parse_timestamp(&literal).ok_or_else(|| {
                            error(
                                400,
                                "query.soql.type-mismatch",
                                &format!("Could not parse '{literal}' as a timestamp"),
                            )
                        })?;
                        Filter::Stamp(col, op, ms)
                    }
                    _ if op == Op::Eq => Filter::Text(col, vec![literal]),
                    _ => {
                        return Err(malformed(&format!(
                            "This server compares only :updated_at and :created_at by order, not {column}"
                        )));
                    }
                };
                (column, filter)
            }
            Term::In { column, values } => {
                let col = resolve(ds, &column).ok_or_else(|| no_such_column(&column))?;
                (column, Filter::Text(col, values))
            }
        };
        if matches!(
            filter,
            Filter::Text(Col::CreatedAt | Col::UpdatedAt | Col::Version, _)
        ) {
            return Err(malformed(&format!(
                "This server does not match {column} by text"
            )));
        }
        filters.push(filter);
    }
    Ok(filters)
}

/// A fixed or floating timestamp literal, read as UTC: `2021-01-05T10:00:00.000Z`,
/// without the `Z`, the milliseconds or the seconds, or a bare date.
fn parse_timestamp(s: &str) -> Option<i64> {
    let s = s.strip_suffix('Z').unwrap_or(s);
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())
        .or_else(|| {
            chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
        })
        .map(|t| t.and_utc().timestamp_millis())
}

fn parse_order(ds: &Dataset, spec: &str) -> Result<Vec<(Col, bool)>, Response> {
    let mut keys = Vec::new();
    for part in spec.split(',') {
        let mut words = part.split_whitespace();
        let Some(name) = words.next() else {
            return Err(malformed("Empty $order term"));
        };
        let col = resolve(ds, name).ok_or_else(|| no_such_column(name))?;
        let desc = match words.next().map(str::to_ascii_uppercase).as_deref() {
            None | Some("ASC") => false,
            Some("DESC") => true,
            Some(other) => return Err(malformed(&format!("Unexpected `{other}` in $order"))),
        };
        if words.next().is_some() {
            return Err(malformed(&format!(
                "Could not parse $order term `{}`",
                part.trim()
            )));
        }
        keys.push((col, desc));
    }
    Ok(keys)
}

fn parse_select(ds: &Dataset, spec: &str) -> Result<Vec<Col>, Response> {
    let mut cols = Vec::new();
    for part in spec.split(',').map(str::trim) {
        match part {
            ":*" => cols.extend([Col::Id, Col::CreatedAt, Col::UpdatedAt, Col::Version]),
            "*" => cols.extend((0..ds.fields().len()).map(Col::Field)),
            "" => return Err(malformed("Empty $select term")),
            name => cols.push(resolve(ds, name).ok_or_else(|| no_such_column(name))?),
        }
    }
    Ok(cols)
}

fn parse_count(name: &str, value: &str) -> Result<usize, Response> {
    value.trim().parse::<usize>().map_err(|_| {
        error(
            400,
            "query.soql.type-mismatch",
            &format!("{name} must be a non-negative integer"),
        )
    })
}

/// The answer to `$select=count(*)`: one row, the count as a string.
fn count_response(count: usize) -> Response {
    let body = serde_json::json!([{ "count": count.to_string() }]);
    Response::json(200, &body)
        .with_header("X-SODA2-Fields", "[\"count\"]")
        .with_header("X-SODA2-Types", "[\"number\"]")
}

/// Answers a `/resource/<dataset>.json` request for dataset number `ds_index`.
pub(crate) fn query(world: &mut World, ds_index: usize, req: &Request) -> Response {
    let ds = &world.datasets[ds_index];
    let mut select = (0..ds.fields().len()).map(Col::Field).collect::<Vec<_>>();
    let mut filters_where = Vec::new();
    let mut order = None;
    let mut limit = 1000;
    let mut offset = 0;
    let mut filters = Vec::new();
    let mut count = false;
    for (key, value) in &req.query {
        let step = match key.as_str() {
            // SoQL's aggregate `count(*)` answers one row with the count as a
            // string (the only aggregate this server knows).
            "$select" if value.trim().eq_ignore_ascii_case("count(*)") => {
                count = true;
                Ok(())
            }
            "$select" => parse_select(ds, value).map(|c| select = c),
            "$where" => parse_where(ds, value).map(|w| filters_where = w),
            "$order" => parse_order(ds, value).map(|o| order = Some(o)),
            "$limit" => parse_count("$limit", value).and_then(|n| {
                if n > MAX_LIMIT {
                    Err(error(
                        400,
                        "query.soql.invalid-limit",
                        "length must be <= 50000",
                    ))
                } else {
                    limit = n;
                    Ok(())
                }
            }),
            "$offset" => parse_count("$offset", value).map(|n| offset = n),
            "$$app_token" => Ok(()),
            k if k.starts_with('$') => Err(error(
                400,
                "query.soql.invalid-parameters",
                &format!("Unrecognized arguments [{k}]"),
            )),
            k => match ds.field_index(k) {
                Some(i) => {
                    filters.push((i, value.clone()));
                    Ok(())
                }
                None => Err(no_such_column(k)),
            },
        };
        if let Err(resp) = step {
            return resp;
        }
    }

    let mut rows: Vec<&Row> = ds
        .rows()
        .filter(|r| filters_where.iter().all(|f| f.keeps(r)))
        .filter(|r| {
            filters.iter().all(|(i, want)| match r.value(*i) {
                Value::String(s) => s == want,
                Value::Number(n) => n.to_string() == *want,
                _ => false,
            })
        })
        .collect();
    if count {
        return count_response(rows.len());
    }
    if let Some(keys) = &order {
        rows.sort_by(|a, b| {
            keys.iter()
                .map(|&(col, desc)| {
                    let o = compare(a, b, col);
                    if desc { o.reverse() } else { o }
                })
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        });
    } else {
        world.requests += 1;
        Rng::derive(world.seed, world.requests).shuffle(&mut rows);
    }

    let fault = world.faults.take_page_fault(ds.name(), offset);
    let start = fault.map_or(offset, |f| f.shift(offset, limit));
    let mut body = String::from("[");
    for (n, row) in rows.iter().skip(start).take(limit).enumerate() {
        if n > 0 {
            body.push_str("\n,");
        }
        body.push_str(&render_row(ds, row, &select).to_string());
    }
    body.push_str("\n]");
    let mut bytes = body.into_bytes();
    if fault == Some(PageFault::Truncate) {
        bytes.truncate(bytes.len() / 2);
    }
    let names: Vec<&str> = select.iter().map(|&c| col_name(ds, c)).collect();
    let types: Vec<&str> = select.iter().map(|&c| col_type(ds, c)).collect();
    Response::new(200, "application/json;charset=utf-8", bytes)
        .with_header("X-SODA2-Fields", &json!(names).to_string())
        .with_header("X-SODA2-Types", &json!(types).to_string())
        .with_header("X-SODA2-Data-Out-Of-Date", "false")
}
