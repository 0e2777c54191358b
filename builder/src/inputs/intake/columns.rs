//! What the intake needs to know of each file layout beyond what `sources` reads:
//! the names of the date and position columns (so a refused row can name its
//! column) and how an incident is identified (so overlapping files count it once).

use crate::inputs::config::{SourceConfig, SourceFormat};

/// Where a layout keeps the position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PositionColumns {
    /// Latitude and longitude columns.
    LatLng(String, String),
    /// One geometry text holding `lon, lat`.
    Geometry(String),
}

/// How an incident of a layout is told apart from another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Identity {
    /// By the values of these columns (an incident number and what tells apart the
    /// offences filed under it); rows with any of them empty fall back to `Content`.
    Columns(Vec<String>),
    /// By the whole row: every column's value, columns taken by name. Identical
    /// rows are told apart by their occurrence number among identical rows.
    Content,
}

/// The intake's view of a source's layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IntakeColumns {
    /// Column holding the date.
    pub(crate) date: String,
    /// Column or columns holding the position.
    pub(crate) position: PositionColumns,
    /// How rows are identified.
    pub(crate) identity: Identity,
}

fn owned(names: &[&str]) -> Vec<String> {
    names.iter().map(|&n| n.to_owned()).collect()
}

/// The intake columns of a source. The column names are those `sources::read`
/// looks up for the same layout.
pub(crate) fn of(source: &SourceConfig) -> IntakeColumns {
    let lat_lng = |lat: &str, lng: &str| PositionColumns::LatLng(lat.to_owned(), lng.to_owned());
    match source.format {
        // No incident number is published; 1,603 rows are exact duplicates that are
        // separate offences of one event, so identity is content plus occurrence.
        SourceFormat::TorontoMci => IntakeColumns {
            date: "occurrencedate".into(),
            position: lat_lng("Lat", "Long"),
            identity: Identity::Content,
        },
        // One event per EVENT_UNIQUE_ID; a homicide with several victims has one row
        // per victim under the same id, which the occurrence number keeps apart.
        SourceFormat::TorontoHomicides | SourceFormat::TorontoShootings => IntakeColumns {
            date: "OCC_DATE".into(),
            position: PositionColumns::Geometry("geometry".into()),
            identity: Identity::Columns(owned(&["EVENT_UNIQUE_ID"])),
        },
        // IncidntNum is shared by the several offences filed under one incident
        // (50 numbers appear twice in the sample); with the category and the
        // description it is unique.
        SourceFormat::SfpdIncidents => IntakeColumns {
            date: "Date".into(),
            position: lat_lng("lat", "lon"),
            identity: Identity::Columns(owned(&["IncidntNum", "Category", "Descript"])),
        },
        // No id; 575 rows repeat another exactly (one per offence of an event).
        SourceFormat::HoustonCrime => IntakeColumns {
            date: "time".into(),
            position: lat_lng("lat", "lon"),
            identity: Identity::Content,
        },
        // The generic CSV's optional `id` (docs/ADD_A_CITY.md); files without the
        // column, or rows with it empty, are identified by content.
        SourceFormat::Generic => IntakeColumns {
            date: "occurred_at".into(),
            position: lat_lng("latitude", "longitude"),
            identity: Identity::Columns(owned(&["id"])),
        },
    }
}
