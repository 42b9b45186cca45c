//! Standard output the way Unix tools use it: when the reader goes away (`psxrender … | head
//! -1`), the rest of the output is dropped quietly and the command still ends with its own exit
//! code. `println!` would panic there (exit 101, "failed printing to stdout: Broken pipe"), so
//! the commands print through [`outln!`] and [`out!`] instead (clippy's `print_stdout` lint
//! keeps it so).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a write failed: nothing more is written.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `args` to standard output unless an earlier write failed. A reader that went away
/// (broken pipe) ends the output silently; any other failure is reported once on stderr.
pub fn write(args: std::fmt::Arguments) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    if let Err(e) = std::io::stdout().lock().write_fmt(args) {
        CLOSED.store(true, Ordering::Relaxed);
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write to standard output: {e}");
        }
    }
}

/// `println!` that survives a closed standard output (see the module doc).
macro_rules! outln {
    () => {
        $crate::cli::stdout::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::stdout::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` that survives a closed standard output (see the module doc).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::stdout::write(format_args!($($arg)*))
    };
}
