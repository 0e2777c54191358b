//! OpenStreetMap road ways from `.osm.pbf` (osmpbf) and `.osm` XML (quick-xml), so an
//! operator can bring any city: highway ways become [`RoadLine`]s with their one-way
//! rules, ready for [`super::network::build_network`] (split at shared nodes); named
//! nodes and closed ways become points of interest for place search.

use std::collections::HashMap;
use std::path::Path;

use quick_xml::events::Event;

use super::lines::{Direction, RoadError, RoadLine};

/// `highway` values that carry people or vehicles (everything else, such as
/// `proposed`, `construction` or `platform`, is left out); streets first.
pub const ROUTABLE: &[&str] = &[
    "motorway",
    "trunk",
    "primary",
    "secondary",
    "tertiary",
    "unclassified",
    "residential",
    "motorway_link",
    "trunk_link",
    "primary_link",
    "secondary_link",
    "tertiary_link",
    "living_street",
    "service",
    "pedestrian",
    "track",
    "road",
    "footway",
    "path",
    "cycleway",
    "steps",
    "bridleway",
    "corridor",
];

/// The `highway` values of streets, the first of [`ROUTABLE`] (not paths, footways,
/// tracks or service roads).
pub const STREET_CLASSES: &[&str] = ROUTABLE.split_at(13).0;

/// One way as read: node references and tags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OsmWay {
    /// Its id.
    pub id: i64,
    /// Node ids in order.
    pub nodes: Vec<i64>,
    /// Tags.
    pub tags: HashMap<String, String>,
}

/// Keys whose presence with a `name` makes a node or a closed way a point of interest.
pub const POINT_KEYS: &[&str] = &[
    "amenity",
    "shop",
    "tourism",
    "leisure",
    "historic",
    "office",
    "craft",
    "healthcare",
    "building",
    "railway",
    "public_transport",
];

/// Points of interest of one name this close are one place (a station's platforms).
pub const SAME_POINT_M: f64 = 100.0;

/// A named node: its position `(latitude, longitude)` and tags.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedNode {
    /// `(latitude, longitude)`.
    pub position: (f64, f64),
    /// Tags, `name` among them.
    pub tags: HashMap<String, String>,
}

/// A named point of interest.
#[derive(Debug, Clone, PartialEq)]
pub struct PointOfInterest {
    /// Its `name` tag, trimmed.
    pub name: String,
    /// `(latitude, longitude)`: the node, or the mean of a closed way's nodes.
    pub position: (f64, f64),
}

/// What an OSM file holds that roads and place search need.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OsmData {
    /// Node positions `(latitude, longitude)` by id.
    pub nodes: HashMap<i64, (f64, f64)>,
    /// Every way.
    pub ways: Vec<OsmWay>,
    /// Nodes with a `name` tag.
    pub named_nodes: Vec<NamedNode>,
    /// Multipolygon relations with a `name` tag: their outer ways' ids and tags.
    pub named_areas: Vec<(Vec<i64>, HashMap<String, String>)>,
}

/// The mean of positions, if any.
fn mean(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = points.len() as f64;
    let (lat, lng) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), p| (a + p.0, b + p.1));
    (n > 0.0).then(|| (lat / n, lng / n))
}

/// Whether tags name a point of interest: a `name` and one of [`POINT_KEYS`], and not
/// a highway (streets are searched as streets).
fn point_name(tags: &HashMap<String, String>) -> Option<&str> {
    let name = tags
        .get("name")
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())?;
    (POINT_KEYS.iter().any(|k| tags.contains_key(*k)) && !tags.contains_key("highway"))
        .then_some(name)
}

impl OsmData {
    /// Ways with a `highway` tag.
    pub fn highways(&self) -> impl Iterator<Item = &OsmWay> {
        self.ways.iter().filter(|w| w.tags.contains_key("highway"))
    }

