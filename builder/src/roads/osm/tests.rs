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

#[test]
fn street_classes_are_the_routable_streets() {
    assert_eq!(STREET_CLASSES.first(), Some(&"motorway"));
    assert_eq!(STREET_CLASSES.last(), Some(&"living_street"));
    assert!(!STREET_CLASSES.contains(&"service") && ROUTABLE.contains(&"service"));
}

#[test]
fn points_of_interest_from_nodes_closed_ways_and_multipolygons() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("points.osm");
    std::fs::write(
        &path,
        r#"<?xml version="1.0"?><osm>
<node id="1" lat="43.0" lon="-79.0"><tag k="amenity" v="cafe"/><tag k="name" v=" Cafe "/></node>
<node id="2" lat="43.0003" lon="-79.0"><tag k="amenity" v="cafe"/><tag k="name" v="Cafe"/></node>
<node id="3" lat="43.01" lon="-79.0"><tag k="name" v="A bare name"/></node>
<node id="4" lat="43.02" lon="-79.02"/><node id="5" lat="43.02" lon="-79.00"/>
<node id="6" lat="43.04" lon="-79.00"/><node id="7" lat="43.04" lon="-79.02"/>
<way id="20"><nd ref="4"/><nd ref="5"/><nd ref="6"/><nd ref="7"/><nd ref="4"/><tag k="building" v="yes"/><tag k="name" v="Hall"/></way>
<way id="21"><nd ref="4"/><nd ref="5"/><nd ref="6"/><nd ref="7"/><nd ref="4"/></way>
<way id="22"><nd ref="4"/><nd ref="5"/><nd ref="6"/><nd ref="4"/><tag k="highway" v="pedestrian"/><tag k="amenity" v="x"/><tag k="name" v="Walk"/></way>
<relation id="30"><member type="way" ref="21" role="outer"/><member type="way" ref="20" role="inner"/>
<tag k="type" v="multipolygon"/><tag k="building" v="university"/><tag k="name" v="House"/></relation>
</osm>"#,
    )
    .unwrap();
    let points = read_xml(&path).unwrap().points_of_interest();
    let named: Vec<(&str, (f64, f64))> = points
        .iter()
        .map(|p| (p.name.as_str(), p.position))
        .collect();
    // Two cafes 33 m apart are one; a bare name and a highway are not points.
    assert_eq!(named.len(), 3, "{named:?}");
    assert_eq!(named[0], ("Cafe", (43.0, -79.0)));
    // A closed way and a multipolygon: the mean of the ring's nodes, each once.
    for (name, position) in &named[1..] {
        assert!(["Hall", "House"].contains(name));
        assert!((position.0 - 43.03).abs() < 1e-9 && (position.1 + 79.01).abs() < 1e-9);
    }
}
