//! The queueing engine held to queueing theory. With Poisson arrivals and exponential
//! service the simulated server must be an M/M/1 or M/M/c queue (time in system, Erlang
//! C); Little's law must hold on its recorded series; the service order must move waiting
//! time, not create it; a timeout must abandon the wait but not the work; a queue timeout
//! must bound the wait; arrivals, service times and network delays must have their
//! distributions; Brooker's load-dependent service must obey PASTA and Little's law; the
//! closed loop must be the machine-repairman queue; a fail rate must amplify as a
//! geometric series, and retries at every layer of a chain as a product of them; and
//! every new path must keep each request's accounting and each
//! seed's bits.
//!
//! Each statistical check states its tolerance and where it comes from ([`theory`]).

#[path = "../support/mod.rs"]
mod support;

mod arrivals;
mod closed;
mod distributions;
mod fail_rate;
mod layers;
mod little;
mod mm1;
mod mmc;
mod order;
mod paths;
mod shedding;
mod slope;
mod theory;
mod timeouts;
