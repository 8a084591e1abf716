use std::process::ExitCode;

fn main() -> ExitCode {
    ratedesk::cli::run(std::env::args_os())
}
