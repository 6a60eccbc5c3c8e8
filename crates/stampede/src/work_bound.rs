//! The bounds on how much work one call may ask for: which bound a refused setting
//! passed ([`WorkBound`]), the phrase that says what its `max` counts and why, and its
//! unit. A [`ConfigError`](crate::ConfigError) carries one in
//! [`Expected::Work`](crate::Expected::Work) and
//! [`Expected::WorkAtLeast`](crate::Expected::WorkAtLeast); the bounds themselves are
//! checked in `sim/work.rs`.

use crate::error::Unit;

/// The bounds on how much work one call may ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WorkBound {
    /// `aws-occ` clients: every write contends with every other, so work grows with the
    /// square of the clients.
    OccClients,
    /// `steady` requests: clients × rate × duration; `max` is the largest rate that fits.
    SteadyRequests,
    /// The same when no rate the settings take fits, or when the clients are what was
    /// changed (the rate and the duration are their defaults); `max` is the most clients
    /// that fit at the rate given.
    SteadyClients,
    /// The same when the duration is what was changed (the rate is its default); `max` is
    /// the longest duration that fits.
    SteadyDuration,
    /// The same when a spike's factor is what was changed (the rate and the duration are
    /// their defaults); `max` is the largest factor that fits.
    SteadySpike,
    /// Delays drawn at once: samples × (attempts − 1).
    Delays,
    /// Attempts of a `burst` or `steady` run: requests × max attempts; `max` is the
    /// largest `max_attempts` that fits.
    RunAttempts,
    /// `closed` requests: clients × duration / (think + latency + service); `max` is the
    /// longest duration that fits.
    ClosedRequests,
    /// The same when no duration fits (the cycle is almost nothing: no think, no latency,
    /// a tiny service time); a [`Expected::WorkAtLeast`](crate::Expected::WorkAtLeast) whose `min` is the shortest think
    /// that fits at the shortest duration.
    ClosedThink,
    /// Attempts of a run through a chain of layers, counted at every layer; `max` is the
    /// largest `max_attempts` that fits.
    LayerAttempts,
    /// The same when the layers are what was changed (the attempts are their default);
    /// `max` is the most layers that fit at these attempts.
    LayersAtAttempts,
    /// Attempts of a run whose requests pass the bound even at the fewest attempts a
    /// request may make (1, or 2 hedged); `max` is the most clients that fit.
    RunClients,
    /// The same when not even one attempt per layer fits; `max` is the most layers that
    /// fit at one attempt each.
    Layers,
    /// Clients with per-client safety nets: each holds a guard (and a breaker and a
    /// throttle on the heap); `max` is the most clients whose nets fit in
    /// [`MAX_NETS_BYTES`](crate::sim::MAX_NETS_BYTES).
    NetsClients,
    /// Runs averaged in one call of [`run_many`](crate::sim::run_many): together they do at
    /// most the work of the largest single run; `max` is the most runs that fit.
    Runs,
    /// A `closed` run that reached a run's most attempts (or requests) before its duration
    /// ended: its requests ended faster than its settings let the check foresee (failed at
    /// once, refused by a net); `max` is the duration it had reached.
    ClosedAttempts,
    /// The same, cut before even the shortest duration ended, so that no duration fits; a
    /// [`Expected::WorkAtLeast`](crate::Expected::WorkAtLeast) whose `min` is the least think
    /// (whole ms) that keeps the run's own duration within the bounds, from how fast it went.
    ClosedCutThink,
    /// A run that held more events pending at once than
    /// [`MAX_PENDING`](crate::sim::MAX_PENDING) (attempts given up on that stay at the
    /// server, piling up); `max` is the most clients that fit for sure.
    Pending,
    /// A run that, with the other runs alive on its thread (in wasm: in the module), held
    /// more than [`MAX_PENDING_ALIVE`](crate::sim::MAX_PENDING_ALIVE) events at their
    /// peaks; `max` is the most clients that fit for sure beside them.
    PendingAlive,
    /// Calls of a retry loop (the package's `retryFetch`) in flight at once on one thread:
    /// each holds its state (in wasm, memory and references the engine's tables bound) until
    /// it settles; `max` is [`MAX_CALLS_IN_FLIGHT`].
    CallsInFlight,
    /// Calls of a retry loop made from inside the `fetch` of another, one in the other: `max`
    /// is [`MAX_NESTED_CALLS`].
    NestedCalls,
}

