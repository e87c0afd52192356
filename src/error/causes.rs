//! Where errors come from outside the service: the database, a client's stored-enum spelling, a multipart
//! body.
use super::{AppError, AppResult, FieldErrors};
use axum::http::StatusCode;
use sea_orm::{DbErr, RuntimeErr, SqlErr};

/// A client's value outside a stored enum's set is a 400 naming the field and the allowed values.
impl From<crate::domain::UnknownValue> for AppError {
    fn from(err: crate::domain::UnknownValue) -> Self {
        AppError::field(err.field, err.message)
    }
}

impl From<DbErr> for AppError {
    fn from(err: DbErr) -> Self {
        if statement_stopped(&err) {
            AppError::Timeout
        } else if storage_refuses(&err) {
            AppError::Unavailable(err.into())
        } else {
            AppError::Internal(err.into())
        }
    }
}

/// The database error behind `err`, if it is one.
fn database_error(err: &DbErr) -> Option<&dyn sea_orm::sqlx::error::DatabaseError> {
    let (DbErr::Exec(RuntimeErr::SqlxError(e))
    | DbErr::Query(RuntimeErr::SqlxError(e))
    | DbErr::Conn(RuntimeErr::SqlxError(e))) = err
    else {
        return None;
    };
    match e.as_ref() {
        sea_orm::sqlx::Error::Database(db) => Some(db.as_ref()),
        _ => None,
    }
}

/// Whether the database stopped a statement that ran past the statement timeout
/// (`DESKGRAPH_STATEMENT_TIMEOUT_MS`): PostgreSQL's 57014 (`query_canceled`), SQLite's `SQLITE_INTERRUPT`
/// (9), which its progress handler raises (`crate::db`). The request answers 503 `timeout`.
fn statement_stopped(err: &DbErr) -> bool {
    let Some(db) = database_error(err) else {
        return false;
    };
    let Some(code) = db.code() else {
        return false;
    };
    if db
        .try_downcast_ref::<sea_orm::sqlx::sqlite::SqliteError>()
        .is_some()
    {
        code.parse::<i64>().is_ok_and(|n| n & 0xff == 9)
    } else {
        code == "57014"
    }
}

/// Whether the database refused a statement because of its storage or could not be reached, rather than
/// because of the statement: SQLite's FULL, READONLY, IOERR and CANTOPEN (extended codes carry the primary
/// one in their low byte); PostgreSQL's class 53 (disk full, out of memory), 25006 (read-only transaction,
/// e.g. a standby) and 58030 (I/O error); and a server that is gone, shutting down or starting (no
/// connection within the acquire timeout, a connection cut, class 08, 57P01-57P03). These pass when space,
/// write access or the server returns, so the client may retry.
fn storage_refuses(err: &DbErr) -> bool {
    if matches!(err, DbErr::ConnectionAcquire(_)) {
        return true;
    }
    let (DbErr::Exec(RuntimeErr::SqlxError(e))
    | DbErr::Query(RuntimeErr::SqlxError(e))
    | DbErr::Conn(RuntimeErr::SqlxError(e))) = err
    else {
        return false;
    };
    use sea_orm::sqlx::Error as Sqlx;
    let db = match e.as_ref() {
        Sqlx::Database(db) => db,
        Sqlx::Io(_) | Sqlx::PoolTimedOut | Sqlx::PoolClosed | Sqlx::WorkerCrashed => return true,
        _ => return false,
    };
    let Some(code) = db.code() else {
        return false;
    };
    if db
        .try_downcast_ref::<sea_orm::sqlx::sqlite::SqliteError>()
        .is_some()
    {
        code.parse::<i64>()
            .is_ok_and(|n| matches!(n & 0xff, 8 | 10 | 13 | 14))
    } else {
        code.starts_with("53")
            || code.starts_with("08")
            || matches!(
                code.as_ref(),
                "25006" | "58030" | "57P01" | "57P02" | "57P03"
            )
    }
}

/// Turns unique-constraint violations into a field error, decided from the database, race-free.
pub trait OnConstraint<T> {
    /// Map a unique violation to a conflict on `field`.
    fn on_unique(self, field: &str, message: &str) -> AppResult<T>;
}

impl<T> OnConstraint<T> for Result<T, DbErr> {
    fn on_unique(self, field: &str, message: &str) -> AppResult<T> {
        self.map_err(|err| match err.sql_err() {
            Some(SqlErr::UniqueConstraintViolation(_)) => {
                let mut fields = FieldErrors::new();
                fields.insert(field.to_string(), vec![message.to_string()]);
                AppError::Validation {
                    message: format!("{field}: {message}"),
                    fields,
                }
            }
            _ => AppError::from(err),
        })
    }
}

impl From<axum::extract::multipart::MultipartError> for AppError {
    fn from(err: axum::extract::multipart::MultipartError) -> Self {
        if err.status() == StatusCode::PAYLOAD_TOO_LARGE {
            AppError::PayloadTooLarge("the request body exceeds the upload limit".into())
        } else {
            AppError::bad_request(format!("malformed multipart body: {}", err.body_text()))
        }
    }
}
