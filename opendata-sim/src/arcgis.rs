//! ArcGIS REST: a FeatureServer or MapServer layer's info and its `query` operation.
//!
//! `<layer>?f=json|pjson` answers the layer description (`objectIdField`,
//! `maxRecordCount`, `advancedQueryCapabilities.supportsPagination`, `fields`).
//! `<layer>/query` supports `where` (only `1=1` and `0=0`), `outFields` (`*` or a list;
//! absent: `OBJECTID` only), `orderByFields` (default `OBJECTID ASC`), `resultOffset`,
//! `resultRecordCount` (capped at `maxRecordCount`, absent or empty: `maxRecordCount`),
//! `returnGeometry`, `returnIdsOnly` (all ids, not paged), `returnCountOnly`, and `f` =
//! `json`, `pjson` (1-space indent, as the Houston sample) or `geojson`. `outSR` is
//! ignored: coordinates are always WGS84. Field names match case-insensitively.
//!
//! Esri JSON carries `exceededTransferLimit: true` at the top level, GeoJSON under the
//! collection's `properties`, and only when more rows remain. FeatureServer answers
//! start with `objectIdFieldName`; MapServer answers with `displayFieldName` and
//! `fieldAliases`, as the real Houston page does. Errors come with HTTP 200 and
//! `{"error":{"code":400,"message":"Unable to complete operation.","details":[..]}}`.

use serde_json::{Map, Value, json};

use crate::dataset::Dataset;
use crate::esri::{Format, format, html_stub, invalid, send};
use crate::faults::PageFault;
use crate::message::{Request, Response};
use crate::schema::{Protocol, Row, compare_values};
use crate::script::World;

/// A column of a layer: the object id or a field.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Col {
    Oid,
    Field(usize),
}

fn resolve(ds: &Dataset, name: &str) -> Option<Col> {
    if name.eq_ignore_ascii_case("OBJECTID") {
        return Some(Col::Oid);
    }
    ds.fields()
        .iter()
        .position(|f| f.name.eq_ignore_ascii_case(name))
        .map(Col::Field)
}

fn field_json(ds: &Dataset, col: Col) -> Value {
    match col {
        Col::Oid => json!({"name": "OBJECTID", "type": "esriFieldTypeOID", "alias": "OBJECTID"}),
        Col::Field(i) => {
            let f = &ds.fields()[i];
            json!({"name": f.name, "type": f.kind.esri_type(), "alias": f.alias})
        }
    }
}

fn attributes(ds: &Dataset, row: &Row, cols: &[Col]) -> Map<String, Value> {
    cols.iter()
        .map(|&c| match c {
            Col::Oid => ("OBJECTID".to_owned(), json!(row.objectid())),
            Col::Field(i) => (ds.fields()[i].name.clone(), row.value(i).clone()),
        })
        .collect()
}

/// One row as an Esri JSON feature with all fields listed in `fields` (and `OBJECTID`).
pub(crate) fn esri_feature(ds: &Dataset, row: &Row, fields: &[usize], geometry: bool) -> Value {
    let mut cols = vec![Col::Oid];
    cols.extend(fields.iter().map(|&i| Col::Field(i)));
    feature(ds, row, &cols, geometry, Format::Json)
}

fn feature(ds: &Dataset, row: &Row, cols: &[Col], geometry: bool, format: Format) -> Value {
    let attrs = attributes(ds, row, cols);
    let point = row.point().filter(|_| geometry);
    if format == Format::GeoJson {
        let geom = point.map_or(
            Value::Null,
            |p| json!({"type": "Point", "coordinates": [p.x, p.y]}),
        );
        return json!({"type": "Feature", "id": row.objectid(), "geometry": geom, "properties": attrs});
    }
    let mut f = Map::new();
    f.insert("attributes".into(), Value::Object(attrs));
    if let Some(p) = point {
        f.insert("geometry".into(), json!({"x": p.x, "y": p.y}));
    }
    Value::Object(f)
}

fn has_geometry(ds: &Dataset) -> bool {
    matches!(ds.protocol(), Protocol::ArcGis { geometry: true })
}

