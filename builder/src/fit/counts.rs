//! Weekly incident counts per cell and class, with prefix sums for O(1) window means.

use hexrisk_engine::forecast::CRIME_CLASSES;

use crate::inputs::cleaning::Ingested;

/// Number of crime classes counted.
pub const CLASSES: usize = CRIME_CLASSES.len();

/// Counts `[week][cell][class]` and their prefix sums over weeks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeeklyCounts {
    /// Number of weeks.
    pub weeks: usize,
    /// Number of cells.
    pub cells: usize,
    counts: Vec<u16>,
    /// `prefix[t][cell][class]` = incidents in weeks `0..t`.
    prefix: Vec<u32>,
    /// `city_prefix[t][class]` = city-wide incidents in weeks `0..t`.
    city_prefix: Vec<u32>,
}

pub(crate) fn class_slot(class: hexrisk_engine::CrimeClass) -> usize {
    CRIME_CLASSES
        .iter()
        .position(|&c| c == class)
        .unwrap_or(CLASSES - 1)
}

impl WeeklyCounts {
    /// Counts the incidents of an ingested city.
    #[must_use]
    pub fn from_ingested(ingested: &Ingested) -> Self {
        Self::known_on(ingested, None)
    }

    /// Counts the incidents of an ingested city known on `cutoff`: those reported
    /// on or after it are left out (an incident without a report date is known
    /// from its occurrence). `None` counts every incident.
    #[must_use]
    pub fn known_on(ingested: &Ingested, cutoff: Option<chrono::NaiveDate>) -> Self {
        let weeks = ingested.weeks.count;
        let cells = ingested.grid.cells.len();
        let mut counts = vec![0u16; weeks * cells * CLASSES];
        let known = |reported: Option<chrono::NaiveDate>| {
            cutoff.is_none_or(|cutoff| reported.is_none_or(|r| r < cutoff))
        };
        for incident in ingested.incidents.iter().filter(|i| known(i.reported)) {
            if let Some(week) = ingested.weeks.index_of(incident.date) {
                let slot = &mut counts
                    [(week * cells + incident.cell) * CLASSES + class_slot(incident.class)];
                *slot = slot.saturating_add(1);
            }
        }
        Self::from_counts(weeks, cells, counts)
    }

    /// From a raw `[week][cell][class]` table.
    ///
    /// # Panics
    /// When the table is not `weeks × cells × CLASSES` long.
    #[must_use]
    pub fn from_counts(weeks: usize, cells: usize, counts: Vec<u16>) -> Self {
        assert_eq!(counts.len(), weeks * cells * CLASSES, "count table size");
        let stride = cells * CLASSES;
        let mut prefix = vec![0u32; (weeks + 1) * stride];
        let mut city_prefix = vec![0u32; (weeks + 1) * CLASSES];
        for t in 0..weeks {
            for k in 0..stride {
                prefix[(t + 1) * stride + k] =
                    prefix[t * stride + k] + u32::from(counts[t * stride + k]);
            }
            for c in 0..CLASSES {
                let week_total: u32 = (0..cells)
                    .map(|i| u32::from(counts[t * stride + i * CLASSES + c]))
                    .sum();
                city_prefix[(t + 1) * CLASSES + c] = city_prefix[t * CLASSES + c] + week_total;
            }
        }
        Self {
            weeks,
            cells,
            counts,
            prefix,
            city_prefix,
        }
    }

    /// Incidents of `class` in `cell` during `week`.
    #[must_use]
    pub fn get(&self, week: usize, cell: usize, class: usize) -> u16 {
        self.counts[(week * self.cells + cell) * CLASSES + class]
    }

    /// All five counts of a cell-week.
    #[must_use]
    pub fn cell_week(&self, week: usize, cell: usize) -> [u16; CLASSES] {
        let start = (week * self.cells + cell) * CLASSES;
        let mut out = [0; CLASSES];
        out.copy_from_slice(&self.counts[start..start + CLASSES]);
        out
    }

    /// Incidents of `class` in `cell` over weeks `from..to` (clamped to the data).
    #[must_use]
    pub fn window(&self, cell: usize, class: usize, from: usize, to: usize) -> u32 {
        let to = to.min(self.weeks);
        let from = from.min(to);
        let stride = self.cells * CLASSES;
        let k = cell * CLASSES + class;
        self.prefix[to * stride + k] - self.prefix[from * stride + k]
    }

    /// City-wide incidents of `class` over weeks `from..to` (clamped to the data).
    #[must_use]
    pub fn city_window(&self, class: usize, from: usize, to: usize) -> u32 {
        let to = to.min(self.weeks);
        let from = from.min(to);
        self.city_prefix[to * CLASSES + class] - self.city_prefix[from * CLASSES + class]
    }
}

#[cfg(test)]
mod tests;
