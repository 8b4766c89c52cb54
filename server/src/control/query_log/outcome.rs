//! What a request got, as the log keeps it: its answer (result kind, rows, `[applied]`, or
//! error), its warnings and its latency, taken when the answer is known.

use std::time::Duration;

use cql::frame::response::{Response, ResultBody, Rows};

/// What a request got.
#[derive(Debug)]
pub(crate) struct Outcome {
    pub(super) result: Answered,
    pub(super) warnings: Vec<String>,
    pub(super) latency: Duration,
}

/// The answer a request got, as the log shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Answered {
    Void,
    Rows {
        returned: usize,
        applied: Option<bool>,
    },
    SetKeyspace,
    Prepared,
    SchemaChange,
    Error {
        code: i32,
        message: String,
    },
    /// An answer of another kind (never to the opcodes logged).
    Other,
    /// The HTTP door's status and, when it failed, its message.
    Http {
        status: u16,
        error: Option<String>,
    },
}

impl Outcome {
    /// What a CQL request got: `response`, with `warnings`, after `latency`.
    pub(super) fn of_response(
        response: &Response,
        warnings: &[String],
        latency: Duration,
    ) -> Outcome {
        let result = match response {
            Response::Result(ResultBody::Void) => Answered::Void,
            Response::Result(ResultBody::Rows(rows)) => Answered::Rows {
                returned: rows.rows.len(),
                applied: applied(rows),
            },
            Response::Result(ResultBody::SetKeyspace(_)) => Answered::SetKeyspace,
            Response::Result(ResultBody::Prepared(_)) => Answered::Prepared,
            Response::Result(ResultBody::SchemaChange(_)) => Answered::SchemaChange,
            Response::Error(body) => Answered::Error {
                code: body.code,
                message: body.message.clone(),
            },
            _ => Answered::Other,
        };
        Outcome {
            result,
            warnings: warnings.to_vec(),
            latency,
        }
    }
}

/// The `[applied]` column of a conditional statement's result, when it is one.
fn applied(rows: &Rows) -> Option<bool> {
    let first = rows.metadata.columns.first()?;
    if first.name != "[applied]" {
        return None;
    }
    let cell = rows.rows.first()?.first()?.as_ref()?;
    Some(cell.first().is_some_and(|&b| b != 0))
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use cql::frame::response::{ColumnSpec, ErrorBody, ErrorExtra, ResultMetadata};
    use cql::types::ColumnType;

    use super::*;

    fn rows(columns: &[&str], cells: Vec<Vec<Option<Bytes>>>) -> Response {
        let columns = columns
            .iter()
            .map(|name| ColumnSpec {
                keyspace: "ks".into(),
                table: "t".into(),
                name: name.to_string(),
                ty: ColumnType::Boolean,
            })
            .collect();
        Response::Result(ResultBody::Rows(Rows {
            metadata: ResultMetadata {
                columns,
                ..ResultMetadata::default()
            },
            rows: cells,
        }))
    }

    fn answered(response: &Response) -> Answered {
        Outcome::of_response(response, &[], Duration::ZERO).result
    }

    #[test]
    fn answers_show_rows_applied_and_errors() {
        let yes = Some(Bytes::from_static(&[1]));
        let no = Some(Bytes::from_static(&[0]));
        let applied = rows(&["[applied]", "v"], vec![vec![yes.clone(), None]]);
        assert_eq!(
            answered(&applied),
            Answered::Rows {
                returned: 1,
                applied: Some(true)
            }
        );
        let refused = rows(&["[applied]"], vec![vec![no]]);
        assert!(matches!(
            answered(&refused),
            Answered::Rows {
                applied: Some(false),
                ..
            }
        ));
        let plain = rows(&["v"], vec![vec![yes.clone()], vec![yes]]);
        assert_eq!(
            answered(&plain),
            Answered::Rows {
                returned: 2,
                applied: None
            }
        );
        let error = Response::Error(ErrorBody {
            code: 0x2200,
            message: "no".into(),
            extra: ErrorExtra::None,
        });
        assert_eq!(
            answered(&error),
            Answered::Error {
                code: 0x2200,
                message: "no".into()
            }
        );
        assert_eq!(
            answered(&Response::Result(ResultBody::Void)),
            Answered::Void
        );
    }
}
