//! The classifier from raw status, method and header bytes, and the policy's decision on
//! its verdict.
//!
//! Properties of a verdict, for any rules, request and headers:
//! - an abort is never retried; a transport error is retried exactly when the rules list it
//!   and the request may be repeated; a status below 400 is a success, with no hint;
//! - a retry needs a status the rules list and a request that may be repeated (an
//!   idempotent method, or the caller's say-so): a POST is never retried unless allowed;
//! - with the default rules, a 4xx other than 408 and 429 is never retried;
//! - the hints are exactly the headers' (the first `Retry-After` and the first
//!   `grpc-retry-pushback-ms`, names in any case): a pushback that is negative or malformed
//!   stops, one that is not sets the hint to the longer of the two waits; a malformed
//!   `Retry-After` is reported as ignored; a retry's hint is finite and within the maximum.
//!
//! And of the policy's decision on it: it retries only a retryable verdict, never sooner
//! than `Retry-After`, exactly after a pushback, within the cap otherwise, within the
//! deadline, and charges the budget for it.

use core::str::FromStr;

use stampede::backoff::{BackoffSettings, Strategy};
use stampede::budget::BudgetSettings;
use stampede::classify::{
    Action, HttpStatus, Method, Outcome, Reason, Request, RetryRules, ServerHint, StatusSet,
    TransportError, TransportSet,
};
use stampede::policy::{Decision, Now, PolicySettings};
use stampede::retry_after::{HintError, Pushback, parse_pushback, parse_retry_after};
use stampede::{MAX_DURATION_MS, seeded};

use super::input::Input;

const HEADER_NAMES: [&str; 6] = [
    "Retry-After",
    " retry-after ",
    "RETRY-AFTER",
    "grpc-retry-pushback-ms",
    "Grpc-Retry-Pushback-Ms ",
    "x-retry-after",
];

/// Checks one fuzzer input.
pub fn check(data: &[u8]) {
    let mut input = Input::new(data);
    let default_rules = input.flag();
    let rules = if default_rules {
        RetryRules::default()
    } else {
        some_rules(&mut input)
    };
    let method_text = input.short_str(10);
    let method = method(&method_text);
    let request = Request::new(method).idempotent(input.flag());
    let now = input.f64_finite();
    let code = input.u16();
    let status = HttpStatus::new(code);
    assert_eq!(status.is_ok(), (100..=599).contains(&code), "status {code}");
    let headers: Vec<(String, String)> = (0..input.choice(4))
        .map(|_| {
            let name = match input.choice(8) {
                i @ 0..6 => HEADER_NAMES[usize::from(i)].to_owned(),
                _ => input.short_str(24),
            };
            (name, input.short_str(40))
        })
        .collect();
    let outcome = match status {
        Ok(status) if input.choice(4) != 0 => Outcome::with_headers(
            status,
            headers.iter().map(|(n, v)| (n.as_str(), v.as_str())),
        ),
        _ => Outcome::Transport(TransportError::ALL[usize::from(input.choice(5))]),
    };
    let verdict = rules.classify(request, &outcome, now);
    let may_repeat = request.idempotent || method.is_idempotent();
    let retried = verdict.is_retryable();
    assert!(!verdict.reason.to_string().is_empty());
    if retried {
        assert!(may_repeat, "{request:?} retried: {verdict:?}");
    }
    match outcome {
        Outcome::Transport(e) => {
            let want = e != TransportError::Abort && rules.transport().contains(e) && may_repeat;
            assert_eq!(retried, want, "{e:?} {request:?}: {verdict:?}");
            assert!(verdict.hint.is_none() && verdict.action != Action::Success);
        }
        Outcome::Response { status, .. } => response(
            &rules,
            default_rules,
            status,
            &headers,
            now,
            &verdict,
            may_repeat,
        ),
    }
    decide(&mut input, rules, request, &outcome, now, &verdict);
}

/// `Method::from_str` on raw text: a known name in any case, another token as `Other`,
/// anything else refused.
fn method(text: &str) -> Method {
    let known = Method::KNOWN;
    let token = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
    let want = known
        .into_iter()
        .find(|m| m.name().eq_ignore_ascii_case(text))
        .or(token.then_some(Method::Other));
    let got = Method::from_str(text);
    assert_eq!(got.as_ref().ok(), want.as_ref(), "method {text:?}");
    if let Err(e) = got {
        assert!(e.to_string().starts_with("method:"), "{e}");
    }
    want.unwrap_or(Method::Other)
}

fn some_rules(input: &mut Input<'_>) -> RetryRules {
    let mut statuses = StatusSet::empty();
    for _ in 0..input.choice(4) {
        statuses = statuses.with_range(input.u16(), input.u16());
    }
    let mut transport = TransportSet::empty();
    let bits = input.byte();
    for (i, e) in TransportError::ALL.into_iter().enumerate() {
        if bits & (1 << i) != 0 {
            transport = transport.with(e);
        }
    }
    let rules = RetryRules::default()
        .with_statuses(statuses)
        .with_transport(transport);
    let ms = input.f64_any();
    match rules.with_max_retry_after_ms(ms) {
        Ok(r) => {
            assert!(ms.is_finite() && (0.0..=MAX_DURATION_MS).contains(&ms));
            r
        }
        Err(e) => {
            assert!(e.to_string().starts_with("max_retry_after:"), "{e}");
            rules
        }
    }
}

