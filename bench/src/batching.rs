//! System `egret-timer`: Egret with adaptive batching off
//! (`egret.batch.flush.idle=false`), so an instance's partial batch leaves
//! only on the flush timer (`egret.batch.flush.ms`), as before adaptive
//! batching. Listed beside `egret` in `--systems`, it shows in one run what
//! the idle flush buys, most visibly at the fixed rates of `--rate`.

/// The system name of Egret with the timer-only flush.
pub const TIMER_SYSTEM: &str = "egret-timer";

/// The topology options of the `egret-timer` runs.
pub fn options() -> Vec<String> {
    vec!["egret.batch.flush.idle=false".to_owned()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_option_is_a_resolved_setting_turned_off() {
        let options = options();
        assert_eq!(options.len(), 1);
        let (key, value) = options[0].split_once('=').unwrap_or_default();
        assert_eq!(key, egret_config::settings::BATCH_FLUSH_IDLE);
        assert_eq!(value, "false");
    }
}
