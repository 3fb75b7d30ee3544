// SPDX-License-Identifier: GPL-2.0

//! The emulator's log: one line per notable event (connection start and end, first access to
//! each unmodelled register, DMA mappings, interrupts set-up), each prefixed with the seconds
//! since start as `[    1.234567] `, which the harness reads (`tests/harness/surprise.py`
//! measures the time between two lines).
//!
//! Every line goes through the `log` facade: a device's events through its [`Logger`] (target
//! [`TARGET`], level info), the vfio_user crate's messages through its own calls (then shown
//! with their level and target). [`init`] installs env_logger, which writes both, info and
//! above, to the `--log` file or to stderr. The facade's logger is one for the whole process;
//! the unit tests install none and run many devices at once, so each device's [`Logger`] can
//! also keep its own lines for its test to read ([`Logger::memory`]).

use std::collections::HashSet;
use std::fs::OpenOptions;
use std::io::{
    self,
    Write, //
};
use std::path::Path;
use std::sync::{
    Mutex,
    MutexGuard, //
};
use std::time::{
    Duration,
    Instant, //
};

use env_logger::Target;
use log::{
    LevelFilter,
    Record, //
};

/// The `log` target of the emulator's own lines, written without level or target.
pub const TARGET: &str = "nova_emu";

/// Locks a mutex, also when another thread panicked while holding it: the
/// counts must still be written after such a panic.
pub fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Sends the `log` facade's records, info and above, to the file at `path` (appended to,
/// created if needed) or to stderr, one line each. Only the first call in a process installs
/// the writer; an error says why the file cannot be opened.
pub fn init(path: Option<&Path>) -> Result<(), String> {
    let target = match path {
        Some(path) => Target::Pipe(Box::new(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("cannot open the log file '{}': {e}", path.display()))?,
        )),
        None => Target::Stderr,
    };
    let start = Instant::now();
    // Fails only when a logger is installed already, which then stays.
    let _ = env_logger::Builder::new()
        .filter_level(LevelFilter::Info)
        .target(target)
        .format(move |out, record| write_record(out, start.elapsed(), record))
        .try_init();
    Ok(())
}

/// Writes one record as a line: the seconds since start, then the message, after the level
/// and the target unless the line is the emulator's own. Write errors are the caller's to
/// ignore: the log must never stop the device.
fn write_record(out: &mut dyn Write, since_start: Duration, record: &Record<'_>) -> io::Result<()> {
    let t = since_start.as_secs_f64();
    if record.target().split("::").next() == Some(TARGET) {
        writeln!(out, "[{t:12.6}] {}", record.args())
    } else {
        writeln!(
            out,
            "[{t:12.6}] {} {}: {}",
            record.level().as_str().to_lowercase(),
            record.target(),
            record.args()
        )
    }
}

/// A cheap-to-clone handle on the log, one per device.
#[derive(Clone, Default)]
pub struct Logger {
    /// The lines kept for a test, besides going to the `log` facade.
    #[cfg(test)]
    memory: Option<MemoryLog>,
}

impl Logger {
    /// A log that also keeps its lines in memory, for tests.
    #[cfg(test)]
    pub fn memory() -> (Self, MemoryLog) {
        let mem = MemoryLog::default();
        (
            Logger {
                memory: Some(mem.clone()),
            },
            mem,
        )
    }

    /// Logs one line, at level info.
    pub fn line(&self, msg: &str) {
        log::info!(target: TARGET, "{msg}");
        #[cfg(test)]
        if let Some(mem) = &self.memory {
            lock(&mem.0).push_str(&format!("{msg}\n"));
        }
    }
}

/// The lines of one [`Logger`], which tests can inspect.
#[cfg(test)]
#[derive(Clone, Default)]
pub struct MemoryLog(std::sync::Arc<Mutex<String>>);

#[cfg(test)]
impl MemoryLog {
    pub fn contents(&self) -> String {
        lock(&self.0).clone()
    }
}

/// Logs a message once per key (e.g. per register offset), up to a limit of
/// distinct keys after which one last line says that the rest is not logged.
pub struct LogOnce {
    what: &'static str,
    limit: usize,
    seen: HashSet<u64>,
    overflowed: bool,
}

impl LogOnce {
    pub fn new(what: &'static str, limit: usize) -> Self {
        LogOnce {
            what,
            limit,
            seen: HashSet::new(),
            overflowed: false,
        }
    }

    /// Logs `msg()` unless `key` was logged before.
    pub fn log(&mut self, log: &Logger, key: u64, msg: impl FnOnce() -> String) {
        if self.seen.contains(&key) {
            return;
        }
        if self.seen.len() >= self.limit {
            if !self.overflowed {
                self.overflowed = true;
                log.line(&format!(
                    "{} offsets logged; further {}s at new offsets are not logged",
                    self.limit, self.what
                ));
            }
            return;
        }
        self.seen.insert(key);
        log.line(&msg());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_once_logs_each_key_once_and_stops_at_the_limit() {
        let (log, text) = Logger::memory();
        let mut once = LogOnce::new("thing", 2);
        for key in [1, 1, 2, 3, 4, 2] {
            once.log(&log, key, || format!("key {key}"));
        }
        let text = text.contents();
        assert_eq!(text.lines().count(), 3, "{text}");
        assert!(text.contains("key 1") && text.contains("key 2"));
        assert!(!text.contains("key 3"));
        assert!(text.contains("further things at new offsets are not logged"));
    }

    #[test]
    fn each_logger_keeps_only_its_own_lines() {
        let (one, one_text) = Logger::memory();
        let (two, two_text) = Logger::memory();
        one.line("first");
        one.clone().line("second");
        two.line("other");
        assert_eq!(one_text.contents(), "first\nsecond\n");
        assert_eq!(two_text.contents(), "other\n");
    }

    /// One record written as a line, `since_start` after the start.
    fn line(since_start: Duration, target: &str, level: log::Level, msg: &str) -> String {
        let mut out = Vec::new();
        write_record(
            &mut out,
            since_start,
            &Record::builder()
                .args(format_args!("{msg}"))
                .target(target)
                .level(level)
                .build(),
        )
        .expect("written to memory");
        String::from_utf8(out).expect("UTF-8")
    }

    #[test]
    fn own_lines_carry_only_the_seconds_since_start() {
        let t = Duration::from_micros(12_345_678);
        assert_eq!(
            line(t, TARGET, log::Level::Info, "GSP: fault mute at message 3"),
            "[   12.345678] GSP: fault mute at message 3\n"
        );
        assert_eq!(
            line(Duration::ZERO, "nova_emu::gsp", log::Level::Info, "x"),
            "[    0.000000] x\n"
        );
    }

    #[test]
    fn other_crates_lines_name_their_level_and_target() {
        assert_eq!(
            line(
                Duration::from_millis(1500),
                "vfio_user::server",
                log::Level::Warn,
                "version 0.2"
            ),
            "[    1.500000] warn vfio_user::server: version 0.2\n"
        );
    }
}
