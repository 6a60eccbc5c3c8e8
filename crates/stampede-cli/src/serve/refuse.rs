//! The answer to a connection past the cap: once the client has sent its
//! request head, a short `503` with `Retry-After: 1` and `Connection: close`,
//! then the connection is closed.
//!
//! A retrying client (this project's own, for one) reads the `503` and the
//! hint and comes back later, instead of hanging in the kernel's accept queue
//! until its own timeout. The answer waits for the request head because a
//! client that gets an answer before it has sent its request may take it for
//! a broken connection (hyper's client does); a client that sends nothing
//! within [`REFUSAL_LINGER`] is closed unanswered.

use std::io;
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::OwnedSemaphorePermit;

use super::limits::REFUSAL_LINGER;

/// How much of the client's request a refusal reads and throws away at most,
/// before the answer (looking for the end of the head) and after it.
const MAX_DRAIN_BYTES: usize = 64 * 1024;

/// The end of a request head.
const HEAD_END: &[u8] = b"\r\n\r\n";

/// The refusal's bytes, built once per server.
#[derive(Debug, Clone)]
pub(super) struct Refusal {
    response: Arc<[u8]>,
}

impl Refusal {
    /// The answer for a server that serves `cap` connections at once.
    pub(super) fn new(cap: usize) -> Self {
        let body = format!(
            "{{\"error\":\"connections: the server is at its limit of {cap} connections; \
             retry later\"}}"
        );
        let head = format!(
            "HTTP/1.1 503 Service Unavailable\r\n\
             content-type: application/json\r\n\
             content-length: {}\r\n\
             retry-after: 1\r\n\
             cache-control: no-store\r\n\
             access-control-allow-origin: *\r\n\
             access-control-expose-headers: retry-after, grpc-retry-pushback-ms\r\n\
             connection: close\r\n\
             \r\n",
            body.len()
        );
        Self {
            response: format!("{head}{body}").into_bytes().into(),
        }
    }

    /// Sends the refusal on `stream` and closes it, within [`REFUSAL_LINGER`];
    /// `slot` is held until then (it bounds the refusals under way).
    pub(super) async fn send(self, stream: TcpStream, slot: OwnedSemaphorePermit) {
        let _slot = slot;
        match tokio::time::timeout(REFUSAL_LINGER, refuse(stream, &self.response)).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::debug!("refusal: {error}"),
            Err(_) => tracing::debug!("refusal: given up after {REFUSAL_LINGER:?}"),
        }
    }
}

/// Reads the request head, writes `response`, ends the write side, then
/// reads (and throws away) what the client still sends until it closes:
/// closing a socket with unread data sends a reset, which can destroy the
/// answer before the client has read it.
async fn refuse(mut stream: TcpStream, response: &[u8]) -> io::Result<()> {
    let mut buf = [0u8; 4096];
    // The last bytes read, to find a head end split across two reads.
    let mut tail = Vec::with_capacity(buf.len() + HEAD_END.len());
    let mut drained = 0;
    loop {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Ok(()); // the client left without a request
        }
        drained += n;
        let keep = tail.len().saturating_sub(HEAD_END.len() - 1);
        tail.drain(..keep);
        tail.extend_from_slice(&buf[..n]);
        if tail.windows(HEAD_END.len()).any(|w| w == HEAD_END) || drained >= MAX_DRAIN_BYTES {
            break;
        }
    }
    stream.write_all(response).await?;
    stream.shutdown().await?;
    while drained < 2 * MAX_DRAIN_BYTES {
        match stream.read(&mut buf).await? {
            0 => break,
            n => drained += n,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use tokio::net::TcpListener;

    use super::*;

    /// A connected pair of loopback sockets: (client, server).
    async fn pair() -> (TcpStream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap());
        let (client, accepted) = tokio::join!(client, listener.accept());
        (client.unwrap(), accepted.unwrap().0)
    }

    /// The answer waits for the end of the head, even when it arrives split
    /// across two reads, then comes whole, then the close.
    #[tokio::test]
    async fn the_answer_follows_the_whole_head() {
        let (mut client, server) = pair().await;
        let refusing = tokio::spawn(async move { refuse(server, b"NO").await });
        client
            .write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r")
            .await
            .unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let mut early = [0u8; 2];
        let nothing_yet = tokio::time::timeout(
            std::time::Duration::from_millis(50),
            client.read(&mut early),
        )
        .await;
        assert!(
            nothing_yet.is_err(),
            "no answer before the head is complete"
        );
        client.write_all(b"\n").await.unwrap();
        let mut answer = Vec::new();
        client.read_to_end(&mut answer).await.unwrap();
        assert_eq!(answer, b"NO");
        drop(client);
        refusing.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn a_client_that_leaves_without_a_request_gets_nothing() {
        let (mut client, server) = pair().await;
        client.shutdown().await.unwrap(); // done sending, still reading
        refuse(server, b"NO").await.unwrap();
        let mut answer = Vec::new();
        client.read_to_end(&mut answer).await.unwrap();
        assert!(answer.is_empty(), "{answer:?}");
    }

    #[test]
    fn the_refusal_is_a_complete_503_that_closes() {
        let refusal = Refusal::new(7);
        let text = std::str::from_utf8(&refusal.response).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        let head = format!("{head}\r\n");
        assert!(
            head.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
            "{head}"
        );
        assert!(head.contains("\r\nretry-after: 1\r\n"), "{head}");
        assert!(head.contains("\r\nconnection: close\r\n"), "{head}");
        assert!(head.contains(&format!("\r\ncontent-length: {}\r\n", body.len())));
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(
            json["error"],
            "connections: the server is at its limit of 7 connections; retry later"
        );
    }
}
