// SPDX-License-Identifier: GPL-2.0

//! The emulator's log: one line per notable event (connection start and end,
//! first access to each unmodelled register, DMA mappings, interrupts set-up),
//! written to a file or to stderr.
//!
//! Messages of the vfio_user crate (which uses the `log` facade) are sent to
//! the same place, at level info and above.

use std::collections::HashSet;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// Locks a mutex, also when another thread panicked while holding it: the
/// counts must still be written after such a panic.
pub fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

struct Inner {
    sink: Mutex<Box<dyn Write + Send>>,
    start: Instant,
}

/// A cheap-to-clone handle on the log.
#[derive(Clone)]
pub struct Logger {
    inner: Arc<Inner>,
}

impl Logger {
    fn with_sink(sink: Box<dyn Write + Send>) -> Self {
        Logger {
            inner: Arc::new(Inner {
                sink: Mutex::new(sink),
                start: Instant::now(),
            }),
        }
    }

    /// A log written to stderr.
    pub fn stderr() -> Self {
        Self::with_sink(Box::new(io::stderr()))
    }

    /// A log appended to `path` (created if needed).
    pub fn file(path: &Path) -> io::Result<Self> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Self::with_sink(Box::new(file)))
    }

    /// A log kept in memory, for tests.
    #[cfg(test)]
    pub fn memory() -> (Self, MemoryLog) {
        let mem = MemoryLog::default();
        (Self::with_sink(Box::new(mem.clone())), mem)
    }

    /// Writes one line, prefixed with the seconds since start. Write errors
    /// are ignored: the log must never stop the device.
    pub fn line(&self, msg: &str) {
        let t = self.inner.start.elapsed().as_secs_f64();
        let mut sink = lock(&self.inner.sink);
        let _ = writeln!(sink, "[{t:12.6}] {msg}");
        let _ = sink.flush();
    }
}

/// An in-memory log sink whose text tests can inspect.
#[cfg(test)]
#[derive(Clone, Default)]
pub struct MemoryLog(Arc<Mutex<Vec<u8>>>);

#[cfg(test)]
impl MemoryLog {
    pub fn contents(&self) -> String {
        String::from_utf8_lossy(&lock(&self.0)).into_owned()
    }
}

#[cfg(test)]
impl Write for MemoryLog {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        lock(&self.0).extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
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

/// Forwards the `log` facade's records (from the vfio_user crate) to a
/// [`Logger`].
struct Bridge(Logger);

impl log::Log for Bridge {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Info
    }

    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            self.0.line(&format!(
                "{} {}: {}",
                record.level().as_str().to_lowercase(),
                record.target(),
                record.args()
            ));
        }
    }

    fn flush(&self) {}
}

/// Sends the `log` facade's records to `logger`. Only the first call in a
/// process has an effect.
pub fn install_bridge(logger: Logger) {
    let bridge: &'static Bridge = Box::leak(Box::new(Bridge(logger)));
    if log::set_logger(bridge).is_ok() {
        log::set_max_level(log::LevelFilter::Info);
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
    fn lines_carry_a_timestamp_prefix() {
        let (log, text) = Logger::memory();
        log.line("hello");
        let text = text.contents();
        assert!(
            text.starts_with('[') && text.ends_with("] hello\n"),
            "{text}"
        );
    }
}
