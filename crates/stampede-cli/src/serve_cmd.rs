//! `stampede serve`: the playground and the demo API.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args as ClapArgs;
use stampede_cli::serve::{ServeOptions, run as serve};

use crate::UsageError;

/// `stampede serve [--addr 127.0.0.1:8080] [--static www/dist]`
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The address to listen on. Loopback unless you say otherwise.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// The built page to serve.
    #[arg(long = "static", default_value = "www/dist", value_name = "DIR")]
    static_dir: PathBuf,
}

pub fn run(a: Args) -> Result<(), UsageError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| UsageError(format!("cannot start the async runtime: {e}")))?;
    runtime
        .block_on(serve(ServeOptions {
            addr: a.addr,
            static_dir: a.static_dir,
        }))
        .map_err(|e| UsageError(format!("--addr {}: {e}", a.addr)))
}