/// The most calls of a retry loop in flight at once on one thread (see
/// [`WorkBound::CallsInFlight`]). Far past what an application keeps open (a browser sends
/// six at a time to a host); in wasm, about 325,000 of the full entry's calls filled V8's
/// table of references and trapped, killing the module, as a `globalThis.fetch` set to a
/// function that calls `retryFetch` does by recursing without end.
pub const MAX_CALLS_IN_FLIGHT: u32 = 100_000;

/// The most calls of a retry loop made one inside the `fetch` of another (see
/// [`WorkBound::NestedCalls`]). A `fetch` that calls `retryFetch` in turn (the common mistake:
/// `globalThis.fetch` replaced by a function that calls `retryFetch`, which calls
/// `globalThis.fetch`) recurses without end: each level's retries multiply the work, and in
/// the slim entry, where the recursion is synchronous, JavaScript's stack overflowed inside
/// the wasm and left its memory corrupt. An application nests one or two deep at most.
pub const MAX_NESTED_CALLS: u32 = 16;

impl WorkBound {
    /// What the bound's `max` counts, and why there is a bound: the phrase after
    /// "at most {max}".
    pub const fn describe(self) -> &'static str {
        match self {
            WorkBound::OccClients => "clients for aws-occ (its work grows with clients squared)",
            WorkBound::SteadyRequests => {
                "per client per second with these clients, duration and attempts \
                 (clients × rate × duration, a spike's part × its factor, of at most 5000000 \
                 requests, and at most \
                 20000000 attempts: requests × max_attempts, less with a timeout, hedging, \
                 nets, layers or long waits)"
            }
            WorkBound::SteadyDuration => {
                "ms of new requests with these clients, rate and attempts (at most 5000000 \
                 requests, a spike's part × its factor, and 20000000 attempts, fewer with a \
                 timeout, hedging, nets, layers or long waits)"
            }
            WorkBound::SteadyClients => {
                "clients at this rate, duration and attempts (clients × rate × duration of at \
                 most 5000000 requests, and at most 20000000 attempts: requests × \
                 max_attempts, less with a timeout, hedging, nets, layers or long waits; a \
                 shorter duration or spike also helps)"
            }
            WorkBound::SteadySpike => {
                "times the rate in the spike with these clients, rate, duration and attempts \
                 (at most 5000000 requests and 20000000 attempts, as for the duration; a \
                 shorter spike also helps)"
            }
            WorkBound::Delays => {
                "samples (at most 10000000 delays in all: samples × (attempts − 1))"
            }
            WorkBound::RunAttempts => {
                "attempts per request for this many requests (a run makes at most 20000000 \
                 attempts, requests × attempts; a third of that with a client timeout, a \
                 sixth with hedging, an eighth with both, half or a fifth of that with \
                 safety nets (a token bucket alone: half, and only once one per client no \
                 longer fits in cache), a \
                 third again with events over 600000 ms ahead, half again when a request's \
                 whole life fits in 1 ms; fewer requests also help)"
            }
            WorkBound::RunClients => {
                "clients with these settings (a run makes at most 20000000 attempts, less \
                 with a timeout, hedging, nets, layers or long waits, and even the fewest \
                 attempts a request makes, 1, or 2 hedged, pass that for this many)"
            }
            WorkBound::LayerAttempts => {
                "attempts per request at each layer for this many requests and layers (a run \
                 makes at most 5000000 attempts counted at every layer, a quarter of 20000000: \
                 a layer's call costs about four plain attempts; less with a timeout, nets or \
                 long waits; fewer layers also help)"
            }
            WorkBound::Layers => {
                "layers for this many requests at one attempt each (a run makes at most \
                 5000000 attempts counted at every layer, a quarter of 20000000: a layer's \
                 call costs about four plain attempts; less with a timeout, nets or long \
                 waits)"
            }
            WorkBound::LayersAtAttempts => {
                "layers for this many requests at these attempts per layer (a run makes at \
                 most 5000000 attempts counted at every layer; fewer attempts also help)"
            }
            WorkBound::NetsClients => {
                "clients with these safety nets per client (each client's guard, breaker and \
                 throttle take memory, at most 128 MiB in all; --budget-scope shared, \
                 budgetScope \"shared\", needs one set)"
            }
            WorkBound::Runs => {
                "runs of these settings (the runs of one call together make at most the \
                 attempts of the largest single run, 20000000, less with a timeout, hedging, \
                 nets, layers or long waits, a run's setup counted as 110 attempts and 0.2 a \
                 server; for aws-occ \
                 at most 100000000 writes, clients × (clients + 1) / 2 a run; fewer clients, \
                 servers or attempts also help)"
            }
            WorkBound::ClosedAttempts => {
                "ms of closed loop with these settings (its requests end faster than think + \
                 latency + service, failed or refused at once, and by then it had made the \
                 most a run makes: 20000000 attempts, less with a timeout, hedging, layers or \
                 safety nets, or 10000000 requests; named: when it had made half of that, \
                 room for the requests in flight to end; a longer think, fewer clients or \
                 fewer attempts also help)"
            }
            WorkBound::ClosedCutThink => {
                "ms of think with these settings (its requests end faster than think + \
                 latency + service, failed or refused at once, and within its first \
                 millisecond it had made the most a run makes: 20000000 attempts, less with a \
                 timeout, hedging, layers or safety nets, or 10000000 requests; with this \
                 think it makes at most half of that, at every attempt a request may make; \
                 fewer clients or fewer attempts also help)"
            }
            WorkBound::Pending => {
                "clients with these settings (a run holds at most 4000000 events pending at \
                 once: requests in flight or waiting at the servers, and attempts their \
                 clients gave up on that the servers still hold; a shorter latency or \
                 service, fewer workers or fewer attempts also help, and with a client \
                 timeout a longer one)"
            }
            WorkBound::PendingAlive => {
                "clients with these settings beside the other simulations alive (together \
                 they may have held at most 10000000 events pending, other memory counted as \
                 events, each keeping the memory of its peak until it is freed: free() the \
                 simulations you no longer need)"
            }
            WorkBound::ClosedThink => {
                "ms of think with these clients, latency and service (clients × duration / \
                 (think + latency + service) of at most 5000000 requests, and at most \
                 20000000 attempts, less with a timeout, hedging, layers, nets or long waits: \
                 even the shortest duration, 1 ms, makes more; fewer clients or attempts \
                 also help)"
            }
            WorkBound::CallsInFlight => {
                "calls of retryFetch in flight at once (each holds its state until it \
                 settles: await some first; a fetch that calls retryFetch recurses without \
                 end)"
            }
            WorkBound::NestedCalls => {
                "calls of retryFetch one inside the fetch of another (a fetch that calls \
                 retryFetch, as a globalThis.fetch wrapped in it does, recurses without end)"
            }
            WorkBound::ClosedRequests => {
                "ms of closed loop with these clients and pauses (clients × duration / \
                 (think + latency + service) of at most 5000000 requests, and at most \
                 20000000 attempts, less with a timeout, hedging, layers, nets or long waits; a \
                 longer think, fewer clients or fewer attempts also help)"
            }
        }
    }

    /// The unit of the bound's `max`: a duration for a closed loop's, a rate for a steady
    /// load's, a count for the rest (clients, attempts, samples, layers, runs).
    pub const fn unit(self) -> Unit {
        match self {
            WorkBound::ClosedRequests
            | WorkBound::SteadyDuration
            | WorkBound::ClosedAttempts
            | WorkBound::ClosedThink
            | WorkBound::ClosedCutThink => Unit::Ms,
            WorkBound::SteadyRequests => Unit::PerSecond,
            WorkBound::SteadySpike => Unit::None,
            WorkBound::OccClients
            | WorkBound::SteadyClients
            | WorkBound::Delays
            | WorkBound::RunAttempts
            | WorkBound::RunClients
            | WorkBound::LayerAttempts
            | WorkBound::Layers
            | WorkBound::LayersAtAttempts
            | WorkBound::NetsClients
            | WorkBound::Runs
            | WorkBound::Pending
            | WorkBound::PendingAlive
            | WorkBound::CallsInFlight
            | WorkBound::NestedCalls => Unit::Count,
        }
    }
}
