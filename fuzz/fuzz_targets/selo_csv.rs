//! The selo service's CSV: read or refused, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let _ = ratedesk::import::selo_csv::parse(bytes);
});
