//! Small hand-made city artifacts for tests, shared by this crate's tests and (with
//! the `test-fixtures` feature) by the other crates' tests and fuzz targets, so no
//! test builds a `CityArtifact` field by field.
//!
//! ```
//! use hexrisk_engine::artifact::fixture::CityFixture;
//! use hexrisk_engine::city::CityModel;
//!
//! let model = CityModel::from_artifact(CityFixture::default().weeks(2).build());
//! assert_eq!(model.week_count(), 2);
//! ```

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use chrono::NaiveDate;
use h3o::CellIndex;

use super::{
    Bounds, CityArtifact, CityInfo, ForecastCalendar, ModelInfo, PrecinctRecord, RATE_CLASSES,
    quantise_rate,
};
use crate::forecast::{Dispersion, ProfileBasis, TimeBands, TimeProfiles, quantise_share};
use crate::grid::{self, MicroDegrees};
use crate::roads::{NetworkKind, OUTSIDE_GRID, REVERSED, RoadGraph};

/// The expected count of a class in a cell-week: `(week, grid position, cell,
/// class slot)` to a rate.
type RateFn = Box<dyn Fn(usize, usize, CellIndex, usize) -> f64>;

/// A Toronto-like test city. The default has three cells near the city hall, three
/// forecast weeks from 2021-12-20, rates `0.01 × (n + 1)` for the n-th stored rate,
/// mixed dispersions, one precinct over the first two cells, the EST/EDT offsets of
/// 2022 and [`tiny_graph`] as its road network; each setter changes one aspect.
pub struct CityFixture {
    code: String,
    cells: Vec<u64>,
    first_week: NaiveDate,
    weeks: usize,
    rates: RateFn,
    dispersion: Dispersion,
    version: String,
    note: Option<String>,
    last_updated: NaiveDate,
    bounds: Bounds,
    precinct: bool,
    utc_offsets: Vec<(i64, i32)>,
    road_graph: Option<RoadGraph>,
    profile: ProfileFn,
}

/// Weight of a band in a cell's and class's profile: `(cell position, class, band
/// index)`; each cell-class is normalised to sum to 1.
type ProfileFn = Box<dyn Fn(usize, usize, usize) -> f64>;

/// The fixtures' band layout: 4-hour bands, band days from 22:00.
pub const FIXTURE_BANDS: TimeBands = TimeBands {
    band_hours: 4,
    day_start_hour: 22,
};

impl Default for CityFixture {
    fn default() -> Self {
        Self {
            code: "city_ca_tor".into(),
            cells: Vec::new(),
            first_week: date(2021, 12, 20),
            weeks: 3,
            rates: Box::new(|_, _, _, _| 0.0),
            dispersion: [2.0, 1.0, f64::INFINITY, 0.5, 3.0],
            version: "test".into(),
            note: None,
            last_updated: date(2021, 12, 31),
            bounds: Bounds {
                north: 43.7,
                south: 43.6,
                east: -79.3,
                west: -79.5,
            },
            precinct: true,
            // EST, then EDT from 2022-03-13 07:00 UTC.
            utc_offsets: vec![(1_639_000_000, -5 * 3600), (1_647_154_800, -4 * 3600)],
            road_graph: Some(tiny_graph()),
            // Busier the later the band, so every band differs from the flat profile.
            profile: Box::new(|_, _, band| {
                FIXTURE_BANDS.flat_share(FIXTURE_BANDS.band(band)) * (1.0 + (band % 6) as f64)
            }),
        }
        .cells_at(&[(43.65, -79.38), (43.66, -79.39), (43.67, -79.40)])
        .rates_by_index(|n| 0.01 * (n as f64 + 1.0))
    }
}

fn date(year: i32, month: u32, day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(year, month, day).expect("fixture dates are valid")
}

