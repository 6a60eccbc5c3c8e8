//! The built page: cache headers, content types, compression, the not-built page.

use reqwest::StatusCode;
use serde_json::json;
use stampede_cli::serve::app;

use crate::support::{ASSET_PATH, Answer, INDEX_HTML, Server, Site, asset_js, wasm_bytes};

#[tokio::test]
async fn the_page_is_served_with_no_cache() {
    let server = Server::start().await;
    for path in ["/", "/index.html"] {
        let answer = server.get(path).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        assert!(
            answer
                .header("content-type")
                .unwrap()
                .starts_with("text/html")
        );
        assert_eq!(answer.body, INDEX_HTML.as_bytes(), "{path}");
        assert_eq!(answer.header("cache-control"), Some("no-cache"), "{path}");
    }
}

#[tokio::test]
async fn hashed_assets_are_immutable_and_other_files_are_not() {
    let server = Server::start().await;
    let asset = server.get(&format!("/{ASSET_PATH}")).await;
    assert_eq!(asset.status, StatusCode::OK);
    assert!(asset.header("content-type").unwrap().contains("javascript"));
    assert_eq!(
        asset.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(asset.body, asset_js().as_bytes());

    let missing = server.get("/assets/app-000000.js").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(
        missing.header("cache-control"),
        Some("no-cache"),
        "a 404 must not be cached for a year"
    );
    let wasm = server.get("/x.wasm").await;
    assert_eq!(wasm.header("cache-control"), Some("no-cache"));
}

#[tokio::test]
async fn wasm_is_served_as_application_wasm() {
    let server = Server::start().await;
    let answer = server.get("/x.wasm").await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.header("content-type"), Some("application/wasm"));
    assert_eq!(answer.body, wasm_bytes());
}

#[tokio::test]
async fn files_are_compressed_when_the_client_accepts_it() {
    let server = Server::start().await;
    let fetch = |path: &'static str, accept: Option<&'static str>| {
        let mut request = server.client.get(server.url(path));
        if let Some(accept) = accept {
            request = request.header("accept-encoding", accept);
        }
        request.send()
    };
    let asset = "/assets/app-abc123.js";
    let gzip = Answer::from(fetch(asset, Some("gzip")).await.unwrap()).await;
    assert_eq!(gzip.header("content-encoding"), Some("gzip"));
    assert_eq!(&gzip.body[..2], [0x1f, 0x8b], "gzip magic");
    assert!(gzip.body.len() < asset_js().len());

    let br = Answer::from(fetch(asset, Some("br")).await.unwrap()).await;
    assert_eq!(br.header("content-encoding"), Some("br"));
    assert!(br.body.len() < asset_js().len());

    let wasm = Answer::from(fetch("/x.wasm", Some("gzip")).await.unwrap()).await;
    assert_eq!(
        wasm.header("content-encoding"),
        Some("gzip"),
        "wasm is compressed too"
    );
    assert_eq!(wasm.header("content-type"), Some("application/wasm"));

    let plain = Answer::from(fetch(asset, None).await.unwrap()).await;
    assert_eq!(plain.header("content-encoding"), None);
    assert_eq!(plain.body, asset_js().as_bytes());
}