    /// Named points of interest: nodes, closed ways at the mean of their nodes and
    /// multipolygons at the mean of their outer ways' nodes, with a `name` and one of
    /// [`POINT_KEYS`] (not highways); one name within
    /// [`SAME_POINT_M`] of a point already kept is that point.
    #[must_use]
    pub fn points_of_interest(&self) -> Vec<PointOfInterest> {
        let nodes = self
            .named_nodes
            .iter()
            .filter_map(|n| Some((point_name(&n.tags)?, n.position)));
        let areas = self.ways.iter().filter_map(|way| {
            let name = point_name(&way.tags)?;
            let ring = way.nodes.split_last()?.1;
            if way.nodes.len() < 4 || way.nodes.first() != way.nodes.last() {
                return None;
            }
            let points: Vec<(f64, f64)> = ring
                .iter()
                .filter_map(|id| self.nodes.get(id).copied())
                .collect();
            mean(&points).map(|centre| (name, centre))
        });
        let way_nodes: HashMap<i64, &[i64]> = self
            .ways
            .iter()
            .map(|w| (w.id, w.nodes.as_slice()))
            .collect();
        let relations = self.named_areas.iter().filter_map(|(outer, tags)| {
            let name = point_name(tags)?;
            let points: Vec<(f64, f64)> = outer
                .iter()
                .filter_map(|way| way_nodes.get(way))
                .flat_map(|nodes| {
                    // A closed ring's last node is its first.
                    let open = match nodes.split_last() {
                        Some((last, rest)) if rest.first() == Some(last) => rest,
                        _ => nodes,
                    };
                    open.iter().filter_map(|id| self.nodes.get(id).copied())
                })
                .collect();
            mean(&points).map(|centre| (name, centre))
        });
        let mut kept: Vec<PointOfInterest> = Vec::new();
        for (name, position) in nodes.chain(areas).chain(relations) {
            let at = |(lat, lng): (f64, f64)| h3o::LatLng::new(lat, lng).ok();
            let near = |p: &PointOfInterest| match (at(p.position), at(position)) {
                (Some(a), Some(b)) => a.distance_m(b) < SAME_POINT_M,
                _ => false,
            };
            if !kept.iter().any(|p| p.name == name && near(p)) {
                kept.push(PointOfInterest {
                    name: name.to_owned(),
                    position,
                });
            }
        }
        kept
    }

    /// Routable highway ways as road lines, with one-way rules: `oneway=yes|true|1`
    /// forward, `oneway=-1|reverse` backward, motorways and roundabouts one way
    /// forward unless `oneway=no`; the `name` tag (trimmed) is the street name.
    /// Nodes missing from the file are skipped.
    #[must_use]
    pub fn road_lines(&self) -> Vec<RoadLine> {
        self.highways()
            .filter(|w| ROUTABLE.contains(&w.tags["highway"].as_str()))
            .filter_map(|way| {
                let points: Vec<(f64, f64)> = way
                    .nodes
                    .iter()
                    .filter_map(|id| self.nodes.get(id).copied())
                    .collect();
                (points.len() >= 2).then(|| RoadLine {
                    points,
                    direction: direction(&way.tags),
                    name: way
                        .tags
                        .get("name")
                        .map_or_else(String::new, |name| name.trim().to_owned()),
                })
            })
            .collect()
    }
}

fn direction(tags: &HashMap<String, String>) -> Direction {
    let implied = tags.get("highway").is_some_and(|h| h == "motorway")
        || tags
            .get("junction")
            .is_some_and(|j| j == "roundabout" || j == "circular");
    match tags.get("oneway").map(String::as_str) {
        Some("yes" | "true" | "1") => Direction::Forward,
        Some("-1" | "reverse") => Direction::Backward,
        Some("no" | "false" | "0") => Direction::Both,
        _ if implied => Direction::Forward,
        _ => Direction::Both,
    }
}

fn error(path: &Path, reason: impl std::fmt::Display) -> RoadError {
    RoadError::Io {
        path: path.to_owned(),
        reason: reason.to_string(),
    }
}

/// Keeps a node's tags when it has a name.
fn keep_named<'a>(
    data: &mut OsmData,
    position: (f64, f64),
    tags: impl Iterator<Item = (&'a str, &'a str)>,
) {
    let tags: HashMap<String, String> = tags.map(|(k, v)| (k.to_owned(), v.to_owned())).collect();
    if tags.contains_key("name") {
        data.named_nodes.push(NamedNode { position, tags });
    }
}

/// Keeps a named multipolygon's outer ways and tags.
fn keep_area(data: &mut OsmData, outer: Vec<i64>, tags: HashMap<String, String>) {
    if tags.contains_key("name") && tags.get("type").is_some_and(|t| t == "multipolygon") {
        data.named_areas.push((outer, tags));
    }
}

/// Reads an `.osm.pbf` file.
///
/// # Errors
/// [`RoadError`] when the file cannot be read or decoded.
pub fn read_pbf(path: &Path) -> Result<OsmData, RoadError> {
    use osmpbf::{Element, ElementReader};
    let reader = ElementReader::from_path(path).map_err(|e| error(path, e))?;
    let mut data = OsmData::default();
    reader
        .for_each(|element| match element {
            Element::Node(n) => {
                data.nodes.insert(n.id(), (n.lat(), n.lon()));
                keep_named(&mut data, (n.lat(), n.lon()), n.tags());
            }
            Element::DenseNode(n) => {
                data.nodes.insert(n.id(), (n.lat(), n.lon()));
                keep_named(&mut data, (n.lat(), n.lon()), n.tags());
            }
            Element::Way(w) => data.ways.push(OsmWay {
                id: w.id(),
                nodes: w.refs().collect(),
                tags: w
                    .tags()
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect(),
            }),
            Element::Relation(r) => {
                let tags: HashMap<String, String> = r
                    .tags()
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect();
                let outer = r
                    .members()
                    .filter(|m| {
                        m.member_type == osmpbf::RelMemberType::Way
                            && m.role().is_ok_and(|role| role == "outer")
                    })
                    .map(|m| m.member_id)
                    .collect();
                keep_area(&mut data, outer, tags);
            }
        })
        .map_err(|e| error(path, e))?;
    Ok(data)
}