/// The first value of a header, names compared case-insensitively after trimming.
fn first<'h>(headers: &'h [(String, String)], name: &str) -> Option<&'h str> {
    headers
        .iter()
        .find(|(n, _)| n.trim().eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn response(
    rules: &RetryRules,
    default_rules: bool,
    status: HttpStatus,
    headers: &[(String, String)],
    now: f64,
    verdict: &stampede::classify::Verdict,
    may_repeat: bool,
) {
    let code = status.code();
    let retried = verdict.is_retryable();
    if code < 400 {
        assert_eq!(verdict.action, Action::Success, "{code}");
        assert!(verdict.hint.is_none() && verdict.ignored_hint.is_none());
        return;
    }
    assert_ne!(verdict.action, Action::Success, "{code}: {verdict:?}");
    if retried {
        assert!(
            rules.statuses().contains(code),
            "{code} retried: {verdict:?}"
        );
    }
    if default_rules && (400..=499).contains(&code) && code != 408 && code != 429 {
        assert!(!retried, "{code} retried by the default rules");
    }
    // The hints, read from the raw headers.
    let after = first(headers, "retry-after").map(|v| parse_retry_after(v, now));
    let pushback = first(headers, "grpc-retry-pushback-ms").map(parse_pushback);
    let after_ms = after.and_then(Result::ok);
    let want_ignored = matches!(after, Some(Err(_))).then_some(HintError::MalformedRetryAfter);
    assert_eq!(verdict.ignored_hint, want_ignored, "{headers:?}");
    let want_hint = match pushback {
        None => after_ms.map(ServerHint::RetryAfter),
        Some(Ok(Pushback::RetryAfter(p))) => {
            Some(ServerHint::Pushback(after_ms.map_or(p, |a| a.max(p))))
        }
        Some(_) => None,
    };
    assert_eq!(verdict.hint, want_hint, "{headers:?}");
    let stop = matches!(pushback, Some(Ok(Pushback::DoNotRetry) | Err(_)));
    if stop {
        assert!(!retried, "a pushback of stop retried: {headers:?}");
    }
    if let Some(h) = verdict.hint.filter(|_| retried) {
        let ms = h.ms();
        assert!(
            ms.is_finite() && (0.0..=rules.max_retry_after_ms()).contains(&ms),
            "{h:?}"
        );
    }
    // Everything that allows a retry, and nothing else.
    let too_long = want_hint.is_some_and(|h| h.ms() > rules.max_retry_after_ms());
    let want = rules.statuses().contains(code) && may_repeat && !stop && !too_long;
    assert_eq!(retried, want, "{code} {headers:?}: {verdict:?}");
    if let Reason::HintTooLong { asked_ms, max_ms } = verdict.reason {
        assert!(asked_ms > max_ms && !retried);
    }
}

/// The policy's decision on the verdict, with small valid settings and maybe a budget.
fn decide(
    input: &mut Input<'_>,
    rules: RetryRules,
    request: Request,
    outcome: &Outcome<'_>,
    now: f64,
    verdict: &stampede::classify::Verdict,
) {
    let strategy = Strategy::ALL[usize::from(input.choice(7))];
    let base = input.f64_in(0.0, 5000.0);
    let cap = base + input.f64_in(0.0, 60_000.0);
    let backoff = BackoffSettings::new(strategy, base, cap).with_multiplier(input.f64_in(1.0, 4.0));
    let deadline = input.maybe(|i| i.f64_in(0.0, 120_000.0));
    let policy = PolicySettings::new(backoff, input.u32_in(1, 6))
        .with_max_elapsed_ms(deadline)
        .with_rules(rules)
        .build()
        .expect("valid settings");
    let mut budget = input
        .maybe(|i| BudgetSettings::new(i.f64_in(0.0, 3.0), i.f64_in(0.0, 10.0)).build(now))
        .map(|b| b.expect("valid budget"));
    let before = budget.as_mut().map(|b| b.tokens(now));
    let started = now - input.f64_in(0.0, 60_000.0);
    let mut attempt = policy.start(started);
    for _ in 0..input.choice(policy.max_attempts() as u8) {
        // Earlier attempts of the same request: each failed and was retried, or not.
        let mut scratch = budget;
        let mut rng = seeded(0);
        policy.decide(
            &mut attempt,
            request,
            outcome,
            Now::simulated(now),
            scratch.as_mut(),
            &mut rng,
        );
    }
    let mut rng = seeded(input.u64());
    let d = policy.decide(
        &mut attempt,
        request,
        outcome,
        Now::simulated(now),
        budget.as_mut(),
        &mut rng,
    );
    let Decision::Retry {
        delay_ms,
        from_server,
        ..
    } = d
    else {
        return;
    };
    assert!(verdict.is_retryable(), "{d:?} on {verdict:?}");
    assert!(delay_ms.is_finite() && delay_ms >= 0.0, "{d:?}");
    assert!(
        attempt.made() < policy.max_attempts(),
        "{d:?} after {attempt:?}"
    );
    match verdict.hint {
        Some(ServerHint::Pushback(p)) => assert!(delay_ms == p && from_server, "{d:?}"),
        Some(ServerHint::RetryAfter(a)) => assert!(delay_ms >= a, "{d:?} sooner than {a}"),
        None => assert!(delay_ms <= cap && !from_server, "{d:?} past the cap {cap}"),
    }
    if let Some(max) = deadline {
        assert!(
            now + delay_ms - started <= max,
            "{d:?} past the deadline {max}"
        );
    }
    if let (Some(b), Some(before)) = (budget.as_mut(), before) {
        let after = b.tokens(now);
        assert_eq!(
            after,
            before - b.settings().retry_cost,
            "the retry was not charged"
        );
    }
}
