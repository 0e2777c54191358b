//! The subset of `SoQL`'s `$where` this server reads: a conjunction (`AND`) of
//! comparisons (`column op 'literal'`, op one of `=`, `>`, `>=`, `<`, `<=`) and
//! membership tests (`column IN ('a', 'b')`), as dev.socrata.com documents them
//! (the `in(...)` function and the comparison operators). Literals are single
//! quoted, a quote inside doubled. `OR`, parentheses around terms, functions other
//! than `IN` and unquoted literals are refused: the answer names the clause.

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Eq,
    Gt,
    Ge,
    Lt,
    Le,
}

impl Op {
    /// Whether `ordering` (the row's value against the literal) satisfies it.
    pub(crate) fn holds(self, ordering: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::{Equal, Greater, Less};
        match self {
            Op::Eq => ordering == Equal,
            Op::Gt => ordering == Greater,
            Op::Ge => ordering != Less,
            Op::Lt => ordering == Less,
            Op::Le => ordering != Greater,
        }
    }
}

/// One term of the conjunction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Term {
    /// `column op 'literal'`.
    Compare {
        column: String,
        op: Op,
        literal: String,
    },
    /// `column IN ('a', 'b', ...)`.
    In { column: String, values: Vec<String> },
}

/// Parses a `$where` clause into its terms, or says what could not be read.
pub(crate) fn parse(clause: &str) -> Result<Vec<Term>, String> {
    let mut terms = Vec::new();
    let mut rest = clause.trim();
    loop {
        let (term, after) = term(rest)?;
        terms.push(term);
        let after = after.trim_start();
        if after.is_empty() {
            return Ok(terms);
        }
        let Some(next) = strip_keyword(after, "AND") else {
            return Err(format!(
                "expected AND or the end of the clause at `{after}`"
            ));
        };
        rest = next.trim_start();
    }
}

/// `s` without its leading keyword (any case) and the space after it.
fn strip_keyword<'a>(s: &'a str, keyword: &str) -> Option<&'a str> {
    let head = s.get(..keyword.len())?;
    let tail = &s[keyword.len()..];
    (head.eq_ignore_ascii_case(keyword)
        && tail.starts_with(|c: char| c.is_whitespace() || c == '('))
    .then_some(tail)
}

fn term(s: &str) -> Result<(Term, &str), String> {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':' || c == '@'))
        .unwrap_or(s.len());
    let column = &s[..end];
    if column.is_empty() {
        return Err(format!("expected a column at `{s}`"));
    }
    let rest = s[end..].trim_start();
    if let Some(list) = strip_keyword(rest, "IN") {
        let list = list.trim_start();
        let mut inner = list
            .strip_prefix('(')
            .ok_or_else(|| format!("expected `(` after IN at `{list}`"))?;
        let mut values = Vec::new();
        loop {
            let (value, after) = literal(inner.trim_start())?;
            values.push(value);
            let after = after.trim_start();
            if let Some(after) = after.strip_prefix(',') {
                inner = after;
            } else if let Some(after) = after.strip_prefix(')') {
                let term = Term::In {
                    column: column.to_owned(),
                    values,
                };
                return Ok((term, after));
            } else {
                return Err(format!("expected `,` or `)` in the IN list at `{after}`"));
            }
        }
    }
    let (op, rest) = [
        (">=", Op::Ge),
        ("<=", Op::Le),
        (">", Op::Gt),
        ("<", Op::Lt),
        ("=", Op::Eq),
    ]
    .into_iter()
    .find_map(|(text, op)| rest.strip_prefix(text).map(|r| (op, r)))
    .ok_or_else(|| format!("expected a comparison or IN after `{column}`"))?;
    let (literal, rest) = literal(rest.trim_start())?;
    let term = Term::Compare {
        column: column.to_owned(),
        op,
        literal,
    };
    Ok((term, rest))
}

/// A single-quoted literal at the start of `s` (a doubled quote is one quote).
fn literal(s: &str) -> Result<(String, &str), String> {
    let body = s
        .strip_prefix('\'')
        .ok_or_else(|| format!("expected a quoted literal at `{s}`"))?;
    let mut value = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        if c != '\'' {
            value.push(c);
            continue;
        }
        if body[i + 1..].starts_with('\'') {
            value.push('\'');
            chars.next();
        } else {
            return Ok((value, &body[i + 1..]));
        }
    }
    Err(format!("unterminated literal at `{s}`"))
}

#[cfg(test)]
mod tests;
