//! The national lists' CSV (the selo service's, the Icelandic and the Turkish columns): read or
//! refused, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ratedesk::import::national_csv::{FINNISH, ICELANDIC, TURKISH, parse};

fuzz_target!(|bytes: &[u8]| {
    for columns in [&FINNISH, &ICELANDIC, &TURKISH] {
        let _ = parse(bytes, columns);
    }
});