#[tokio::test]
async fn a_missing_static_dir_gets_the_not_built_page_and_the_api_still_works() {
    let missing = Site::unique_dir("missing");
    let server = Server::on(app(&missing), None).await;
    let page = server.get("/").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.header("content-type")
            .unwrap()
            .starts_with("text/html")
    );
    assert_eq!(page.header("cache-control"), Some("no-cache"));
    let text = String::from_utf8(page.body).unwrap();
    assert!(text.contains("not built yet"), "{text}");
    assert!(text.contains("make run"), "{text}");

    let health = server.get("/api/health").await;
    assert_eq!(health.json, json!({"ok": true}));
    let flaky = server.get("/api/flaky?key=nb&fail=1").await;
    assert_eq!(flaky.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(server.get("/other.js").await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_static_dir_without_index_html_gets_the_not_built_page() {
    let site = Site::without_index();
    let router = app(&site.dir);
    let server = Server::on(router, Some(site)).await;
    let page = server.get("/").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(String::from_utf8(page.body).unwrap().contains("make run"));
    // What is there is still served.
    let asset = server.get(&format!("/{ASSET_PATH}")).await;
    assert_eq!(asset.status, StatusCode::OK);
}

/// A name no file can have (a segment past 255 bytes, a path past 4,096) is not found, as
/// any missing file: the file system's refusal of it was a 500 and an ERROR in the log.
#[tokio::test]
async fn a_name_too_long_for_a_file_is_not_found() {
    let server = Server::start().await;
    for path in [
        format!("/{}", "a".repeat(256)),
        format!("/assets/{}.js", "a".repeat(300)),
        format!("/{}", "%C3%A9".repeat(130)),
        "/ab".repeat(1400),
    ] {
        let answer = server.get(&path).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{}", &path[..40]);
    }
    // A name the precompressed copies would take past 255 bytes (`.br`, `.gz`): their open
    // failed with a 500 for a client that accepts compression.
    for len in [253, 255] {
        let answer = server
            .client
            .get(server.url(&format!("/{}", "a".repeat(len))))
            .header("accept-encoding", "br, gzip")
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), StatusCode::NOT_FOUND, "{len}");
    }
    // Within the bounds, a missing file is still the static files' 404.
    assert_eq!(
        server.get(&format!("/{}", "a".repeat(250))).await.status,
        StatusCode::NOT_FOUND
    );
}

/// A big file goes as the build compressed it (`name.br`, `name.gz` beside it), or as it is:
/// compressing it for each request held a compressor as large as the file a connection (450
/// clients that never read the 260 KB wasm: 219 MB). Small answers are still compressed.
#[tokio::test]
async fn a_big_file_goes_as_the_build_compressed_it_or_as_it_is() {
    use stampede_cli::serve::MAX_COMPRESSED_ON_THE_FLY;
    let site = Site::built();
    let big = "export const x = 1;\n".repeat(MAX_COMPRESSED_ON_THE_FLY as usize / 10);
    assert!(big.len() as u64 > MAX_COMPRESSED_ON_THE_FLY);
    std::fs::write(site.dir.join("assets/big-1.js"), &big).unwrap();
    std::fs::write(site.dir.join("assets/made-2.js"), &big).unwrap();
    let (br, gz) = (b"precompressed br".to_vec(), b"precompressed gz".to_vec());
    std::fs::write(site.dir.join("assets/made-2.js.br"), &br).unwrap();
    std::fs::write(site.dir.join("assets/made-2.js.gz"), &gz).unwrap();
    let router = app(&site.dir);
    let server = Server::on(router, Some(site)).await;
    let fetch = |path: &'static str, accept: &'static str| {
        server
            .client
            .get(server.url(path))
            .header("accept-encoding", accept)
            .send()
    };
    let plain = Answer::from(fetch("/assets/big-1.js", "br, gzip").await.unwrap()).await;
    assert_eq!(
        plain.header("content-encoding"),
        None,
        "too big to compress on the fly"
    );
    assert_eq!(plain.body, big.as_bytes());
    let made = Answer::from(fetch("/assets/made-2.js", "br").await.unwrap()).await;
    assert_eq!(made.header("content-encoding"), Some("br"));
    assert_eq!(made.body, br);
    let made = Answer::from(fetch("/assets/made-2.js", "gzip").await.unwrap()).await;
    assert_eq!(made.header("content-encoding"), Some("gzip"));
    assert_eq!(made.body, gz);
    let none = Answer::from(fetch("/assets/made-2.js", "identity").await.unwrap()).await;
    assert_eq!(
        (none.header("content-encoding"), none.body.len()),
        (None, big.len())
    );
    // The small asset beside them still goes compressed.
    let small = Answer::from(fetch("/assets/app-abc123.js", "gzip").await.unwrap()).await;
    assert_eq!(small.header("content-encoding"), Some("gzip"));
}
