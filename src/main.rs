/// The allocator: the ledger and the screens allocate many small, short-lived records, which
/// mimalloc serves faster than the system's allocator, and from every core without contention.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

fn main() -> ExitCode {
    // mimalloc is built not to ask for transparent huge pages (Cargo.toml says why); where the
    // system gives them to every process ("always"), this process declines them too. Nothing
    // depends on it: a refusal leaves the system's setting.
    #[cfg(target_os = "linux")]
    let _ = nix::sys::prctl::set_thp_disable(true);
    ratedesk::cli::run(std::env::args_os())
}
