use super::*;
use crate::error::{Field, Got};
use crate::retry_after::HintError;

fn status(code: u16) -> HttpStatus {
    HttpStatus::new(code).unwrap()
}

fn classify(code: u16, method: Method) -> Verdict {
    RetryRules::default().classify(Request::new(method), &Outcome::response(status(code)), 0.0)
}

/// The whole table: every status from 100 to 599 under the default rules, for GET.
#[test]
fn every_status_from_100_to_599() {
    for code in 100..=599u16 {
        let v = classify(code, Method::Get);
        let want = match code {
            100..=399 => Action::Success,
            408 | 429 => Action::Retry,
            400..=499 => Action::DoNotRetry,
            500..=599 => Action::Retry,
            _ => unreachable!(),
        };
        assert_eq!(v.action, want, "status {code}: {}", v.reason);
        let expected_reason = match code {
            100..=399 => Reason::NotAFailure(status(code)),
            410 => Reason::Gone,
            408 | 429 | 500..=599 => Reason::RetryableStatus(status(code)),
            _ => Reason::ClientError(status(code)),
        };
        assert_eq!(v.reason, expected_reason, "status {code}");
        assert!(!v.reason.to_string().is_empty());
        assert_eq!(v.hint, None);
    }
}

#[test]
fn statuses_outside_100_to_599_are_rejected() {
    for code in [0, 1, 99, 600, 999, u16::MAX] {
        let e = HttpStatus::new(code).unwrap_err();
        assert_eq!(e.field, "status");
        assert_eq!(
            e.to_string(),
            format!("status: expected a whole number from 100 to 599, got {code}")
        );
    }
}

#[test]
fn every_transport_error() {
    let rules = RetryRules::default();
    for e in TransportError::ALL {
        let v = rules.classify(Request::new(Method::Get), &Outcome::Transport(e), 0.0);
        let (action, reason) = match e {
            TransportError::Timeout | TransportError::Connect | TransportError::Reset => {
                (Action::Retry, Reason::RetryableTransport(e))
            }
            TransportError::Dns => (Action::DoNotRetry, Reason::TransportNotRetried(e)),
            TransportError::Abort => (Action::DoNotRetry, Reason::Aborted),
        };
        assert_eq!((v.action, v.reason), (action, reason), "{e}");
        assert_eq!(e.name().parse::<TransportError>().unwrap(), e);
    }
    // An abort is never retried, whatever the rules say.
    let all = TransportError::ALL
        .into_iter()
        .fold(TransportSet::empty(), TransportSet::with);
    let v = rules.with_transport(all).classify(
        Request::new(Method::Get),
        &Outcome::Transport(TransportError::Abort),
        0.0,
    );
    assert_eq!(v.action, Action::DoNotRetry);
    assert!("carrier-pigeon".parse::<TransportError>().is_err());
}

#[test]
fn post_and_patch_are_retried_only_when_marked_idempotent() {
    let rules = RetryRules::default();
    let outcomes = [
        Outcome::response(status(503)),
        Outcome::Transport(TransportError::Reset),
    ];
    for m in [Method::Post, Method::Patch, Method::Connect, Method::Other] {
        for o in &outcomes {
            let v = rules.classify(Request::new(m), o, 0.0);
            assert_eq!(v.action, Action::DoNotRetry, "{m} {o:?}");
            assert_eq!(v.reason, Reason::NotIdempotent(m));
            // The reason names the method, or says what an unnamed one is.
            let named = if m == Method::Other {
                "an extension method".to_owned()
            } else {
                m.name().to_owned()
            };
            assert!(
                v.reason
                    .to_string()
                    .starts_with(&format!("{named} is not idempotent")),
                "{}",
                v.reason
            );
            let v = rules.classify(Request::new(m).idempotent(true), o, 0.0);
            assert_eq!(v.action, Action::Retry, "{m} {o:?} marked idempotent");
        }
        // A 404 stays a 404: the idempotency question never comes up.
        assert_eq!(classify(404, m).reason, Reason::ClientError(status(404)));
    }
    for m in [
        Method::Get,
        Method::Head,
        Method::Put,
        Method::Delete,
        Method::Options,
        Method::Trace,
    ] {
        assert_eq!(classify(503, m).action, Action::Retry, "{m}");
    }
}

#[test]
fn methods_parse() {
    assert_eq!("post".parse::<Method>().unwrap(), Method::Post);
    assert_eq!("PROPFIND".parse::<Method>().unwrap(), Method::Other);
    assert!("".parse::<Method>().is_err());
    assert!("GET /".parse::<Method>().is_err());
}

