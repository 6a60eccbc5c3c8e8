//! The queueing engine held to queueing theory: with Poisson arrivals and exponential
//! service, the simulated server must be an M/M/1 or M/M/c queue (time in system, Erlang
//! C), satisfy Little's law on its recorded series, amplify a fail rate as a geometric
//! series, and keep every request's accounting and every seed's bits on each new path.
//!
//! Each statistical check states its tolerance and where it comes from ([`theory`]).

#[path = "../support/mod.rs"]
mod support;

mod fail_rate;
mod little;
mod mm1;
mod mmc;
mod order;
mod paths;
mod theory;
