//! How much host memory this process may still take, so that a job too large for the machine
//! is refused with the numbers before any work, instead of aborting mid-way when an
//! allocation fails (or being killed by the kernel's OOM killer under a cgroup limit).
//!
//! Linux only: the smallest of the memory available to new allocations (`MemAvailable`),
//! the cgroup's limit less what the cgroup uses, and the address-space limit (`ulimit -v`)
//! less what the process has mapped. Elsewhere nothing is known and nothing is refused.

use std::fs;

/// Memory available to this process, bytes, and where that figure comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct Available {
    /// Bytes.
    pub bytes: u64,
    /// The limit that sets it, as a user would look it up.
    pub source: &'static str,
}

/// The tightest of the limits this machine reports, or `None` where none can be read.
pub fn available() -> Option<Available> {
    let meminfo = fs::read_to_string("/proc/meminfo").ok();
    let limits = fs::read_to_string("/proc/self/limits").ok();
    let status = fs::read_to_string("/proc/self/status").ok();
    let cgroup = cgroup_headroom();
    [
        meminfo
            .as_deref()
            .and_then(|m| kib_field(m, "MemAvailable:"))
            .map(|bytes| Available {
                bytes,
                source: "MemAvailable in /proc/meminfo",
            }),
        cgroup.map(|bytes| Available {
            bytes,
            source: "the cgroup's memory.max less its memory.current",
        }),
        address_space_headroom(limits.as_deref(), status.as_deref()).map(|bytes| Available {
            bytes,
            source: "the address-space limit (ulimit -v) less what the process has mapped",
        }),
    ]
    .into_iter()
    .flatten()
    .min_by_key(|a| a.bytes)
}

/// A `/proc` field written as `Name:   1234 kB`, in bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..].split_whitespace().next()?.parse().ok()?;
    kib.checked_mul(1024)
}

/// cgroup v2: `memory.max − memory.current` of this process's cgroup, when a limit is set.
fn cgroup_headroom() -> Option<u64> {
    let own = fs::read_to_string("/proc/self/cgroup").ok()?;
    // v2 has one line "0::/path".
    let path = own.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = format!("/sys/fs/cgroup{}", path.trim_end());
    let read = |f: &str| fs::read_to_string(format!("{dir}/{f}")).ok();
    headroom(read("memory.max")?.trim(), read("memory.current")?.trim())
}

/// `max − current` for a cgroup's files; `None` when there is no limit ("max").
fn headroom(max: &str, current: &str) -> Option<u64> {
    let max: u64 = max.parse().ok()?;
    let current: u64 = current.parse().ok()?;
    Some(max.saturating_sub(current))
}

/// `ulimit -v` (the soft "Max address space" of `/proc/self/limits`) less `VmSize`.
fn address_space_headroom(limits: Option<&str>, status: Option<&str>) -> Option<u64> {
    let line = limits?
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    let soft: u64 = line["Max address space".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()?; // "unlimited" does not parse: no limit
    let mapped = kib_field(status?, "VmSize:").unwrap_or(0);
    Some(soft.saturating_sub(mapped))
}

/// Bytes in a unit that suits them: "512 MiB", "7.5 GiB".
pub fn format_bytes(bytes: u64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    let b = bytes as f64;
    if b >= GIB {
        format!("{:.1} GiB", b / GIB)
    } else {
        format!("{:.0} MiB", (b / MIB).max(1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_limits_parse() {
        let meminfo = "MemTotal:       24000000 kB\nMemAvailable:   20000000 kB\n";
        assert_eq!(kib_field(meminfo, "MemAvailable:"), Some(20_000_000 * 1024));
        assert_eq!(kib_field(meminfo, "Missing:"), None);
        assert_eq!(headroom("max", "123"), None);
        assert_eq!(headroom("1000", "300"), Some(700));
        assert_eq!(headroom("1000", "3000"), Some(0));
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max address space         4294967296           unlimited            bytes\n";
        let status = "VmSize:\t 1048576 kB\n";
        assert_eq!(
            address_space_headroom(Some(limits), Some(status)),
            Some((4 << 30) - (1 << 30))
        );
        let unlimited =
            "Max address space         unlimited            unlimited            bytes\n";
        assert_eq!(address_space_headroom(Some(unlimited), Some(status)), None);
        assert_eq!(format_bytes(512 << 20), "512 MiB");
        assert_eq!(format_bytes(3 << 29), "1.5 GiB");
    }

    #[test]
    fn this_machine_reports_something() {
        if cfg!(target_os = "linux") {
            let a = available().expect("/proc/meminfo is readable on Linux");
            assert!(a.bytes > 0, "{a:?}");
        }
    }
}
