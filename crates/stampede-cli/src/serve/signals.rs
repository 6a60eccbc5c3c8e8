//! Ctrl-C and SIGTERM, counted: the first starts a graceful shutdown, the
//! second stops the server at once.

use std::io;

use tokio::sync::watch;

use super::SHUTDOWN_GRACE;

/// Counts SIGINT (Ctrl-C) and SIGTERM signals, from now on, into a watch
/// channel, logging each.
pub(super) fn count_signals() -> io::Result<watch::Receiver<u32>> {
    let (count, counted) = watch::channel(0u32);
    let note = move |name: &str| {
        // Logged before it is counted: the count wakes the server, which may log "stopped"
        // at once from another thread, and the reason must come first. This task is the
        // only writer, so the count read here is the one it then sends.
        let n = count.borrow().saturating_add(1);
        if n == 1 {
            tracing::info!(
                "{name}: shutting down; the requests in flight get up to {} s \
                 (Ctrl-C or SIGTERM again stops at once)",
                SHUTDOWN_GRACE.as_secs()
            );
        } else {
            tracing::info!("{name} again: stopping at once");
        }
        count.send_modify(|count| *count = n);
    };
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    Some(()) = interrupt.recv() => note("SIGINT"),
                    Some(()) = terminate.recv() => note("SIGTERM"),
                    else => break,
                }
            }
        });
    }
    #[cfg(not(unix))]
    {
        tokio::spawn(async move {
            while tokio::signal::ctrl_c().await.is_ok() {
                note("Ctrl-C");
            }
        });
    }
    Ok(counted)
}

/// Completes once `signals` has counted `n` signals (never, if it stops
/// counting first).
pub(super) async fn nth_signal(mut signals: watch::Receiver<u32>, n: u32) {
    if signals.wait_for(|count| *count >= n).await.is_err() {
        std::future::pending::<()>().await;
    }
}