#[test]
fn rules_are_configuration() {
    let rules = RetryRules::default().with_statuses(StatusSet::parse("502-504, 429").unwrap());
    let get = Request::new(Method::Get);
    let code = |c| {
        rules
            .classify(get, &Outcome::response(status(c)), 0.0)
            .action
    };
    assert_eq!(code(500), Action::DoNotRetry);
    assert_eq!(code(503), Action::Retry);
    assert_eq!(code(429), Action::Retry);
    assert_eq!(code(408), Action::DoNotRetry);
    // 408 left out of the rules may still pass on a retry: not "a client error that gets
    // the same answer" but a status these rules do not retry.
    assert_eq!(
        rules
            .classify(get, &Outcome::response(status(408)), 0.0)
            .reason
            .to_string(),
        "408 Request Timeout is not in the statuses these rules retry"
    );
    let only_5xx = RetryRules::default().with_statuses(StatusSet::parse("5xx").unwrap());
    assert_eq!(
        only_5xx
            .classify(get, &Outcome::response(status(429)), 0.0)
            .reason,
        Reason::StatusNotRetried(status(429))
    );
    assert_eq!(
        rules
            .classify(get, &Outcome::response(status(501)), 0.0)
            .reason,
        Reason::StatusNotRetried(status(501))
    );
    // A client error the rules were told to retry is named as such, not as a server's.
    let with_404 = RetryRules::default().with_statuses(StatusSet::parse("5xx,404").unwrap());
    let v = with_404.classify(get, &Outcome::response(status(404)), 0.0);
    assert_eq!(v.action, Action::Retry);
    assert_eq!(
        v.reason.to_string(),
        "404 Not Found is one of the statuses these rules retry"
    );
    let with_dns = RetryRules::default()
        .with_transport(RetryRules::default().transport().with(TransportError::Dns));
    assert_eq!(
        with_dns
            .classify(get, &Outcome::Transport(TransportError::Dns), 0.0)
            .action,
        Action::Retry
    );
}

#[test]
fn status_set_parse() {
    let s = StatusSet::parse("5xx,408,429").unwrap();
    assert_eq!(s, RetryRules::default().statuses());
    assert_eq!(s.iter().count(), 102);
    assert!(StatusSet::parse("").unwrap().iter().next().is_none());
    for bad in ["6xx", "abc", "500-400", "99", "600", "5x", "1-2-3"] {
        let e = StatusSet::parse(bad).unwrap_err();
        assert_eq!(e.field, "retry_on", "{bad}");
    }
    assert!(!StatusSet::empty().with(503).without(503).contains(503));
}

#[test]
fn retry_after_is_read_capped_and_malformed_values_are_recorded() {
    let rules = RetryRules::default();
    let get = Request::new(Method::Get);
    let with = |name: &'static str, value: &'static str| {
        rules.classify(
            get,
            &Outcome::with_headers(status(503), [("Content-Type", "x"), (name, value)]),
            0.0,
        )
    };
    let v = with("Retry-After", "2");
    assert_eq!(
        (v.action, v.hint),
        (Action::Retry, Some(ServerHint::RetryAfter(2000.0)))
    );
    let v = with("retry-after", "60");
    assert_eq!(v.action, Action::Retry, "exactly the maximum is honoured");
    let v = with("RETRY-AFTER", "3600");
    assert_eq!(v.action, Action::DoNotRetry);
    assert_eq!(v.hint_ms(), Some(3_600_000.0));
    assert_eq!(
        v.reason.to_string(),
        "the server asked to wait 3600 s, more than the 60 s maximum: giving up rather than waiting"
    );
    let v = with("Retry-After", "in a bit");
    assert_eq!(
        v.action,
        Action::Retry,
        "a malformed hint is ignored, not fatal"
    );
    assert_eq!(v.hint, None);
    assert_eq!(v.ignored_hint, Some(HintError::MalformedRetryAfter));
    // an HTTP-date relative to the caller's now
    let v = rules.classify(
        get,
        &Outcome::with_headers(
            status(429),
            [("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT")],
        ),
        1_445_412_470_000.0,
    );
    assert_eq!(v.hint, Some(ServerHint::RetryAfter(10_000.0)));
    // a configurable maximum
    let strict = rules.with_max_retry_after_ms(1000.0).unwrap();
    let v = strict.classify(
        get,
        &Outcome::with_headers(status(503), [("Retry-After", "2")]),
        0.0,
    );
    assert_eq!(v.action, Action::DoNotRetry);
    assert!(rules.with_max_retry_after_ms(f64::NAN).is_err());
    // a hint on a status that is not retried changes nothing, but is reported
    let v = rules.classify(
        get,
        &Outcome::with_headers(status(404), [("Retry-After", "1")]),
        0.0,
    );
    assert_eq!(v.action, Action::DoNotRetry);
    assert_eq!(v.hint, Some(ServerHint::RetryAfter(1000.0)));
    // so is a hint on a request that may not be repeated
    let v = rules.classify(
        Request::new(Method::Post),
        &Outcome::with_headers(status(503), [("Retry-After", "5")]),
        0.0,
    );
    assert_eq!(v.reason, Reason::NotIdempotent(Method::Post));
    assert_eq!(v.hint_ms(), Some(5000.0));
}