fn layer_id(ds: &Dataset) -> u64 {
    ds.path()
        .rsplit('/')
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// Answers `<layer>?f=json`.
pub(crate) fn layer_info(world: &World, ds_index: usize, req: &Request) -> Response {
    let ds = &world.datasets[ds_index];
    let format = match format(req, false) {
        Ok(Some(f)) => f,
        Ok(None) => return html_stub(ds),
        Err(resp) => return resp,
    };
    let mut fields = vec![field_json(ds, Col::Oid)];
    fields.extend((0..ds.fields().len()).map(|i| field_json(ds, Col::Field(i))));
    let mut info = json!({
        "currentVersion": 10.91,
        "id": layer_id(ds),
        "name": ds.title(),
        "type": "Feature Layer",
        "description": "",
        "geometryType": if has_geometry(ds) { json!("esriGeometryPoint") } else { Value::Null },
        "objectIdField": "OBJECTID",
        "displayField": ds.display_field(),
        "maxRecordCount": ds.max_record_count(),
        "supportedQueryFormats": "JSON, geoJSON",
        "capabilities": "Query",
        "advancedQueryCapabilities": {
            "supportsPagination": true,
            "supportsOrderBy": true,
            "supportsQueryWithResultType": true,
            "supportsDistinct": false,
            "supportsStatistics": false,
            "supportsReturningQueryExtent": false
        },
        "fields": fields
    });
    if let (false, Some(obj)) = (has_geometry(ds), info.as_object_mut()) {
        obj.remove("geometryType");
    }
    send(&info, format)
}

fn flag(req: &Request, name: &str) -> bool {
    req.param(name)
        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

fn count_param(req: &Request, name: &str) -> Result<Option<usize>, Response> {
    match req.param(name).map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) => v
            .parse()
            .map(Some)
            .map_err(|_| invalid(&format!("'{name}' parameter is invalid"))),
    }
}

fn parse_cols(ds: &Dataset, spec: &str, what: &str) -> Result<Vec<(Col, bool)>, Response> {
    let mut out = Vec::new();
    for part in spec.split(',').filter(|p| !p.trim().is_empty()) {
        let mut words = part.split_whitespace();
        let bad = || invalid(&format!("'{what}' parameter is invalid"));
        let col = words.next().and_then(|n| resolve(ds, n)).ok_or_else(bad)?;
        let desc = match words.next().map(str::to_ascii_uppercase).as_deref() {
            None | Some("ASC") => false,
            Some("DESC") => true,
            Some(_) => return Err(bad()),
        };
        if words.next().is_some() {
            return Err(bad());
        }
        out.push((col, desc));
    }
    Ok(out)
}

/// An Esri JSON page: FeatureServer answers lead with `objectIdFieldName`, MapServer
/// answers with `displayFieldName` and `fieldAliases` (as the Houston sample).
fn esri_page(
    ds: &Dataset,
    cols: &[Col],
    geometry: bool,
    features: Vec<Value>,
    more: bool,
) -> Value {
    let mut top = Map::new();
    if ds.path().to_ascii_lowercase().contains("/mapserver/") {
        top.insert("displayFieldName".into(), json!(ds.display_field()));
        let aliases: Map<String, Value> = cols
            .iter()
            .map(|&c| field_json(ds, c))
            .map(|f| {
                (
                    f["name"].as_str().unwrap_or_default().to_owned(),
                    f["alias"].clone(),
                )
            })
            .collect();
        top.insert("fieldAliases".into(), Value::Object(aliases));
    } else {
        top.insert("objectIdFieldName".into(), json!("OBJECTID"));
        top.insert(
            "uniqueIdField".into(),
            json!({"name": "OBJECTID", "isSystemMaintained": true}),
        );
        top.insert("globalIdFieldName".into(), json!(""));
    }
    if geometry {
        top.insert("geometryType".into(), json!("esriGeometryPoint"));
        top.insert(
            "spatialReference".into(),
            json!({"wkid": 4326, "latestWkid": 4326}),
        );
    }
    top.insert(
        "fields".into(),
        Value::Array(cols.iter().map(|&c| field_json(ds, c)).collect()),
    );
    top.insert("features".into(), Value::Array(features));
    if more {
        top.insert("exceededTransferLimit".into(), json!(true));
    }
    Value::Object(top)
}

