//! The incident store: every record each feed of a city has served, by the
//! source's row key, with when it was first seen, when it last changed, how many
//! revisions it went through, whether the source has since deleted it, and which
//! pull brought each of these.
//!
//! One SQLite file per city (`<store>/<code>.sqlite`). SQLite because the job is
//! transactions, not analytics: a page of rows, the pull's progress and its
//! bookkeeping commit together or not at all, so a sync stopped anywhere resumes
//! with nothing counted twice; the whole city is read once per build. It is the
//! engine D1 runs, embedded (`rusqlite`, bundled: no system library needed).
//!
//! What a pull does is in `feeds/sync.rs`; this module keeps the rows:
//! [`record`] (a row and its digest), [`pulls`] (a pull's life and its pages),
//! [`reconcile`] (deletions and re-keyed rows at the end of a pull), [`read`]
//! (what the build and health read).

pub mod pulls;
pub mod read;
pub mod reconcile;
pub mod record;

use std::path::{Path, PathBuf};

use rusqlite::Connection;

/// The schema. `user_version` names it, so a store of another layout is refused
/// rather than misread.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS pulls (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL,
    kind TEXT NOT NULL,
    since TEXT,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    state TEXT NOT NULL,
    next_offset INTEGER NOT NULL DEFAULT 0,
    mark TEXT,
    fetched INTEGER NOT NULL DEFAULT 0,
    added INTEGER NOT NULL DEFAULT 0,
    revised INTEGER NOT NULL DEFAULT 0,
    unchanged INTEGER NOT NULL DEFAULT 0,
    deleted INTEGER NOT NULL DEFAULT 0,
    restored INTEGER NOT NULL DEFAULT 0,
    rekeyed INTEGER NOT NULL DEFAULT 0,
    replacement INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    reconciled INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS pulls_by_source ON pulls (source, id);
CREATE TABLE IF NOT EXISTS records (
    source TEXT NOT NULL,
    id TEXT NOT NULL,
    event TEXT,
    occurred_date TEXT,
    occurred_hour INTEGER,
    reported TEXT,
    offence TEXT NOT NULL,
    description TEXT,
    premises TEXT,
    lat REAL,
    lng REAL,
    mark TEXT,
    digest BLOB NOT NULL,
    first_pull INTEGER NOT NULL,
    changed_pull INTEGER NOT NULL,
    revisions INTEGER NOT NULL DEFAULT 0,
    deleted_pull INTEGER,
    PRIMARY KEY (source, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS revisions (
    source TEXT NOT NULL,
    id TEXT NOT NULL,
    pull INTEGER NOT NULL,
    before TEXT NOT NULL,
    PRIMARY KEY (source, id, pull)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS pull_seen (
    pull INTEGER NOT NULL,
    id TEXT NOT NULL,
    mark TEXT,
    PRIMARY KEY (pull, id)
) WITHOUT ROWID;
";

/// The layout [`SCHEMA`] creates.
const SCHEMA_VERSION: i64 = 2;

/// What brings a store of an older layout to [`SCHEMA_VERSION`], by the layout it
/// starts from: layout 1 lacked the rows each pull's reconciliation repaired.
const MIGRATIONS: [(i64, &str); 1] = [(
    1,
    "ALTER TABLE pulls ADD COLUMN reconciled INTEGER NOT NULL DEFAULT 0;",
)];

/// A store that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Opening, reading or writing the database failed.
    #[error("incident store {path}: {source}")]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// The cause.
        source: rusqlite::Error,
    },
    /// The folder cannot be made.
    #[error("incident store {path}: {source}")]
    Io {
        /// The folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file holds another layout than this build writes.
    #[error(
        "incident store {path} has layout {found}; this build reads layouts 1 to {SCHEMA_VERSION}"
    )]
    Layout {
        /// The database file.
        path: PathBuf,
        /// Its `user_version`.
        found: i64,
    },
    /// A value read back is not what the store writes.
    #[error("incident store {path}: {what}")]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
}

/// One city's incident store.
#[derive(Debug)]
pub struct IncidentStore {
    connection: Connection,
    path: PathBuf,
}

impl IncidentStore {
    /// The store of city `code` under the folder `root`, made when missing.
    ///
    /// # Errors
    /// [`StoreError`] when the folder or the database cannot be made or read, or
    /// it holds another layout.
    pub fn open(root: &Path, code: &str) -> Result<Self, StoreError> {
        std::fs::create_dir_all(root).map_err(|source| StoreError::Io {
            path: root.to_path_buf(),
            source,
        })?;
        let path = Self::path_of(root, code);
        let connection = Connection::open(&path).map_err(|source| StoreError::Sqlite {
            path: path.clone(),
            source,
        })?;
        Self::prepare(connection, path)
    }

    /// The store of city `code` under `root` if it exists; a build reads fed
    /// rows only from a store `update` made.
    ///
    /// # Errors
    /// [`StoreError`] when the file exists and cannot be read.
    pub fn open_existing(root: &Path, code: &str) -> Result<Option<Self>, StoreError> {
        if Self::path_of(root, code).is_file() {
            Self::open(root, code).map(Some)
        } else {
            Ok(None)
        }
    }

    /// A store in memory, for tests.
    ///
    /// # Errors
    /// [`StoreError`] when SQLite cannot start.
    pub fn in_memory() -> Result<Self, StoreError> {
        let path = PathBuf::from(":memory:");
        let connection = Connection::open_in_memory().map_err(|source| StoreError::Sqlite {
            path: path.clone(),
            source,
        })?;
        Self::prepare(connection, path)
    }

    /// The database file of city `code` under `root`.
    #[must_use]
    pub fn path_of(root: &Path, code: &str) -> PathBuf {
        root.join(format!("{code}.sqlite"))
    }

    /// The database file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn prepare(connection: Connection, path: PathBuf) -> Result<Self, StoreError> {
        let store = Self { connection, path };
        let found: i64 = store
            .connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(|e| store.sqlite(e))?;
        if found > SCHEMA_VERSION || (found != 0 && found < MIGRATIONS[0].0) {
            return Err(StoreError::Layout {
                path: store.path.clone(),
                found,
            });
        }
        // An older layout is brought forward in one transaction with the schema.
        let migrations: String = MIGRATIONS
            .iter()
            .filter(|(from, _)| found != 0 && *from >= found)
            .map(|(_, sql)| *sql)
            .collect();
        // WAL: a reader (health, a build) never waits for a sync's page; `FULL`
        // sync: a committed page survives a power cut, which is what resuming
        // relies on.
        store
            .connection
            .execute_batch(&format!(
                "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
                 BEGIN; {migrations} {SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
            ))
            .map_err(|e| store.sqlite(e))?;
        Ok(store)
    }

    /// Wraps a SQLite error with the file it came from.
    fn sqlite(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// A value read back that the store would not have written.
    fn corrupt(&self, what: impl Into<String>) -> StoreError {
        StoreError::Corrupt {
            path: self.path.clone(),
            what: what.into(),
        }
    }
}

#[cfg(test)]
mod tests;
