//! The built playground page: files from the static directory, with cache
//! headers, and a "not built yet" page when there is nothing to serve.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::header::CACHE_CONTROL;
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use tower_http::services::ServeDir;

/// `Cache-Control` of Vite's content-hashed files under `assets/`.
const IMMUTABLE: HeaderValue = HeaderValue::from_static("public, max-age=31536000, immutable");
/// `Cache-Control` of everything else: revalidate before each use.
const NO_CACHE: HeaderValue = HeaderValue::from_static("no-cache");

/// A router answering every request from `static_dir`.
///
/// Content types come from the file extension (`.wasm` is `application/wasm`);
/// `index.html` is served for directories; a missing file is a `404`.
pub(crate) fn router(static_dir: &Path) -> Router {
    let dir: Arc<Path> = Arc::from(static_dir);
    Router::new()
        // The build's own `.br` and `.gz` beside each big file (www/vite.config.ts,
        // `precompress`), sent as they are: compressing the wasm for every request held a
        // compressor of ~0.4 MB a connection.
        .fallback_service(
            ServeDir::new(static_dir)
                .precompressed_br()
                .precompressed_gzip(),
        )
        .layer(middleware::from_fn_with_state(dir, cache_and_fallback))
        .layer(middleware::from_fn(crate::serve::api::no_tunnels))
}

/// Sets `Cache-Control`, and answers the "not built yet" page for `/` when
/// `index.html` is missing.
async fn cache_and_fallback(
    State(dir): State<Arc<Path>>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path();
    // No file has such a name: the file system's refusal of it (ENAMETOOLONG) was a 500 and
    // an ERROR line in the log, for any client to cause.
    if too_long_for_a_file(&dir, path) {
        let mut response = StatusCode::NOT_FOUND.into_response();
        response.headers_mut().insert(CACHE_CONTROL, NO_CACHE);
        return response;
    }
    let hashed = path.starts_with("/assets/");
    if matches!(path, "/" | "/index.html") && !is_built(&dir).await {
        let mut response = not_built(&dir).into_response();
        response.headers_mut().insert(CACHE_CONTROL, NO_CACHE);
        return response;
    }
    let mut response = next.run(request).await;
    let found = response.status().is_success() || response.status() == StatusCode::NOT_MODIFIED;
    let cache = if hashed && found { IMMUTABLE } else { NO_CACHE };
    response.headers_mut().insert(CACHE_CONTROL, cache);
    response
}

/// Whether `path`, percent-decoded, names what no file under `dir` can be: a segment past
/// Linux's 255 bytes a name, less the 3 of the `.br` or `.gz` that the precompressed files
/// add (their open's ENAMETOOLONG was a 500 too), or, joined to `dir`, a path past its 4,096
/// bytes. An encoded slash (`%2F`) separates segments, as the file service reads it.
fn too_long_for_a_file(dir: &Path, path: &str) -> bool {
    let decoded = |text: &str| percent_encoding::percent_decode_str(text).count();
    let whole = dir.as_os_str().len() + decoded(path) + ".br".len();
    whole >= 4096
        || path
            .replace("%2F", "/")
            .replace("%2f", "/")
            .split('/')
            .any(|segment| decoded(segment) + ".br".len() > 255)
}

/// Whether `dir` holds an `index.html` file.
async fn is_built(dir: &Path) -> bool {
    let index: PathBuf = dir.join("index.html");
    tokio::fs::metadata(index)
        .await
        .is_ok_and(|meta| meta.is_file())
}

/// The page answered instead of the playground before it is built.
fn not_built(dir: &Path) -> Html<String> {
    let dir = escape_html(&dir.display().to_string());
    Html(format!(
        "<!doctype html>\n<html lang=\"en\">\n<meta charset=\"utf-8\">\n\
         <title>Stampede: page not built yet</title>\n\
         <h1>The playground page is not built yet</h1>\n\
         <p>There is no <code>index.html</code> in <code>{dir}</code>.\n\
         Run <code>make run</code> to build the page and serve it.</p>\n\
         <p>The demo API works already: try <a href=\"/api/health\">/api/health</a>.</p>\n\
         </html>\n"
    ))
}

fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_built_page_escapes_the_directory() {
        let Html(page) = not_built(Path::new("/tmp/<x>&\"y\""));
        assert!(page.contains("/tmp/&lt;x&gt;&amp;&quot;y&quot;"));
        assert!(page.contains("make run"));
    }
}
