//! Scores of many cells at once, kept in columns.
//!
//! A map colours thousands of hexes per frame; building one object per cell costs
//! more than the scoring itself. [`ScoredCells`] keeps the cells, their safety scores
//! and their colour indexes in three parallel vectors, which the npm package hands to
//! JavaScript as typed arrays in one copy each. The router API's row answers
//! ([`super::hexes_score`], [`super::hexes_lookup`]) are serialised from the same
//! columns ([`super::ScoreRows`]), so both forms always agree.

use alloc::vec::Vec;

use super::options::{Scoring, ScoringQuery};
use super::{ErrorCode, QueryError};
use crate::CellIndex;
use crate::city::{Atlas, CityModel};
use crate::grid;
use crate::scoring::{CityScores, ColourIndex};

/// Scores kept between requests: for each city of an atlas (by position), the
/// resolved options and scores of the last request that touched it.
///
/// A map asks again and again with the same options and week; with a memo only a
/// change of options or week recomputes a city's scores. A memo belongs to one
/// atlas: clear it whenever a city is added or replaced.
#[derive(Debug, Default)]
pub struct ScoreMemo {
    cities: Vec<Option<(Scoring, CityScores)>>,
}

impl ScoreMemo {
    /// An empty memo.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets every city's scores.
    pub fn clear(&mut self) {
        self.cities.clear();
    }
}

/// The scores one request reads: each city's options are resolved once per
/// request (a city the request never touches costs nothing), and its scores are
/// reused from the memo when the resolved options are unchanged.
pub(crate) struct ScoreCache<'a> {
    scoring: &'a ScoringQuery,
    now: i64,
    memo: MemoRef<'a>,
    checked: Vec<bool>,
}

/// A caller's memo, or one for this request alone.
enum MemoRef<'a> {
    Borrowed(&'a mut ScoreMemo),
    Owned(ScoreMemo),
}

impl<'a> ScoreCache<'a> {
    /// Checks the options up front, so a request whose cells all lie outside
    /// coverage still learns about a bad intent or class code.
    pub(crate) fn new(scoring: &'a ScoringQuery, now: i64) -> Result<Self, QueryError> {
        Self::build(scoring, now, MemoRef::Owned(ScoreMemo::new()))
    }

    /// As [`ScoreCache::new`], keeping scores in `memo` between requests.
    pub(crate) fn with_memo(
        scoring: &'a ScoringQuery,
        now: i64,
        memo: &'a mut ScoreMemo,
    ) -> Result<Self, QueryError> {
        Self::build(scoring, now, MemoRef::Borrowed(memo))
    }

    fn build(scoring: &'a ScoringQuery, now: i64, memo: MemoRef<'a>) -> Result<Self, QueryError> {
        scoring.params()?;
        Ok(Self {
            scoring,
            now,
            memo,
            checked: Vec::new(),
        })
    }

    /// The resolved options and scores of the city at `index` in `atlas`.
    pub(crate) fn get(
        &mut self,
        atlas: &Atlas,
        index: usize,
    ) -> Result<&(Scoring, CityScores), QueryError> {
        let memo = match &mut self.memo {
            MemoRef::Borrowed(memo) => &mut **memo,
            MemoRef::Owned(memo) => memo,
        };
        let count = atlas.cities().len();
        if memo.cities.len() != count {
            memo.cities.resize_with(count, || None);
        }
        if self.checked.len() != count {
            self.checked.resize(count, false);
        }
        if !self.checked[index] {
            let city = &atlas.cities()[index];
            let scoring = self.scoring.resolve(city, self.now)?;
            if memo.cities[index].as_ref().map(|(kept, _)| kept) != Some(&scoring) {
                let scores = CityScores::compute(city, scoring.week, &scoring.params);
                memo.cities[index] = Some((scoring, scores));
            }
            self.checked[index] = true;
        }
        memo.cities[index]
            .as_ref()
            .ok_or_else(|| QueryError::new(ErrorCode::InternalError, "", "scores were not kept"))
    }
}

/// The city (by position in the atlas) and grid position of a covered cell.
pub(crate) fn locate(atlas: &Atlas, cell: CellIndex) -> Option<(usize, &CityModel, usize)> {
    atlas.cities().iter().enumerate().find_map(|(index, city)| {
        city.position(cell)
            .map(|position| (index, &**city, position))
    })
}