impl CityFixture {
    /// A small Toronto, the city the API tests answer from: every cell within 3 rings
    /// of the city hall cell, four forecast weeks from 2021-12-27, busier towards the
    /// centre and later weeks; model `test-model` of 2021-12-26; EST throughout; no
    /// precincts. It keeps the tiny road network (two nodes east of city hall) unless
    /// [`CityFixture::without_roads`] is called.
    ///
    /// # Panics
    /// Never: its points and dates are valid.
    #[must_use]
    pub fn small_toronto() -> Self {
        let (lat, lng) = (43.6534, -79.3841);
        let centre = grid::cell_at(lat, lng).expect("fixture points are valid");
        let shares = [0.3, 0.4, 0.15, 0.1, 0.05];
        Self::default()
            .disk_around(lat, lng, 3)
            .weeks(4)
            .first_week(date(2021, 12, 27))
            .rates(move |week, _, cell, class| {
                let ring = f64::from(centre.grid_distance(cell).unwrap_or(0));
                2.0 / (1.0 + ring) * (1.0 + 0.1 * week as f64) * shares[class]
            })
            .dispersion([2.0; 5])
            .model("test-model", None, date(2021, 12, 26))
            .bounds(Bounds {
                north: 43.68,
                south: 43.63,
                east: -79.35,
                west: -79.42,
            })
            .fixed_utc_offset(-5 * 3600)
            .without_precincts()
    }

    /// The cells containing these points (sorted, as an artifact stores them).
    ///
    /// # Panics
    /// On an invalid coordinate: a fixture is test code, where a panic is the report.
    #[must_use]
    pub fn cells_at(mut self, points: &[(f64, f64)]) -> Self {
        self.cells = points
            .iter()
            .map(|&(lat, lng)| {
                u64::from(grid::cell_at(lat, lng).expect("fixture points are valid"))
            })
            .collect();
        self.cells.sort_unstable();
        self.cells.dedup();
        self
    }

    /// Every cell within `k` rings of the cell containing a point.
    ///
    /// # Panics
    /// On an invalid coordinate or `k` above the largest ring distance.
    #[must_use]
    pub fn disk_around(mut self, lat: f64, lng: f64, k: u32) -> Self {
        let centre = grid::cell_at(lat, lng).expect("fixture points are valid");
        self.cells = grid::disk(centre, k)
            .expect("fixture rings are small")
            .into_iter()
            .map(u64::from)
            .collect();
        self.cells.sort_unstable();
        self
    }

    /// The number of forecast weeks.
    #[must_use]
    pub fn weeks(mut self, weeks: usize) -> Self {
        self.weeks = weeks;
        self
    }

    /// Monday of the first forecast week.
    #[must_use]
    pub fn first_week(mut self, monday: NaiveDate) -> Self {
        self.first_week = monday;
        self
    }

    /// Rates from `(week, position, cell, class slot)`.
    #[must_use]
    pub fn rates(mut self, rate: impl Fn(usize, usize, CellIndex, usize) -> f64 + 'static) -> Self {
        self.rates = Box::new(rate);
        self
    }

    /// Rates from the index of the rate in storage order (week, cell, class).
    #[must_use]
    pub fn rates_by_index(self, rate: impl Fn(usize) -> f64 + 'static) -> Self {
        let cells = self.cells.len();
        self.rates(move |week, position, _, class| {
            rate((week * cells + position) * RATE_CLASSES + class)
        })
    }

    /// The negative binomial sizes of every week.
    #[must_use]
    pub fn dispersion(mut self, sizes: Dispersion) -> Self {
        self.dispersion = sizes;
        self
    }

    /// The model's version label, note and last update.
    #[must_use]
    pub fn model(mut self, version: &str, note: Option<&str>, last_updated: NaiveDate) -> Self {
        self.version = version.into();
        self.note = note.map(Into::into);
        self.last_updated = last_updated;
        self
    }

    /// The city's bounds.
    #[must_use]
    pub fn bounds(mut self, bounds: Bounds) -> Self {
        self.bounds = bounds;
        self
    }

    /// One UTC offset (seconds) for all time.
    #[must_use]
    pub fn fixed_utc_offset(mut self, seconds: i32) -> Self {
        self.utc_offsets = vec![(0, seconds)];
        self
    }

    /// The city code (`city_ca_tor` by default).
    #[must_use]
    pub fn code(mut self, code: &str) -> Self {
        self.code = code.into();
        self
    }

    /// No precincts.
    #[must_use]
    pub fn without_precincts(mut self) -> Self {
        self.precinct = false;
        self
    }

