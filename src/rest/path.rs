//! Record ids in paths: anything that is not a positive integer id answers 404 in our error body,
//! never axum's plain-text rejection.
use crate::error::AppError;
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;

/// The single `{id}` segment of a path, as a record id.
pub struct PathId(pub i32);

impl<S: Send + Sync> FromRequestParts<S> for PathId {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| AppError::NotFound("not found".into()))?;
        raw.parse::<i32>()
            .ok()
            .filter(|id| *id > 0)
            .map(PathId)
            .ok_or_else(|| AppError::NotFound("not found".into()))
    }
}
