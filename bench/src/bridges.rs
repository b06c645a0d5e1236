//! `--bridge socket,jni`: Egret measured with each bridge in one run
//! (docs/architecture.md, "The bridge between Rust and the JVM"). The socket
//! bridge is system `egret`; the JNI bridge is system `egret-jni`, the same
//! `egret local` with `egret.instance.bridge=jni`.

/// The system name of Egret with the JNI bridge.
pub const JNI_SYSTEM: &str = "egret-jni";

/// The topology options of the `egret-jni` runs.
pub fn options() -> Vec<String> {
    vec!["egret.instance.bridge=jni".to_owned()]
}

/// `systems` with `egret` replaced by one system per bridge of `bridges`, in
/// their order (`socket`: `egret`, `jni`: `egret-jni`; each once), or with
/// them appended when `egret` is not listed. No bridges: `systems` as given.
/// An unknown bridge is an error naming it.
pub fn apply(systems: Vec<String>, bridges: &[String]) -> Result<Vec<String>, String> {
    if bridges.is_empty() {
        return Ok(systems);
    }
    let mut chosen: Vec<String> = Vec::new();
    for bridge in bridges {
        let system = match bridge.trim() {
            "socket" => "egret",
            "jni" => JNI_SYSTEM,
            other => {
                return Err(format!(
                    "unknown bridge '{other}' in --bridge (socket, jni)"
                ));
            }
        };
        if !chosen.iter().any(|s| s == system) {
            chosen.push(system.to_owned());
        }
    }
    let mut out: Vec<String> = systems.into_iter().filter(|s| s != JNI_SYSTEM).collect();
    match out.iter().position(|s| s == "egret") {
        Some(i) => {
            out.splice(i..=i, chosen);
        }
        None => out.extend(chosen),
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    fn list(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn bridges_replace_egret_in_their_order() {
        assert_eq!(
            apply(list(&["storm", "egret"]), &list(&["socket", "jni"])).unwrap(),
            list(&["storm", "egret", "egret-jni"])
        );
        assert_eq!(
            apply(list(&["egret", "storm"]), &list(&["jni"])).unwrap(),
            list(&["egret-jni", "storm"])
        );
        assert_eq!(
            apply(list(&["storm"]), &list(&["jni", "socket", "jni"])).unwrap(),
            list(&["storm", "egret-jni", "egret"])
        );
        assert_eq!(
            apply(list(&["storm", "egret"]), &[]).unwrap(),
            list(&["storm", "egret"])
        );
    }

    #[test]
    fn an_unknown_bridge_is_refused_naming_it() {
        let err = apply(list(&["storm", "egret"]), &list(&["socket", "shm"])).unwrap_err();
        assert!(
            err.contains("'shm'") && err.contains("socket, jni"),
            "{err}"
        );
    }
}
