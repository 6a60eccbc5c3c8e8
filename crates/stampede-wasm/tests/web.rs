//! In a real browser (headless Chromium): the golden seeds give the bits pinned by the
//! native tests, and the glue turns bad settings into exceptions, not panics.
//! `wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver crates/stampede-wasm`

use stampede::backoff::Strategy;
use stampede_wasm::{Budget, RetryPolicy, Simulation};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

/// The same file the native tests check (`crates/stampede/tests/golden.rs`).
#[path = "../../stampede/tests/golden/values.rs"]
mod golden;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn golden_delays_match_native_to_the_bit() {
    let pinned: Vec<Strategy> = golden::DELAYS_200_30000_SEED_42
        .iter()
        .map(|(s, _)| *s)
        .collect();
    assert_eq!(pinned, Strategy::ALL);
    for (strategy, want) in golden::DELAYS_200_30000_SEED_42 {
        assert_eq!(golden::delays_bits(strategy), want, "{strategy}");
    }
}

#[wasm_bindgen_test]
fn golden_simulations_match_native_to_the_bit() {
    for (name, settings, want) in golden::runs() {
        let mut sim = stampede::sim::Simulation::new(&settings).unwrap();
        sim.run();
        assert_eq!(golden::metrics_bits(&sim.metrics()), want, "{name}");
    }
}

fn options(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap()
}

#[wasm_bindgen_test]
fn the_glue_gives_the_same_numbers_and_throws_on_bad_input() {
    let mut p = RetryPolicy::new(options(
        r#"{"strategy":"full","baseMs":200,"capMs":30000,"maxAttempts":6,"seed":42}"#,
    ))
    .unwrap();
    let d: Vec<u64> = p.delays().to_vec().into_iter().map(f64::to_bits).collect();
    assert_eq!(d, golden::FULL_200_30000_SEED_42);
    for bad in [
        r#"{"baseMs":-1}"#,
        r#"{"capMs":1,"baseMs":5}"#,
        r#"{"maxAttempts":0}"#,
        r#"{"strategy":"x"}"#,
    ] {
        let err = RetryPolicy::new(options(bad)).err().unwrap();
        assert!(err.is_instance_of::<js_sys::RangeError>(), "{bad}");
    }
    assert!(Simulation::new(options(r#"{"clients":0}"#)).is_err());
    let mut sim = Simulation::new(options(r#"{"clients":500,"seed":1}"#)).unwrap();
    sim.run().unwrap();
    assert!(sim.is_done());
}

fn message(err: JsValue) -> String {
    String::from(err.unchecked_into::<js_sys::Error>().message())
}

#[wasm_bindgen_test]
fn errors_come_from_the_js_snippet_and_name_the_argument() {
    let err = Budget::for_call_site(JsValue::from(42), JsValue::UNDEFINED)
        .err()
        .unwrap();
    assert!(err.is_instance_of::<js_sys::TypeError>());
    assert_eq!(message(err), "name: expected a string, got 42");
    let mut p = RetryPolicy::new(options(r#"{"maxAttempts":100,"seed":1}"#)).unwrap();
    let err = p.sample(JsValue::from(1_000_000)).err().unwrap();
    assert!(err.is_instance_of::<js_sys::RangeError>());
    let prop = |name: &str| js_sys::Reflect::get(&err, &JsValue::from(name)).unwrap();
    assert_eq!(prop("field"), "n");
    assert_eq!(prop("code"), "too_much_work");
    assert_eq!(prop("max"), 101_010);
    assert!(message(err).starts_with("n: expected at most 101010 samples "));
    assert_eq!(p.sample(JsValue::from(3)).unwrap().length(), 3 * 99);
}

#[wasm_bindgen_test]
fn settings_given_reconfigure_a_call_site_keeping_its_tokens() {
    let site = JsValue::from("GET /web-test");
    let b =
        Budget::for_call_site(site.clone(), options(r#"{"capacity":3,"refillPerSec":0}"#)).unwrap();
    assert!(b.try_retry(JsValue::UNDEFINED).unwrap());
    Budget::for_call_site(site.clone(), options(r#"{"capacity":10,"refillPerSec":0}"#)).unwrap();
    assert_eq!(b.tokens(JsValue::UNDEFINED).unwrap(), 2.0);
    Budget::for_call_site(site, JsValue::UNDEFINED).unwrap();
    b.reset().unwrap();
    assert_eq!(b.tokens(JsValue::UNDEFINED).unwrap(), 10.0);
}

#[wasm_bindgen_test]
fn the_queueing_options_reach_the_core_and_bad_ones_name_their_field() {
    let sim = Simulation::new(options(
        r#"{"servers":2,"workers":5,"serviceMs":100,"queue":1000,"queueOrder":"lifo"}"#,
    ))
    .unwrap();
    let fleet = sim.fleet();
    let get = |o: &js_sys::Object, k: &str| js_sys::Reflect::get(o, &JsValue::from(k)).unwrap();
    assert_eq!(get(&fleet, "capacityRps"), 100);
    assert_eq!(get(&fleet, "queue"), 1000);
    for (bad, field) in [
        (
            r#"{"slowdown":{"startMs":0,"lengthMs":10,"factor":0.5}}"#,
            "slowdown.factor",
        ),
        (r#"{"servers":2,"outageServers":3}"#, "outageServers"),
        (r#"{"balance":"fastest"}"#, "balance"),
        (r#"{"workers":2.5}"#, "workers"),
    ] {
        let err = Simulation::new(options(bad)).err().unwrap();
        assert!(err.is_instance_of::<js_sys::RangeError>(), "{bad}");
        assert_eq!(get(err.unchecked_ref(), "field"), field, "{bad}");
    }
}