/// The elements an XML reading is inside: a way, a node with tags, a relation.
#[derive(Default)]
struct OpenElements {
    way: Option<OsmWay>,
    node: Option<NamedNode>,
    /// Its outer ways and tags.
    relation: Option<(Vec<i64>, HashMap<String, String>)>,
}

impl OpenElements {
    /// An element starts (`empty`: and ends at once).
    fn open(&mut self, data: &mut OsmData, tag: &quick_xml::events::BytesStart, empty: bool) {
        let attribute = |name: &[u8]| -> Option<String> {
            tag.attributes()
                .flatten()
                .find(|a| a.key.as_ref() == name)
                .and_then(|a| a.unescape_value().ok().map(std::borrow::Cow::into_owned))
        };
        let number = |name: &[u8]| attribute(name).and_then(|v| v.parse::<f64>().ok());
        let id = || attribute(b"id").and_then(|v| v.parse::<i64>().ok());
        match tag.name().as_ref() {
            b"node" => {
                if let (Some(id), Some(lat), Some(lon)) = (id(), number(b"lat"), number(b"lon")) {
                    data.nodes.insert(id, (lat, lon));
                    if !empty {
                        self.node = Some(NamedNode {
                            position: (lat, lon),
                            tags: HashMap::new(),
                        });
                    }
                }
            }
            b"way" => {
                let way = OsmWay {
                    id: id().unwrap_or_default(),
                    ..OsmWay::default()
                };
                if empty {
                    data.ways.push(way);
                } else {
                    self.way = Some(way);
                }
            }
            b"relation" if !empty => self.relation = Some((Vec::new(), HashMap::new())),
            b"member" => {
                let outer_way = attribute(b"type").as_deref() == Some("way")
                    && attribute(b"role").as_deref() == Some("outer");
                let reference = attribute(b"ref").and_then(|v| v.parse().ok());
                if let (Some((outer, _)), true, Some(id)) =
                    (self.relation.as_mut(), outer_way, reference)
                {
                    outer.push(id);
                }
            }
            b"nd" => {
                if let (Some(way), Some(id)) = (
                    self.way.as_mut(),
                    attribute(b"ref").and_then(|v| v.parse().ok()),
                ) {
                    way.nodes.push(id);
                }
            }
            b"tag" => {
                let (Some(k), Some(v)) = (attribute(b"k"), attribute(b"v")) else {
                    return;
                };
                if let Some(way) = self.way.as_mut() {
                    way.tags.insert(k, v);
                } else if let Some(node) = self.node.as_mut() {
                    node.tags.insert(k, v);
                } else if let Some((_, tags)) = self.relation.as_mut() {
                    tags.insert(k, v);
                }
            }
            _ => {}
        }
    }

    /// An element ends.
    fn close(&mut self, data: &mut OsmData, name: &[u8]) {
        match name {
            b"way" => data.ways.extend(self.way.take()),
            b"relation" => {
                if let Some((outer, tags)) = self.relation.take() {
                    keep_area(data, outer, tags);
                }
            }
            b"node" => data
                .named_nodes
                .extend(self.node.take().filter(|n| n.tags.contains_key("name"))),
            _ => {}
        }
    }
}

/// Reads an `.osm` XML file.
///
/// # Errors
/// [`RoadError`] when the file cannot be read or is not well-formed XML.
pub fn read_xml(path: &Path) -> Result<OsmData, RoadError> {
    let mut reader = quick_xml::Reader::from_file(path).map_err(|e| error(path, e))?;
    let mut data = OsmData::default();
    let mut buffer = Vec::new();
    let mut open = OpenElements::default();
    loop {
        match reader
            .read_event_into(&mut buffer)
            .map_err(|e| error(path, e))?
        {
            Event::Start(tag) => open.open(&mut data, &tag, false),
            Event::Empty(tag) => open.open(&mut data, &tag, true),
            Event::End(tag) => open.close(&mut data, tag.name().as_ref()),
            Event::Eof => break,
            _ => {}
        }
        buffer.clear();
    }
    Ok(data)
}

#[cfg(test)]
mod tests;
