//! Writes a credentials directory for a topology, as submission does, with a
//! chosen validity. The Java shim's test fixtures were made with it:
//!
//! ```sh
//! cargo run -p egret-transport --example make_credentials -- DIR TOPOLOGY DAYS
//! ```

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use egret_transport::TopologyCredentials;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, topology, days] = args.as_slice() else {
        eprintln!("usage: make_credentials DIR TOPOLOGY DAYS");
        return ExitCode::from(2);
    };
    let Ok(days) = days.parse::<u64>() else {
        eprintln!("DAYS must be a whole number of days, not '{days}'");
        return ExitCode::from(2);
    };
    let made = TopologyCredentials::generate(topology, Duration::from_secs(days * 24 * 3600))
        .and_then(|credentials| credentials.save(&PathBuf::from(dir)));
    match made {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("{err}");
            ExitCode::FAILURE
        }
    }
}
