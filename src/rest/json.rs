//! JSON request bodies that fail in our error shape (400 with `{error, code, details}`), never axum's
//! plain-text rejections.
use crate::error::AppError;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A JSON object body. Requests without a body or with a non-object body are 400.
pub struct JsonObject(pub serde_json::Map<String, Value>);

impl<S: Send + Sync> FromRequest<S> for JsonObject {
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
                AppError::PayloadTooLarge("request body too large".into())
            } else {
                AppError::bad_request("could not read the request body")
            }
        })?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(AppError::bad_request("request body must be a JSON object"));
        }
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(map)) => Ok(JsonObject(map)),
            Ok(_) => Err(AppError::bad_request("request body must be a JSON object")),
            Err(e) => Err(AppError::bad_request(format!("malformed JSON: {e}"))),
        }
    }
}

/// A typed JSON body; type errors name the field in `details`.
pub struct Json<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Json<T> {
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let JsonObject(map) = JsonObject::from_request(req, state).await?;
        serde_path_to_error::deserialize(Value::Object(map))
            .map(Json)
            .map_err(|e| {
                let path = e.path().to_string();
                let message = e.into_inner().to_string();
                if path.is_empty() || path == "." {
                    AppError::bad_request(message)
                } else {
                    AppError::field(&path, message)
                }
            })
    }
}
