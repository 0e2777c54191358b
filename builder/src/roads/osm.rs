//! OpenStreetMap road ways from `.osm.pbf` (osmpbf) and `.osm` XML (quick-xml), so an
//! operator can bring any city: highway ways become [`RoadLine`]s with their one-way
//! rules, ready for [`super::network::build_network`] (split at shared nodes).

use std::collections::HashMap;
use std::path::Path;

use quick_xml::events::Event;

use super::lines::{Direction, RoadError, RoadLine};

/// `highway` values that carry people or vehicles (everything else, such as
/// `proposed`, `construction` or `platform`, is left out).
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

/// One way as read: node references and tags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OsmWay {
    /// Node ids in order.
    pub nodes: Vec<i64>,
    /// Tags.
    pub tags: HashMap<String, String>,
}

/// What an OSM file holds that roads need.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OsmData {
    /// Node positions `(latitude, longitude)` by id.
    pub nodes: HashMap<i64, (f64, f64)>,
    /// Every way.
    pub ways: Vec<OsmWay>,
}

impl OsmData {
    /// Ways with a `highway` tag.
    pub fn highways(&self) -> impl Iterator<Item = &OsmWay> {
        self.ways.iter().filter(|w| w.tags.contains_key("highway"))
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
            }
            Element::DenseNode(n) => {
                data.nodes.insert(n.id(), (n.lat(), n.lon()));
            }
            Element::Way(w) => data.ways.push(OsmWay {
                nodes: w.refs().collect(),
                tags: w
                    .tags()
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect(),
            }),
            Element::Relation(_) => {}
        })
        .map_err(|e| error(path, e))?;
    Ok(data)
}

/// Reads an `.osm` XML file.
///
/// # Errors
/// [`RoadError`] when the file cannot be read or is not well-formed XML.
pub fn read_xml(path: &Path) -> Result<OsmData, RoadError> {
    let mut reader = quick_xml::Reader::from_file(path).map_err(|e| error(path, e))?;
    let mut data = OsmData::default();
    let mut buffer = Vec::new();
    let mut way: Option<OsmWay> = None;
    loop {
        let event = reader
            .read_event_into(&mut buffer)
            .map_err(|e| error(path, e))?;
        match &event {
            Event::Start(tag) | Event::Empty(tag) => {
                let attribute = |name: &[u8]| -> Option<String> {
                    tag.attributes()
                        .flatten()
                        .find(|a| a.key.as_ref() == name)
                        .and_then(|a| a.unescape_value().ok().map(std::borrow::Cow::into_owned))
                };
                match tag.name().as_ref() {
                    b"node" => {
                        let id = attribute(b"id").and_then(|v| v.parse().ok());
                        let lat = attribute(b"lat").and_then(|v| v.parse().ok());
                        let lon = attribute(b"lon").and_then(|v| v.parse().ok());
                        if let (Some(id), Some(lat), Some(lon)) = (id, lat, lon) {
                            data.nodes.insert(id, (lat, lon));
                        }
                    }
                    b"way" => {
                        let new = OsmWay::default();
                        if matches!(event, Event::Empty(_)) {
                            data.ways.push(new);
                        } else {
                            way = Some(new);
                        }
                    }
                    b"nd" => {
                        if let (Some(way), Some(id)) =
                            (way.as_mut(), attribute(b"ref").and_then(|v| v.parse().ok()))
                        {
                            way.nodes.push(id);
                        }
                    }
                    b"tag" => {
                        if let (Some(way), Some(k), Some(v)) =
                            (way.as_mut(), attribute(b"k"), attribute(b"v"))
                        {
                            way.tags.insert(k, v);
                        }
                    }
                    _ => {}
                }
            }
            Event::End(tag) if tag.name().as_ref() == b"way" => {
                if let Some(done) = way.take() {
                    data.ways.push(done);
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buffer.clear();
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn one_way_rules() {
        assert_eq!(
            direction(&tags(&[("highway", "residential")])),
            Direction::Both
        );
        assert_eq!(
            direction(&tags(&[("highway", "residential"), ("oneway", "yes")])),
            Direction::Forward
        );
        assert_eq!(
            direction(&tags(&[("highway", "residential"), ("oneway", "-1")])),
            Direction::Backward
        );
        assert_eq!(
            direction(&tags(&[("highway", "motorway")])),
            Direction::Forward
        );
        assert_eq!(
            direction(&tags(&[("highway", "motorway"), ("oneway", "no")])),
            Direction::Both
        );
        assert_eq!(
            direction(&tags(&[("highway", "primary"), ("junction", "roundabout")])),
            Direction::Forward
        );
    }

    #[test]
    fn xml_ways_nodes_and_tags() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tiny.osm");
        std::fs::write(
            &path,
            r#"<?xml version="1.0"?><osm>
<node id="1" lat="43.0" lon="-79.0"/><node id="2" lat="43.001" lon="-79.0"><tag k="x" v="y"/></node>
<node id="3" lat="43.002" lon="-79.0"/>
<way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/><tag k="highway" v="residential"/><tag k="oneway" v="yes"/><tag k="name" v=" A &amp; B St "/></way>
<way id="11"><nd ref="1"/><nd ref="99"/><tag k="building" v="yes"/></way>
<way id="12"><nd ref="2"/><nd ref="3"/><tag k="highway" v="proposed"/></way>
</osm>"#,
        )
        .unwrap();
        let data = read_xml(&path).unwrap();
        assert_eq!(
            (data.nodes.len(), data.ways.len(), data.highways().count()),
            (3, 3, 2)
        );
        let lines = data.road_lines();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].direction, Direction::Forward);
        assert_eq!(lines[0].name, "A & B St");
        assert_eq!(lines[0].points.len(), 3);
        let broken = dir.path().join("broken.osm");
        std::fs::write(&broken, "<osm><way id=\"1\"></osm>").unwrap();
        assert!(read_xml(&broken).is_err());
    }
}
