//! End-to-end test harness: runs real jars on a real local cluster.
