//! The command line: argument parsing and the subcommands' input and output.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit status for input that was refused.
const BAD_INPUT: u8 = 2;

/// A rating officer's workstation.
#[derive(Parser, Debug)]
#[command(name = "ratedesk", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Rate a JSON document of players and events read on stdin; write the results to stdout.
    ///
    /// Pure calculator: no database is read or written. Invalid input is reported on stderr
    /// naming the item, with exit status 2 and nothing on stdout.
    Rate {
        /// Read the document from this file instead of stdin.
        #[arg(long, value_name = "FILE")]
        input: Option<std::path::PathBuf>,
        /// Indent the output.
        #[arg(long)]
        pretty: bool,
    },
}

/// Runs the command line and returns the process exit status.
pub fn run<I: IntoIterator<Item = OsString>>(args: I) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(BAD_INPUT)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match cli.command {
        Command::Rate { input, pretty } => rate(input.as_deref(), pretty),
    }
}

fn rate(input: Option<&std::path::Path>, pretty: bool) -> ExitCode {
    let text = match input {
        Some(path) => std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display())),
        None => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map(|_| s)
                .map_err(|e| format!("stdin: {e}"))
        }
    };
    let text = match text {
        Ok(t) => t,
        Err(e) => {
            eprintln!("ratedesk rate: {e}");
            return ExitCode::from(BAD_INPUT);
        }
    };
    match crate::json::rate(&text) {
        Ok(doc) => {
            let out = if pretty {
                serde_json::to_string_pretty(&doc)
            } else {
                serde_json::to_string(&doc)
            };
            let mut stdout = std::io::stdout().lock();
            match out.map(|s| writeln!(stdout, "{s}")) {
                Ok(Ok(())) => ExitCode::SUCCESS,
                Ok(Err(e)) => {
                    eprintln!("ratedesk rate: writing the output: {e}");
                    ExitCode::FAILURE
                }
                Err(e) => {
                    eprintln!("ratedesk rate: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(e) => {
            eprintln!("ratedesk rate: {e}");
            ExitCode::from(BAD_INPUT)
        }
    }
}
