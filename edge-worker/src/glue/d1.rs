//! D1 (`KEYS`) as the [`SqlDatabase`] the portal's store runs on
//! (`api/partners/sql_store.rs`): values bound as JavaScript values, a batch as D1's
//! (one transaction), rows and changes read from D1's results.

use worker::wasm_bindgen::JsValue;
use worker::{D1Database, D1PreparedStatement, D1Result};

use super::WorkerBackend;
use crate::api::partners::sql::{Outcome, Row, SqlDatabase, SqlError, SqlValue, Statement};

fn failed(e: impl std::fmt::Display) -> SqlError {
    SqlError::Database(e.to_string())
}

/// D1 takes numbers as JavaScript numbers (a `BigInt` it refuses); the portal's
/// integers are well within the 2^53 they hold exactly.
fn js(value: &SqlValue) -> JsValue {
    match value {
        SqlValue::Null => JsValue::NULL,
        SqlValue::Integer(n) => JsValue::from(*n as f64),
        SqlValue::Text(text) => JsValue::from(text.as_str()),
    }
}

fn prepared(db: &D1Database, s: &Statement) -> Result<D1PreparedStatement, SqlError> {
    let values: Vec<JsValue> = s.values.iter().map(js).collect();
    db.prepare(s.sql.as_ref()).bind(&values).map_err(failed)
}

fn outcome(result: &D1Result) -> Result<Outcome, SqlError> {
    Ok(Outcome {
        rows: result.results::<Row>().map_err(failed)?,
        changes: result
            .meta()
            .map_err(failed)?
            .and_then(|m| m.changes)
            .unwrap_or(0),
    })
}

impl WorkerBackend {
    fn d1(&self) -> Result<D1Database, SqlError> {
        self.env.d1("KEYS").map_err(failed)
    }
}

impl SqlDatabase for WorkerBackend {
    async fn execute(&self, statement: &Statement) -> Result<Outcome, SqlError> {
        let result = prepared(&self.d1()?, statement)?
            .all()
            .await
            .map_err(failed)?;
        outcome(&result)
    }

    async fn batch(&self, statements: &[Statement]) -> Result<Vec<Outcome>, SqlError> {
        let db = self.d1()?;
        let batch = statements
            .iter()
            .map(|s| prepared(&db, s))
            .collect::<Result<Vec<_>, _>>()?;
        let results = db.batch(batch).await.map_err(failed)?;
        results.iter().map(outcome).collect()
    }
}
