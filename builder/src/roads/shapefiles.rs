//! Road lines from shapefiles: Toronto's HERE-derived streets (a zipped shapefile
//! with one-way rules) and US Census TIGER/Line roads (no one-way data).

use std::fs::File;
use std::io::{Cursor, Read, Seek};
use std::path::Path;

use shapefile::dbase::{self, FieldValue};

use super::lines::{Direction, RoadError, RoadLine};

fn io(path: &Path) -> impl Fn(&dyn std::fmt::Display) -> RoadError + '_ {
    move |e| RoadError::Io {
        path: path.to_owned(),
        reason: e.to_string(),
    }
}

fn text(record: &dbase::Record, field: &str) -> String {
    match record.get(field) {
        Some(FieldValue::Character(Some(s))) => s.trim().to_owned(),
        Some(FieldValue::Numeric(Some(n))) => n.to_string(),
        _ => String::new(),
    }
}

fn read_lines<S: Read + Seek, D: Read + Seek>(
    shp: S,
    dbf: D,
    path: &Path,
    mut direction: impl FnMut(&dbase::Record, &[(f64, f64)]) -> Option<Direction>,
    name_field: &str,
) -> Result<Vec<RoadLine>, RoadError> {
    let err = io(path);
    let shapes = shapefile::ShapeReader::new(shp).map_err(|e| err(&e))?;
    let records = dbase::Reader::new(dbf).map_err(|e| err(&e))?;
    let mut reader = shapefile::Reader::new(shapes, records);
    let mut lines = Vec::new();
    for item in reader.iter_shapes_and_records_as::<shapefile::Polyline, dbase::Record>() {
        let (polyline, record) = item.map_err(|e| err(&e))?;
        for part in polyline.parts() {
            let points: Vec<(f64, f64)> = part.iter().map(|p| (p.y, p.x)).collect();
            if points.len() < 2 {
                continue;
            }
            if let Some(direction) = direction(&record, &points) {
                lines.push(RoadLine {
                    points,
                    direction,
                    name: text(&record, name_field),
                });
            }
        }
    }
    Ok(lines)
}

/// Toronto's HERE-derived streets (`streets_here.zip`). `DIR_TRAVEL` is `B` (both
/// ways), or `F`/`T`: one way from/to the reference node, the end with the lower
/// latitude; `ST_NAME` is the street name (upper case, e.g. `QUEEN ST W`).
///
/// # Errors
/// [`RoadError`] when the archive or its shapefile cannot be read.
pub fn read_toronto_streets(zip_path: &Path) -> Result<Vec<RoadLine>, RoadError> {
    let err = io(zip_path);
    let mut archive =
        zip::ZipArchive::new(File::open(zip_path).map_err(|e| err(&e))?).map_err(|e| err(&e))?;
    let mut member = |name: &str| -> Result<Cursor<Vec<u8>>, RoadError> {
        let mut bytes = Vec::new();
        archive
            .by_name(name)
            .map_err(|e| err(&e))?
            .read_to_end(&mut bytes)
            .map_err(|e| err(&e))?;
        Ok(Cursor::new(bytes))
    };
    let (shp, dbf) = (member("here_streets.shp")?, member("here_streets.dbf")?);
    read_lines(
        shp,
        dbf,
        zip_path,
        |record, points| {
            let first_is_reference = points[0].0 <= points[points.len() - 1].0;
            match text(record, "DIR_TRAVEL").as_str() {
                "F" if first_is_reference => Some(Direction::Forward),
                "F" => Some(Direction::Backward),
                "T" if first_is_reference => Some(Direction::Backward),
                "T" => Some(Direction::Forward),
                _ => Some(Direction::Both),
            }
        },
        "ST_NAME",
    )
}

/// US Census TIGER/Line roads (a `*_roads.shp` with its `.dbf`); no one-way data.
/// `FULLNAME` is the street name (e.g. `Geary Blvd`).
///
/// # Errors
/// [`RoadError`] when the shapefile cannot be read.
pub fn read_tiger_roads(shp_path: &Path) -> Result<Vec<RoadLine>, RoadError> {
    let err = io(shp_path);
    let shp = File::open(shp_path).map_err(|e| err(&e))?;
    let dbf = File::open(shp_path.with_extension("dbf")).map_err(|e| err(&e))?;
    read_lines(
        std::io::BufReader::new(shp),
        std::io::BufReader::new(dbf),
        shp_path,
        |_, _| Some(Direction::Both),
        "FULLNAME",
    )
}
