//! Scheduling priority of solver threads.
//!
//! Solvers are CPU-bound and run for seconds; the server's async runtime (health checks, reading
//! jobs, sending answers) needs the CPU for microseconds at a time but at once. Running the
//! workers at a lower priority (a higher Unix nice value) lets the runtime preempt them, so a
//! fully loaded server still answers health probes promptly. On Linux the nice value belongs to
//! a thread, and threads a solver spawns inherit it.

/// Sets the calling thread's nice value (0 = normal, 19 = lowest). Unprivileged processes may
/// only lower their priority; the result says whether it was set (always `false` off Linux).
pub fn set_current_thread_nice(nice: i32) -> bool {
    #[cfg(target_os = "linux")]
    {
        let tid = rustix::thread::gettid();
        rustix::process::setpriority_process(Some(tid), nice).is_ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = nice;
        false
    }
}

/// The calling thread's nice value, if the OS tells.
pub fn current_thread_nice() -> Option<i32> {
    #[cfg(target_os = "linux")]
    {
        rustix::process::getpriority_process(Some(rustix::thread::gettid())).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_thread_can_lower_its_own_priority_without_touching_others() {
        let before = current_thread_nice().expect("readable");
        let child = std::thread::spawn(move || {
            assert!(set_current_thread_nice((before + 5).min(19)));
            current_thread_nice()
        })
        .join()
        .expect("the thread runs");
        assert_eq!(child, Some((before + 5).min(19)));
        assert_eq!(current_thread_nice(), Some(before));
    }
}
