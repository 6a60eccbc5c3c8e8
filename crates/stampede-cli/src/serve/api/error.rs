//! The error answer: a status with `{"error": "NAME: problem"}`.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An error answer: `status` with the JSON body `{"error": message}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ApiError {
    pub(super) status: StatusCode,
    pub(super) message: String,
}

impl ApiError {
    /// A `400` about parameter `name`: the message reads `"{name}: {problem}"`.
    pub(super) fn bad(name: &str, problem: impl std::fmt::Display) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            message: format!("{name}: {problem}"),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(json!({ "error": self.message }))).into_response()
    }
}

// A value quoted for an error message, cut short if long: shared with the command line's
// own messages.
pub(super) use crate::args::shown;