/// Cells with their safety scores and colour indexes, in parallel columns.
///
/// A cell outside every city has a safety score of NaN and colour index
/// [`ColourIndex::NO_DATA`] (`-1`, shown as N/A).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScoredCells {
    /// The cells, in the order asked for.
    pub cells: Vec<CellIndex>,
    /// Safety score of each cell, 0 (least safe) to 100; NaN without data.
    pub safety_scores: Vec<f64>,
    /// Colour band of each cell, 0 to 16; -1 without data.
    pub color_indexes: Vec<i8>,
}

impl ScoredCells {
    /// Scores `cells` in order with the options of `scoring`; `now` (seconds since
    /// the epoch) sets the default week. City scores are reused from `memo` when
    /// the options and week are unchanged, and kept there (pass
    /// `&mut ScoreMemo::new()` to keep none).
    ///
    /// # Errors
    /// Bad scoring options (unknown intent or class, a week outside a city's
    /// forecasts), reported even when no cell is covered.
    pub fn score(
        atlas: &Atlas,
        cells: Vec<CellIndex>,
        scoring: &ScoringQuery,
        now: i64,
        memo: &mut ScoreMemo,
    ) -> Result<Self, QueryError> {
        Self::score_cached(atlas, cells, ScoreCache::with_memo(scoring, now, memo)?)
    }

    fn score_cached(
        atlas: &Atlas,
        cells: Vec<CellIndex>,
        mut cache: ScoreCache<'_>,
    ) -> Result<Self, QueryError> {
        let mut safety_scores = Vec::with_capacity(cells.len());
        let mut color_indexes = Vec::with_capacity(cells.len());
        for &cell in &cells {
            let (safety, colour) = match locate(atlas, cell) {
                Some((index, _, position)) => {
                    let (_, scores) = cache.get(atlas, index)?;
                    let safety = scores.safety(position);
                    (safety, ColourIndex::from_safety_score(safety))
                }
                None => (f64::NAN, ColourIndex::NO_DATA),
            };
            safety_scores.push(safety);
            color_indexes.push(colour.get());
        }
        Ok(Self {
            cells,
            safety_scores,
            color_indexes,
        })
    }

    /// Scores the cells within `k` steps of `centre` (H3 `gridDisk` order: the
    /// centre first, then ring by ring).
    ///
    /// # Errors
    /// `INVALID_REQUEST` on `ring` for `k` above [`grid::MAX_RING_DISTANCE`]; bad
    /// scoring options.
    pub fn ring(
        atlas: &Atlas,
        centre: CellIndex,
        k: u32,
        scoring: &ScoringQuery,
        now: i64,
        memo: &mut ScoreMemo,
    ) -> Result<Self, QueryError> {
        let disk = grid::disk(centre, k)
            .map_err(|e| QueryError::invalid("ring", alloc::string::ToString::to_string(&e)))?;
        Self::score(atlas, disk, scoring, now, memo)
    }

    /// Scores the covered cells whose centres lie in a box, city by city in grid
    /// order. The caller checks the box (see [`super::hexes_all`] for the limits
    /// the HTTP API enforces).
    ///
    /// # Errors
    /// Bad scoring options.
    pub fn in_box(
        atlas: &Atlas,
        [west, south, east, north]: [f64; 4],
        scoring: &ScoringQuery,
        now: i64,
        memo: &mut ScoreMemo,
    ) -> Result<Self, QueryError> {
        let mut cells = Vec::new();
        for city in atlas.cities() {
            let b = &city.artifact().bounds;
            if b.east < west || b.west > east || b.north < south || b.south > north {
                continue;
            }
            cells.extend((0..city.cell_count()).filter_map(|position| {
                let cell = city.cell(position)?;
                let (lat, lng) = grid::cell_centre(cell);
                ((west..=east).contains(&lng) && (south..=north).contains(&lat)).then_some(cell)
            }));
        }
        Self::score(atlas, cells, scoring, now, memo)
    }

    /// Number of cells.
    #[must_use]
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether there are no cells.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
}

#[cfg(test)]
mod tests;
