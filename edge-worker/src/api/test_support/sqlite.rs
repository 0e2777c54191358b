//! SQLite in memory as the portal's [`SqlDatabase`], made from the Worker's own
//! migrations (`edge-worker/migrations/*.sql`, in order), so that the native tests
//! run the store's SQL as D1 runs it. Foreign keys are enforced, as D1 does.

use std::cell::RefCell;
use std::path::Path;

use rusqlite::types::{Value as Stored, ValueRef};
use rusqlite::{Connection, params_from_iter};
use serde::de::DeserializeOwned;

use crate::api::partners::sql::{Outcome, Row, SqlDatabase, SqlError, SqlValue, Statement};

/// An in-memory database with the Worker's tables, and the statements it ran.
pub(crate) struct Sqlite {
    connection: Connection,
    /// The text of every statement the store ran, in order.
    pub(crate) ran: RefCell<Vec<String>>,
}

fn failed(e: impl std::fmt::Display) -> SqlError {
    SqlError::Database(e.to_string())
}

impl Sqlite {
    /// A new database, every migration applied.
    ///
    /// # Panics
    /// When a migration cannot be read or applied: the tests cannot run without it.
    pub(crate) fn migrated() -> Self {
        let connection = Connection::open_in_memory().expect("an in-memory database");
        connection
            .pragma_update(None, "foreign_keys", true)
            .expect("foreign keys");
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        let mut migrations: Vec<_> = std::fs::read_dir(&folder)
            .expect("edge-worker/migrations")
            .map(|entry| entry.expect("a migration").path())
            .filter(|path| path.extension().is_some_and(|e| e == "sql"))
            .collect();
        // Named 0001_..., 0002_...: their order is the order D1 applies them in.
        migrations.sort();
        for path in migrations {
            let sql = std::fs::read_to_string(&path).expect("a migration's text");
            connection
                .execute_batch(&sql)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        Self {
            connection,
            ran: RefCell::new(Vec::new()),
        }
    }

    /// Runs `sql` with `values` at once, as a test sets a table up (what
    /// `scripts/operator.mjs` would write, say).
    ///
    /// # Panics
    /// When the statement fails or changes no row (a test's typo, not its setup).
    pub(crate) fn exec(&self, sql: &str, values: &[SqlValue]) {
        let statement = Statement::new(sql.to_owned(), values.to_vec());
        let done = self
            .step(&statement)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        assert!(done.changes > 0, "{sql}: no row changed");
    }

    /// The rows of `sql` with `values`, read as `T`, as a test looks at a table.
    ///
    /// # Panics
    /// When the query fails or a row does not read.
    pub(crate) fn rows<T: DeserializeOwned>(&self, sql: &str, values: &[SqlValue]) -> Vec<T> {
        let statement = Statement::new(sql.to_owned(), values.to_vec());
        self.step(&statement)
            .and_then(Outcome::all)
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    fn step(&self, statement: &Statement) -> Result<Outcome, SqlError> {
        let mut prepared = self.connection.prepare(&statement.sql).map_err(failed)?;
        let names: Vec<String> = prepared
            .column_names()
            .into_iter()
            .map(str::to_owned)
            .collect();
        let values = statement.values.iter().map(|v| match v {
            SqlValue::Null => Stored::Null,
            SqlValue::Integer(n) => Stored::Integer(*n),
            SqlValue::Text(text) => Stored::Text(text.clone()),
        });
        let mut rows = prepared.query(params_from_iter(values)).map_err(failed)?;
        let mut read = Vec::new();
        while let Some(row) = rows.next().map_err(failed)? {
            let mut columns = Row::new();
            for (i, name) in names.iter().enumerate() {
                columns.insert(name.clone(), json(row.get_ref(i).map_err(failed)?)?);
            }
            read.push(columns);
        }
        drop(rows);
        // A query changes nothing, whatever `changes()` still holds from before it.
        let changes = if prepared.readonly() {
            0
        } else {
            usize::try_from(self.connection.changes()).unwrap_or(usize::MAX)
        };
        Ok(Outcome {
            rows: read,
            changes,
        })
    }
}

/// A column's value as D1 hands it to the Worker.
fn json(value: ValueRef<'_>) -> Result<serde_json::Value, SqlError> {
    Ok(match value {
        ValueRef::Null => serde_json::Value::Null,
        ValueRef::Integer(n) => n.into(),
        ValueRef::Real(x) => x.into(),
        ValueRef::Text(text) => String::from_utf8_lossy(text).into_owned().into(),
        ValueRef::Blob(_) => return Err(failed("the portal's tables hold no blobs")),
    })
}

impl SqlDatabase for Sqlite {
    async fn execute(&self, statement: &Statement) -> Result<Outcome, SqlError> {
        self.ran.borrow_mut().push(statement.sql.to_string());
        self.step(statement)
    }

    async fn batch(&self, statements: &[Statement]) -> Result<Vec<Outcome>, SqlError> {
        let texts = statements.iter().map(|s| s.sql.to_string());
        self.ran.borrow_mut().extend(texts);
        // Dropped without a commit, the transaction rolls back: all or none, as D1.
        let transaction = self.connection.unchecked_transaction().map_err(failed)?;
        let outcomes = statements
            .iter()
            .map(|s| self.step(s))
            .collect::<Result<Vec<_>, _>>()?;
        transaction.commit().map_err(failed)?;
        Ok(outcomes)
    }
}