    /// Sets each band's weight in the time-of-day profiles, `(cell position, class,
    /// band index)`; weights are normalised per cell and class.
    #[must_use]
    pub fn profile(mut self, weight: impl Fn(usize, usize, usize) -> f64 + 'static) -> Self {
        self.profile = Box::new(weight);
        self
    }

    /// No road network.
    #[must_use]
    pub fn without_roads(mut self) -> Self {
        self.road_graph = None;
        self
    }

    /// The artifact.
    ///
    /// # Panics
    /// Never for cells set through this builder (they are valid cell ids).
    #[must_use]
    pub fn build(self) -> CityArtifact {
        let mut rates = Vec::with_capacity(self.weeks * self.cells.len() * RATE_CLASSES);
        for week in 0..self.weeks {
            for (position, &raw) in self.cells.iter().enumerate() {
                let cell = CellIndex::try_from(raw).expect("fixture cells are valid");
                for class in 0..RATE_CLASSES {
                    rates.push(quantise_rate((self.rates)(week, position, cell, class)));
                }
            }
        }
        let (precinct_of, precincts) = if self.precinct {
            let mut of = vec![0; self.cells.len()];
            if let Some(last) = of.last_mut() {
                *last = u16::MAX;
            }
            let ring = [
                [-79_400_000, 43_600_000],
                [-79_300_000, 43_600_000],
                [-79_300_000, 43_700_000],
                [-79_400_000, 43_600_000],
            ];
            let precinct = PrecinctRecord {
                id: "D52".into(),
                name: "52 Division".into(),
                polygons: vec![vec![ring.iter().map(|&p| MicroDegrees(p)).collect()]],
            };
            (of, vec![precinct])
        } else {
            (vec![u16::MAX; self.cells.len()], Vec::new())
        };
        let bands = FIXTURE_BANDS.count();
        let mut shares = Vec::with_capacity(self.cells.len() * RATE_CLASSES * bands);
        for cell in 0..self.cells.len() {
            for class in 0..RATE_CLASSES {
                let weights: Vec<f64> =
                    (0..bands).map(|b| (self.profile)(cell, class, b)).collect();
                let total: f64 = weights.iter().sum();
                shares.extend(weights.iter().map(|w| quantise_share(w / total)));
            }
        }
        CityArtifact {
            profiles: TimeProfiles {
                bands: FIXTURE_BANDS,
                basis: [ProfileBasis::Cells; RATE_CLASSES],
                shares,
            },
            city: CityInfo {
                code: self.code,
                name: "Toronto".into(),
                country: "Canada".into(),
                timezone: "America/Toronto".into(),
            },
            model: ModelInfo {
                version: self.version,
                mae: 0.5,
                last_updated: self.last_updated,
                note: self.note,
            },
            calendar: ForecastCalendar {
                first_week: self.first_week,
                weeks: self.weeks as u32,
                observed_weeks: 1,
            },
            bounds: self.bounds,
            precinct_of,
            precincts,
            cells: self.cells,
            rates,
            dispersion: vec![self.dispersion; self.weeks],
            utc_offsets: self.utc_offsets,
            road_graph: self.road_graph,
            street_shares: None,
            places: None,
        }
    }
}

/// Two nodes in Toronto joined by one way with an interior point, usable in both
/// directions and named `Queen St W`; the way crosses grid position 0 and then
/// leaves the grid.
#[must_use]
pub fn tiny_graph() -> RoadGraph {
    RoadGraph {
        kind: NetworkKind::Roads,
        source: "test".into(),
        nodes: vec![
            MicroDegrees([-79_380_000, 43_650_000]),
            MicroDegrees([-79_370_000, 43_650_000]),
        ],
        first_edge: vec![0, 1, 2],
        edge_target: vec![1, 0],
        edge_way: vec![0, REVERSED],
        way_length_m: vec![805.0],
        way_points_start: vec![0, 1],
        way_points: vec![MicroDegrees([-79_375_000, 43_651_000])],
        way_cells_start: vec![0, 2],
        way_cells: vec![0, OUTSIDE_GRID],
        way_cell_m: vec![500.0, 305.0],
        contraction_order: vec![1, 0],
        names: vec!["Queen St W".into()],
        way_name: vec![1],
    }
}