#[test]
fn grpc_pushback() {
    let rules = RetryRules::default();
    let get = Request::new(Method::Get);
    let with = |value: &'static str| {
        rules.classify(
            get,
            &Outcome::with_headers(
                status(503),
                [("Retry-After", "30"), ("grpc-retry-pushback-ms", value)],
            ),
            0.0,
        )
    };
    let v = with("250");
    assert_eq!(
        (v.action, v.hint),
        (Action::Retry, Some(ServerHint::Pushback(30_000.0))),
        "pushback resets the backoff, but never retries sooner than Retry-After asked"
    );
    let v = with("45000");
    assert_eq!(v.hint, Some(ServerHint::Pushback(45_000.0)));
    let alone = rules.classify(
        get,
        &Outcome::with_headers(status(503), [("grpc-retry-pushback-ms", "250")]),
        0.0,
    );
    assert_eq!(alone.hint, Some(ServerHint::Pushback(250.0)));
    let v = with("-1");
    assert_eq!(
        (v.action, v.reason),
        (Action::DoNotRetry, Reason::PushbackStop)
    );
    let v = with("soon");
    assert_eq!(
        (v.action, v.reason),
        (Action::DoNotRetry, Reason::PushbackMalformed)
    );
    let v = with("3600000");
    assert!(matches!(v.reason, Reason::HintTooLong { .. }));
}

#[test]
fn status_set_ranges_reaching_u16_max_end_and_keep_only_http_codes() {
    // `hi = u16::MAX` used to overflow the loop counter: a panic in debug, an endless loop
    // in release.
    let all = StatusSet::empty().with_range(0, u16::MAX);
    assert!(all.contains(100) && all.contains(599));
    assert!(!all.contains(99) && !all.contains(600));
    let top = StatusSet::empty().with_range(590, u16::MAX);
    assert!(top.contains(590) && top.contains(599) && !top.contains(589));
    assert_eq!(
        StatusSet::empty().with_range(600, u16::MAX),
        StatusSet::empty()
    );
    assert_eq!(StatusSet::empty().with_range(504, 500), StatusSet::empty());
}

#[test]
fn the_default_retry_on_text_is_the_default_set() {
    assert_eq!(
        StatusSet::parse(DEFAULT_RETRY_ON).unwrap(),
        RetryRules::default().statuses()
    );
}

#[test]
fn status_set_parse_takes_three_digit_statuses_only() {
    // Found by the `status_set` fuzz target: `u16`'s parser took a sign and leading zeros.
    for bad in [
        "+500",
        "0500",
        "000200",
        "05xx",
        "+5xx",
        "500-+504",
        "0500-0504",
    ] {
        assert!(StatusSet::parse(bad).is_err(), "{bad}");
    }
    assert_eq!(
        StatusSet::parse(" 500 - 504 ,5XX").unwrap(),
        StatusSet::empty().with_range(500, 599)
    );
}

#[test]
fn status_set_parse_names_the_bad_item_as_given() {
    for (spec, item) in [
        ("9xx", "9xx"),
        ("xx", "xx"),
        ("5xx, 6Xx", "6Xx"),
        ("500-600", "500-600"),
        ("5xx,600", "600"),
        ("abc", "abc"),
    ] {
        let e = StatusSet::parse(spec).unwrap_err();
        assert_eq!(e.got, Got::Text(item.to_owned()), "{spec}");
    }
}

#[test]
fn status_set_parse_refuses_empty_items_but_takes_a_blank_list() {
    for bad in ["5xx,,429", "5xx,", ",5xx", " , "] {
        let e = StatusSet::parse(bad).unwrap_err();
        assert_eq!(e.field, Field::RetryOn, "{bad}");
        assert_eq!(e.got, Got::Text(bad.to_owned()), "{bad}");
    }
    assert_eq!(StatusSet::parse("").unwrap(), StatusSet::empty());
    assert_eq!(StatusSet::parse("  ").unwrap(), StatusSet::empty());
}
