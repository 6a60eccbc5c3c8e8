//! The `stampede` command's library half: value parsers and `stampede serve`. The binary
//! in `main.rs` wires them to subcommands.

#![deny(missing_docs)]

pub mod args;
pub mod json;
pub mod serve;
