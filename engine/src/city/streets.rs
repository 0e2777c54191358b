//! A city's streets as its forecast sees them, derived from the artifact on first
//! use: the street metres inside each cell and, where the artifact carries street
//! shares, each way's decoded share of its home cell's expected incidents.

use alloc::vec::Vec;

use crate::artifact::CityArtifact;
use crate::roads::{OUTSIDE_GRID, RoadGraph, cell_lengths, decode_shares};

/// The street layer of a city.
#[derive(Debug, Clone, PartialEq)]
pub struct StreetLayer {
    /// Metres of the city's network inside each cell, grid order (every way's metres
    /// in every cell it crosses).
    pub cell_metres: Vec<f64>,
    /// Per way of the artifact's road graph, its home cell's grid position
    /// ([`crate::roads::RoadGraph::home_cell`]), [`OUTSIDE_GRID`] for a way of no
    /// cell; empty without street shares.
    pub homes: Vec<u32>,
    /// Per cell, the length of the ways whose home it is (`L_c` of the shares; empty
    /// without street shares).
    pub home_metres: Vec<f64>,
    /// Per share group: its classes (bit `i` for `CRIME_CLASSES[i]`) and each way's
    /// share of its home cell (the shares of a cell's ways sum to 1).
    pub groups: Vec<(u8, Vec<f32>)>,
}

impl StreetLayer {
    /// The layer of `graph` (the city's own network) and the artifact's shares.
    pub(super) fn new(artifact: &CityArtifact, graph: &RoadGraph) -> Self {
        let cells = artifact.cells.len();
        let mut cell_metres = alloc::vec![0.0; cells];
        for (&position, &m) in graph.way_cells.iter().zip(&graph.way_cell_m) {
            if let Some(metres) = cell_metres.get_mut(position as usize) {
                *metres += f64::from(m);
            }
        }
        let shares = artifact
            .street_shares
            .as_ref()
            .filter(|_| artifact.road_graph.as_ref() == Some(graph));
        let (homes, home_metres, groups) = match shares {
            Some(shares) => {
                let (homes, home_metres) = cell_lengths(graph, cells);
                let homes = homes
                    .into_iter()
                    .map(|home| home.unwrap_or(OUTSIDE_GRID))
                    .collect();
                let groups = shares
                    .groups
                    .iter()
                    .map(|group| {
                        let decoded = decode_shares(graph, cells, &group.codes);
                        (
                            group.classes,
                            decoded.into_iter().map(|s| s as f32).collect(),
                        )
                    })
                    .collect();
                (homes, home_metres, groups)
            }
            None => (Vec::new(), Vec::new(), Vec::new()),
        };
        Self {
            cell_metres,
            homes,
            home_metres,
            groups,
        }
    }

    /// Whether the layer spreads cells over their ways by learnt shares.
    #[must_use]
    pub fn has_shares(&self) -> bool {
        !self.groups.is_empty()
    }
}
