//! The error answer: a status with `{"error": "NAME: problem"}`.

use axum::Json;
use axum::extract::Request;
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
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

/// Refuses `CONNECT` with `405`, anywhere: it asks for a tunnel, which nothing here opens.
/// Left to the routes, the API's endpoints took it as one more attempt and answered it
/// (hyper then dropped the answer's body, as a tunnel's, and logged an error), and the
/// static files answered their page.
pub(crate) async fn no_tunnels(request: Request, next: Next) -> Response {
    if request.method() == Method::CONNECT {
        return ApiError {
            status: StatusCode::METHOD_NOT_ALLOWED,
            message: "method: CONNECT (a tunnel) is not served here".to_owned(),
        }
        .into_response();
    }
    next.run(request).await
}

// A value quoted for an error message, cut short if long: shared with the command line's
// own messages.
pub(super) use crate::args::shown;