/// Answers `<layer>/query`.
pub(crate) fn query(world: &mut World, ds_index: usize, req: &Request) -> Response {
    let ds = &world.datasets[ds_index];
    let format = match format(req, true) {
        Ok(Some(f)) => f,
        Ok(None) => return html_stub(ds),
        Err(resp) => return resp,
    };
    let clause: String = req
        .param("where")
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    if clause != "1=1" && clause != "0=0" {
        return invalid("'where' parameter is invalid (this server supports only 1=1 and 0=0)");
    }
    let cols: Vec<Col> = match req.param("outFields").map(str::trim) {
        None | Some("") => vec![Col::Oid],
        Some("*") => std::iter::once(Col::Oid)
            .chain((0..ds.fields().len()).map(Col::Field))
            .collect(),
        Some(spec) => match parse_cols(ds, spec, "outFields") {
            Ok(list) if list.iter().all(|(_, desc)| !desc) => {
                list.into_iter().map(|(c, _)| c).collect()
            }
            Ok(_) => return invalid("'outFields' parameter is invalid"),
            Err(resp) => return resp,
        },
    };
    let order = match parse_cols(
        ds,
        req.param("orderByFields").unwrap_or_default(),
        "orderByFields",
    ) {
        Ok(o) => o,
        Err(resp) => return resp,
    };
    let (offset, count) = match (
        count_param(req, "resultOffset"),
        count_param(req, "resultRecordCount"),
    ) {
        (Ok(o), Ok(c)) => (o.unwrap_or(0), c),
        (Err(resp), _) | (_, Err(resp)) => return resp,
    };
    let max = ds.max_record_count();
    let page_size = count.filter(|&c| c > 0).map_or(max, |c| c.min(max));

    let mut rows: Vec<&Row> = ds.rows().collect();
    // Rows are kept in publication order, which is OBJECTID order (ids are handed
    // out in that order, also by a wholesale replacement): the default order needs
    // no sort, so a page of a large layer costs its own rows, not the layer's.
    let by_objectid = order.iter().all(|&(col, desc)| col == Col::Oid && !desc);
    if !by_objectid {
        rows.sort_by(|a, b| {
            order
                .iter()
                .map(|&(col, desc)| {
                    let o = match col {
                        Col::Oid => a.objectid().cmp(&b.objectid()),
                        Col::Field(i) => compare_values(a.value(i), b.value(i)),
                    };
                    if desc { o.reverse() } else { o }
                })
                .find(|o| o.is_ne())
                .unwrap_or_else(|| a.objectid().cmp(&b.objectid()))
        });
    }

    if flag(req, "returnCountOnly") {
        return send(&json!({"count": rows.len()}), format);
    }
    if flag(req, "returnIdsOnly") {
        let ids: Vec<i64> = rows.iter().map(|r| r.objectid()).collect();
        return send(
            &json!({"objectIdFieldName": "OBJECTID", "objectIds": ids}),
            format,
        );
    }

    let fault = world.faults.take_page_fault(ds.name(), offset);
    let start = fault.map_or(offset, |f| f.shift(offset, page_size));
    let geometry = has_geometry(ds)
        && !req
            .param("returnGeometry")
            .is_some_and(|v| v.eq_ignore_ascii_case("false"));
    let page: Vec<&Row> = rows.iter().skip(start).take(page_size).copied().collect();
    let more = start + page.len() < rows.len();
    let features: Vec<Value> = page
        .iter()
        .map(|r| feature(ds, r, &cols, geometry, format))
        .collect();

    let body = if format == Format::GeoJson {
        let mut fc = json!({"type": "FeatureCollection", "features": features});
        if more {
            fc["properties"] = json!({"exceededTransferLimit": true});
        }
        fc
    } else {
        esri_page(ds, &cols, geometry, features, more)
    };
    let mut resp = send(&body, format);
    if fault == Some(PageFault::Truncate) {
        resp.body.truncate(resp.body.len() / 2);
    }
    resp
}
