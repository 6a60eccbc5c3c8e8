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
    /// The built page to serve: an existing directory (`make dist` builds it).
    #[arg(long = "static", default_value = "www/dist", value_name = "DIR", value_parser = existing_dir)]
    static_dir: PathBuf,
}

/// Parses `--static`: a directory that exists. A missing or mistyped one would
/// serve nothing but the "not built yet" page, hiding the mistake, so it is
/// refused before anything is bound.
fn existing_dir(s: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    match std::fs::metadata(&path) {
        Ok(meta) if meta.is_dir() => Ok(path),
        Ok(_) => Err("not a directory; expected the directory holding the built page".to_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(
            "no such directory; build the page with `make dist`, or name the directory holding it"
                .to_owned(),
        ),
        Err(e) => Err(format!("cannot read it: {e}")),
    }
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
