//! The one trait the portal's SQL runs through: D1 in the Worker (`glue/d1.rs`),
//! SQLite in the native tests (`api/test_support/sqlite.rs`). Both are SQLite and
//! run the same text (`sql_store.rs`): values bound by position (`?1`, `?2`,
//! ...), rows read back by column name into the store's row types through serde.

use std::borrow::Cow;

use serde::de::DeserializeOwned;

use crate::api::backend_error::BackendError;

/// A value bound to a placeholder: the storage classes the portal's tables use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SqlValue {
    /// `NULL`.
    Null,
    /// An integer.
    Integer(i64),
    /// Text.
    Text(String),
}

impl From<&str> for SqlValue {
    fn from(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
}

impl From<String> for SqlValue {
    fn from(text: String) -> Self {
        Self::Text(text)
    }
}

impl From<u32> for SqlValue {
    fn from(n: u32) -> Self {
        Self::Integer(n.into())
    }
}

impl From<usize> for SqlValue {
    fn from(n: usize) -> Self {
        Self::Integer(i64::try_from(n).unwrap_or(i64::MAX))
    }
}

impl<T: Into<SqlValue>> From<Option<T>> for SqlValue {
    fn from(value: Option<T>) -> Self {
        value.map_or(Self::Null, Into::into)
    }
}

/// One statement and the values of its placeholders, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// The SQL text.
    pub sql: Cow<'static, str>,
    /// `?1`, `?2`, ...
    pub values: Vec<SqlValue>,
}

impl Statement {
    /// `sql` with `values`.
    #[must_use]
    pub fn new(sql: impl Into<Cow<'static, str>>, values: impl Into<Vec<SqlValue>>) -> Self {
        Self {
            sql: sql.into(),
            values: values.into(),
        }
    }
}

/// A row by column name, as both databases give it.
pub type Row = serde_json::Map<String, serde_json::Value>;

/// What a statement did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// The rows it returned (a `SELECT`, or a change's `RETURNING`).
    pub rows: Vec<Row>,
    /// How many rows it inserted, updated or deleted.
    pub changes: usize,
}

impl Outcome {
    /// Its first row, read as `T`.
    ///
    /// # Errors
    /// [`SqlError::Row`] when the row does not read as `T`.
    pub fn first<T: DeserializeOwned>(self) -> Result<Option<T>, SqlError> {
        self.rows.into_iter().next().map(read).transpose()
    }

    /// Its rows, each read as `T`.
    ///
    /// # Errors
    /// [`SqlError::Row`] when a row does not read as `T`.
    pub fn all<T: DeserializeOwned>(self) -> Result<Vec<T>, SqlError> {
        self.rows.into_iter().map(read).collect()
    }
}

fn read<T: DeserializeOwned>(row: Row) -> Result<T, SqlError> {
    serde_json::from_value(serde_json::Value::Object(row)).map_err(|e| SqlError::Row(e.to_string()))
}

/// Why the portal's database gave no answer, or one the store cannot read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SqlError {
    /// The database failed or refused a statement (or a batch, which then changed
    /// nothing), or could not be reached.
    #[error("the database failed: {0}")]
    Database(String),
    /// A row that does not have the columns of the type it is read as.
    #[error("a row does not read: {0}")]
    Row(String),
    /// A stored value the store's types have no name for (a time, a status, ...).
    #[error("a stored {what} does not read: {text}")]
    Stored {
        /// What the column holds.
        what: &'static str,
        /// The text stored, or why it does not read.
        text: String,
    },
}

impl From<SqlError> for BackendError {
    fn from(e: SqlError) -> Self {
        Self::new("database", format!("portal: {e}"))
    }
}

/// A SQLite database the portal's store runs on.
#[allow(async_fn_in_trait)] // used single-threaded, on workerd and in tests
pub trait SqlDatabase {
    /// Runs one statement.
    ///
    /// # Errors
    /// [`SqlError::Database`] when the database fails or refuses it.
    async fn execute(&self, statement: &Statement) -> Result<Outcome, SqlError>;

    /// Runs `statements` in order as one transaction: all of them or none. A
    /// statement sees the changes of those before it, and SQL's `changes()` the
    /// rows the one just before it changed.
    ///
    /// # Errors
    /// [`SqlError::Database`] when the database fails or refuses one of them.
    async fn batch(&self, statements: &[Statement]) -> Result<Vec<Outcome>, SqlError>;

    /// Runs one statement; how many rows it changed.
    ///
    /// # Errors
    /// As [`Self::execute`].
    async fn run(&self, statement: &Statement) -> Result<usize, SqlError> {
        Ok(self.execute(statement).await?.changes)
    }

    /// The first row of one statement, read as `T`.
    ///
    /// # Errors
    /// As [`Self::execute`], and [`SqlError::Row`].
    async fn first<T: DeserializeOwned>(
        &self,
        statement: &Statement,
    ) -> Result<Option<T>, SqlError> {
        self.execute(statement).await?.first()
    }

    /// The rows of one statement, each read as `T`.
    ///
    /// # Errors
    /// As [`Self::execute`], and [`SqlError::Row`].
    async fn all<T: DeserializeOwned>(&self, statement: &Statement) -> Result<Vec<T>, SqlError> {
        self.execute(statement).await?.all()
    }
}
