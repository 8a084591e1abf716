/// The allocator: the ledger and the screens allocate many small, short-lived records, which
/// mimalloc serves faster than the system's allocator, and from every core without contention.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

fn main() -> ExitCode {
    ratedesk::cli::run(std::env::args_os())
}
