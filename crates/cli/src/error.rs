//! The CLI's error: a message that says what to do, and an exit code.
//!
//! Exit codes: 0 success; 1 the operation failed (I/O error, corrupt or
//! locked image, a client-visible server failure); 2 the command line or the
//! requested configuration is wrong (clap's own usage errors also exit 2).

use std::fmt;

#[derive(Debug)]
pub struct CliError {
    pub code: u8,
    pub message: String,
}

pub const EXIT_FAILURE: u8 = 1;
pub const EXIT_USAGE: u8 = 2;

impl CliError {
    /// A bad argument or configuration (exit 2).
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError {
            code: EXIT_USAGE,
            message: message.into(),
        }
    }

    /// The operation failed (exit 1).
    pub fn runtime(message: impl Into<String>) -> CliError {
        CliError {
            code: EXIT_FAILURE,
            message: message.into(),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
