//! Egret's layered configuration, as Storm users expect it:
//!
//! 1. built-in defaults ([`defaults`]): Egret's own `egret.*` keys and the few
//!    Storm keys the Rust side reads;
//! 2. the user's Storm config `~/.storm/storm.yaml` when it exists (as the
//!    `storm` command reads it), so a team's Storm settings apply unchanged;
//! 3. a storm.yaml-style YAML file: `--config FILE`, else `$EGRET_HOME/egret.yaml`
//!    when it exists;
//! 4. `-c key=value` options, each value parsed as a YAML scalar or flow value
//!    (`3`, `true`, `[a, b]`, `{x: 1}`), else kept as a string.
//!
//! Invariants:
//! - a config is a JSON object ([`ConfigMap`]) so it can be handed to the JVM
//!   and stored in `Topology.config_json` as it is;
//! - a later layer replaces a key of an earlier one as a whole (no deep merge),
//!   as Storm's `Utils.merge` does;
//! - every error names the file (and line when known) or the option at fault.

pub mod settings;
pub mod state;
pub mod tls;
pub mod topology;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// A configuration: a JSON object of Storm/Egret keys.
pub type ConfigMap = Map<String, Value>;

pub const LOCAL_DIR: &str = "egret.local.dir";
pub const SHIM_JAR: &str = "egret.shim.jar";
pub const JAVA: &str = "egret.java";
pub const INSTANCE_JVM_OPTS: &str = "egret.instance.jvm.opts";
/// Jars appended to every instance JVM's classpath after the topology jar (a
/// `:`-separated string or a list), e.g. a jar of `topology.auto.task.hooks`.
pub const INSTANCE_CLASSPATH_EXTRA: &str = "egret.instance.classpath.extra";
pub use settings::{BATCH_FLUSH_MS, BATCH_SIZE, FRAME_MAX_BYTES};
pub const TOPOLOGY_WORKERS: &str = "topology.workers";
pub const TOPOLOGY_ONHEAP_MB: &str = "topology.component.resources.onheap.memory.mb";

/// `egret.instance.jvm.opts` when unset, for an instance JVM (socket bridge: one JVM per
/// executor, whose serial collector pauses only that executor).
pub const DEFAULT_INSTANCE_JVM_OPTS: &str = "-XX:+UseSerialGC -Xss512k";
/// `egret.instance.jvm.opts` when unset, for the JNI bridge's embedded JVM, which hosts
/// every executor of its container: a pause of its collector stops all of them, so it
/// collects with every core (the parallel collector), its heap sized for at most a tenth
/// of the time in collections (docs/performance.md, "Parallel collection in the embedded
/// JVM").
pub const DEFAULT_EMBEDDED_JVM_OPTS: &str = "-XX:+UseParallelGC -XX:GCTimeRatio=9 -Xss512k";
/// The defaults of the resolved settings are [`settings`]'s; these are the same values.
pub const DEFAULT_BATCH_SIZE: i64 = settings::DEFAULT_BATCH_SIZE as i64;
pub const DEFAULT_BATCH_FLUSH_MS: i64 = settings::DEFAULT_BATCH_FLUSH_MS as i64;
pub const DEFAULT_FRAME_MAX_BYTES: i64 = settings::DEFAULT_FRAME_MAX_BYTES as i64;
pub const DEFAULT_WORKERS: i64 = 1;
pub const DEFAULT_ONHEAP_MB: i64 = 128;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("config file {path}{}: invalid YAML: {message}", line.map(|l| format!(" line {l}")).unwrap_or_default())]
    Yaml {
        path: PathBuf,
        line: Option<u64>,
        message: String,
    },
    #[error("config file {path}: the top level must be a mapping of keys to values, found {found}")]
    NotAMapping { path: PathBuf, found: &'static str },
    #[error("config option '-c {0}' is not of the form key=value")]
    BadOption(String),
    #[error("config option '-c {0}' has an empty key")]
    EmptyKey(String),
}

/// Where the configuration comes from.
#[derive(Debug, Clone)]
pub struct Environment {
    /// `$EGRET_HOME` (default `~/.egret`).
    pub egret_home: PathBuf,
    /// `$JAVA_HOME`, if set.
    pub java_home: Option<PathBuf>,
    /// The user's Storm config, `$HOME/.storm/storm.yaml` (read when it exists).
    pub storm_yaml: Option<PathBuf>,
}

impl Environment {
    /// Reads `EGRET_HOME`, `HOME` and `JAVA_HOME` from the process environment.
    pub fn from_process() -> Self {
        let egret_home = match std::env::var_os("EGRET_HOME") {
            Some(home) if !home.is_empty() => PathBuf::from(home),
            _ => std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("/tmp"))
                .join(".egret"),
        };
        let java_home = std::env::var_os("JAVA_HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        let storm_yaml = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|home| PathBuf::from(home).join(".storm").join("storm.yaml"));
        Self {
            egret_home,
            java_home,
            storm_yaml,
        }
    }

    /// `$EGRET_HOME/egret.yaml`, the config file used without `--config`.
    pub fn default_config_file(&self) -> PathBuf {
        self.egret_home.join("egret.yaml")
    }
}

/// The built-in defaults. `egret.shim.jar` has no static default: it is found
/// beside the binary at submission (see the `egret` command).
pub fn defaults(env: &Environment) -> ConfigMap {
    let java = match &env.java_home {
        Some(home) => home.join("bin").join("java").to_string_lossy().into_owned(),
        None => "java".to_owned(),
    };
    let mut map = ConfigMap::new();
    map.insert(
        LOCAL_DIR.into(),
        Value::String(env.egret_home.join("local").to_string_lossy().into_owned()),
    );
    map.insert(JAVA.into(), Value::String(java));
    // No `egret.instance.jvm.opts`: its default depends on the bridge (the container's
    // JvmSettings resolves it, DEFAULT_INSTANCE_JVM_OPTS or DEFAULT_EMBEDDED_JVM_OPTS).
    map.insert(BATCH_SIZE.into(), Value::from(DEFAULT_BATCH_SIZE));
    map.insert(BATCH_FLUSH_MS.into(), Value::from(DEFAULT_BATCH_FLUSH_MS));
    map.insert(FRAME_MAX_BYTES.into(), Value::from(DEFAULT_FRAME_MAX_BYTES));
    map.insert(TOPOLOGY_WORKERS.into(), Value::from(DEFAULT_WORKERS));
    map.insert(TOPOLOGY_ONHEAP_MB.into(), Value::from(DEFAULT_ONHEAP_MB));
    map
}

/// The layers of one command's configuration.
#[derive(Debug, Clone)]
pub struct Layered {
    /// Defaults merged with the config file: what the JVM gets as `EGRET_CLUSTER_CONFIG`.
    pub cluster: ConfigMap,
    /// The `-c` options, parsed, in order (a later one wins).
    pub options: Vec<(String, Value)>,
    /// The `-c` options as given (`key=value`), for `storm.options`.
    pub raw_options: Vec<String>,
    /// Everything merged: defaults < file < options.
    pub merged: ConfigMap,
    /// The config file that was read, if any.
    pub file: Option<PathBuf>,
    /// The user's `~/.storm/storm.yaml`, when it was read.
    pub storm_file: Option<PathBuf>,
}

impl Layered {
    /// A string value of the merged config.
    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.merged.get(key).and_then(Value::as_str)
    }
}

/// Loads the configuration: defaults, then `~/.storm/storm.yaml` when it
/// exists, then `file` (or the default file when it exists), then the `-c`
/// options.
pub fn load(
    env: &Environment,
    file: Option<&Path>,
    options: &[String],
) -> Result<Layered, ConfigError> {
    let mut cluster = defaults(env);
    let storm_file = env.storm_yaml.clone().filter(|p| p.is_file());
    if let Some(path) = &storm_file {
        merge(&mut cluster, read_file(path)?);
    }
    let file = match file {
        Some(path) => Some(path.to_owned()),
        None => {
            let default = env.default_config_file();
            default.is_file().then_some(default)
        }
    };
    if let Some(path) = &file {
        merge(&mut cluster, read_file(path)?);
    }
    let parsed = options
        .iter()
        .map(|opt| parse_option(opt))
        .collect::<Result<Vec<_>, _>>()?;
    let mut merged = cluster.clone();
    for (key, value) in &parsed {
        merged.insert(key.clone(), value.clone());
    }
    Ok(Layered {
        cluster,
        options: parsed,
        raw_options: options.to_vec(),
        merged,
        file,
        storm_file,
    })
}

/// Reads a storm.yaml-style file: a mapping at the top level (an empty file is
/// an empty mapping).
pub fn read_file(path: &Path) -> Result<ConfigMap, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })?;
    parse_yaml_document(&text, path)
}

/// Parses the text of a config file (`path` only names it in errors).
pub fn parse_yaml_document(text: &str, path: &Path) -> Result<ConfigMap, ConfigError> {
    if text.trim().is_empty() {
        return Ok(ConfigMap::new());
    }
    let value: Value = serde_saphyr::from_str(text).map_err(|e| ConfigError::Yaml {
        path: path.to_owned(),
        line: e.location().map(|l| l.line()),
        message: first_line(&e.to_string()),
    })?;
    match value {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(ConfigMap::new()),
        other => Err(ConfigError::NotAMapping {
            path: path.to_owned(),
            found: kind(&other),
        }),
    }
}

/// Parses one `-c key=value` option. The value is a YAML scalar or flow value
/// when it parses as one, else the string as given.
pub fn parse_option(option: &str) -> Result<(String, Value), ConfigError> {
    let (key, raw) = option
        .split_once('=')
        .ok_or_else(|| ConfigError::BadOption(option.to_owned()))?;
    let key = key.trim();
    if key.is_empty() {
        return Err(ConfigError::EmptyKey(option.to_owned()));
    }
    Ok((key.to_owned(), parse_value(raw)))
}

/// A command-line value: YAML when it parses (and is not empty), else a string.
/// Storm's `storm.options` system property for `-c key=value` options: each one
/// URL-encoded, comma-separated (Storm decodes each and parses its value as
/// [`parse_option`] does).
pub fn storm_options(options: &[String]) -> String {
    let mut out = String::new();
    for (i, option) in options.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        for b in option.bytes() {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'*') {
                out.push(char::from(b));
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

pub fn parse_value(raw: &str) -> Value {
    if raw.trim().is_empty() {
        return Value::String(raw.to_owned());
    }
    match serde_saphyr::from_str::<Value>(raw) {
        Ok(Value::Null) if !matches!(raw.trim(), "null" | "~" | "Null" | "NULL") => {
            Value::String(raw.to_owned())
        }
        Ok(value) => value,
        Err(_) => Value::String(raw.to_owned()),
    }
}

/// Replaces, key by key, `base`'s entries with `layer`'s.
pub fn merge(base: &mut ConfigMap, layer: ConfigMap) {
    for (key, value) in layer {
        base.insert(key, value);
    }
}

/// A positive integer setting (accepts `3`, `3.0` and `"3"`, as Storm's
/// `ObjectReader.getInt` does); `default` when absent or null.
pub fn get_positive_int(map: &ConfigMap, key: &str, default: i64) -> Result<i64, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(value) => as_int(value)
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("config key {key} must be a positive integer, found {value}")),
    }
}

/// Where the shim jar is looked for when `egret.shim.jar` is not set:
/// `egret-shim.jar` beside the executable, then `java-shim/target/egret-shim.jar`
/// in the executable's directory and each of its ancestors (a build tree).
pub fn shim_jar_candidates(executable: &Path) -> Vec<PathBuf> {
    let Some(bin_dir) = executable.parent() else {
        return Vec::new();
    };
    let mut out = vec![bin_dir.join("egret-shim.jar")];
    out.extend(
        bin_dir
            .ancestors()
            .map(|dir| dir.join("java-shim").join("target").join("egret-shim.jar")),
    );
    out
}

/// The shim jar: `egret.shim.jar` from `config` when set, else the first
/// existing [`shim_jar_candidates`]. The error lists what was searched.
pub fn resolve_shim_jar(config: &ConfigMap, executable: &Path) -> Result<PathBuf, String> {
    if let Some(value) = config.get(SHIM_JAR).filter(|v| !v.is_null()) {
        let path = value
            .as_str()
            .map(PathBuf::from)
            .ok_or_else(|| format!("config key {SHIM_JAR} must be a path, found {value}"))?;
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "the shim jar {} (config key {SHIM_JAR}) does not exist",
                path.display()
            ))
        };
    }
    let candidates = shim_jar_candidates(executable);
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| {
            let searched: Vec<String> =
                candidates.iter().map(|p| p.display().to_string()).collect();
            format!(
                "the shim jar was not found (set {SHIM_JAR}); searched: {}",
                searched.join(", ")
            )
        })
}

/// Which of Egret's JVMs maps a class archive: each has its own, of the classes
/// it loads, since a JVM holds all of an archive's pages resident (the JDK
/// relocates the archive when it maps it) whether it uses its classes or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveRole {
    /// The submitter JVM: the user's `main` under `egret jar` and `egret local`.
    Submitter,
    /// The JNI bridge's embedded JVM, which runs a container's executors.
    Executors,
}

impl ArchiveRole {
    /// The archive's file name beside the shim jar `egret-shim.jar`.
    pub fn file_name(self) -> &'static str {
        match self {
            ArchiveRole::Submitter => "egret-shim-submitter.jsa",
            ArchiveRole::Executors => "egret-shim-executors.jsa",
        }
    }
}

/// The system property through which the shim's `TopologyClassLoader` gets a
/// topology's own jars (its jar, then `egret.instance.classpath.extra`), in the
/// submitter, instance and embedded JVMs. Those jars are not on the class path,
/// only the shim is: the JDK keeps a class-path jar's whole central directory on
/// the heap (about 15 MiB for storm-perf's 126 000 entries, in every JVM), the
/// loader a compact index of it (docs/internals/contracts.md, "Instance JVMs").
pub const TOPOLOGY_CLASSPATH_PROPERTY: &str = "egret.topology.classpath";

/// `-Degret.topology.classpath=<jar>:<jar>...`, the jars in order.
pub fn topology_class_path_option<P: AsRef<Path>>(jars: &[P]) -> std::ffi::OsString {
    let mut option = std::ffi::OsString::from(format!("-D{TOPOLOGY_CLASSPATH_PROPERTY}="));
    for (i, jar) in jars.iter().enumerate() {
        if i > 0 {
            option.push(":");
        }
        option.push(jar.as_ref().as_os_str());
    }
    option
}

/// The options that let a JVM with `shim_jar` first on its class path map the shim's
/// class-data-sharing archive for `role` (contracts.md, "Instance JVMs"), instead of
/// parsing and verifying those classes again: `egret-shim-submitter.jsa` or
/// `egret-shim-executors.jsa` beside the jar (`./egret-dev build` writes them with the
/// `java` it found), else `egret-shim.jsa` there (one archive of every class, as the
/// image has). None when there is no archive. An archive the JVM cannot use (another
/// Java release, a rebuilt shim jar) is skipped by the JVM itself, and its `cds` log
/// lines are silenced: they would land in the user's output.
pub fn class_archive_options(shim_jar: &Path, role: ArchiveRole) -> Vec<String> {
    let own = shim_jar.with_file_name(role.file_name());
    let archive = if own.is_file() {
        own
    } else {
        shim_jar.with_extension("jsa")
    };
    match archive.to_str() {
        Some(path) if archive.is_file() => vec![
            format!("-XX:SharedArchiveFile={path}"),
            "-Xlog:cds*=off".to_owned(),
        ],
        _ => Vec::new(),
    }
}

fn as_int(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                .map(|f| f as i64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

fn first_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("parse error")
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_topology_class_path_option_lists_the_jars_in_order() {
        assert_eq!(
            topology_class_path_option(&[Path::new("/t/topology.jar"), Path::new("/h/hook.jar")]),
            std::ffi::OsString::from("-Degret.topology.classpath=/t/topology.jar:/h/hook.jar")
        );
        assert_eq!(
            topology_class_path_option::<&Path>(&[]),
            std::ffi::OsString::from("-Degret.topology.classpath=")
        );
    }

    #[test]
    fn storm_options_encode_each_option_and_join_them() {
        let options = ["topology.workers=2".to_owned(), "x=a,b c".to_owned()];
        assert_eq!(
            storm_options(&options),
            "topology.workers%3D2,x%3Da%2Cb%20c"
        );
        assert_eq!(storm_options(&[]), "");
    }

    fn env(home: &Path) -> Environment {
        Environment {
            egret_home: home.to_owned(),
            java_home: None,
            storm_yaml: None,
        }
    }

    #[test]
    fn defaults_hold_egret_and_storm_keys() {
        let tmp = tempfile::tempdir().unwrap();
        let d = defaults(&Environment {
            egret_home: tmp.path().to_owned(),
            java_home: Some(PathBuf::from("/opt/jdk")),
            storm_yaml: None,
        });
        assert_eq!(d[JAVA], json!("/opt/jdk/bin/java"));
        assert_eq!(
            d[LOCAL_DIR],
            json!(tmp.path().join("local").to_string_lossy())
        );
        assert_eq!(d[TOPOLOGY_WORKERS], json!(1));
        assert_eq!(d[TOPOLOGY_ONHEAP_MB], json!(128));
        assert_eq!(d[BATCH_SIZE], json!(1024));
        assert_eq!(d[FRAME_MAX_BYTES], json!(67108864));
        assert_eq!(defaults(&env(tmp.path()))[JAVA], json!("java"));
    }

    #[test]
    fn file_overrides_defaults_and_options_override_file() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("my.yaml");
        std::fs::write(
            &file,
            "topology.workers: 3\negret.batch.size: 10\nspout.count: 2\n",
        )
        .unwrap();
        let cfg = load(
            &env(tmp.path()),
            Some(&file),
            &["topology.workers=5".into(), "name=abc".into()],
        )
        .unwrap();
        assert_eq!(cfg.merged[TOPOLOGY_WORKERS], json!(5));
        assert_eq!(cfg.merged[BATCH_SIZE], json!(10));
        assert_eq!(cfg.merged["spout.count"], json!(2));
        assert_eq!(cfg.merged["name"], json!("abc"));
        assert_eq!(cfg.merged[BATCH_FLUSH_MS], json!(5));
        // The cluster layer holds no -c option: they travel in storm.options.
        assert_eq!(cfg.cluster[TOPOLOGY_WORKERS], json!(3));
        assert!(!cfg.cluster.contains_key("name"));
        assert_eq!(cfg.raw_options, vec!["topology.workers=5", "name=abc"]);
    }

    #[test]
    fn the_users_storm_yaml_is_a_layer_below_egrets_file() {
        let tmp = tempfile::tempdir().unwrap();
        let storm_yaml = tmp.path().join("dot-storm").join("storm.yaml");
        let env = Environment {
            storm_yaml: Some(storm_yaml.clone()),
            ..env(tmp.path())
        };
        // Absent: not read, no error.
        let cfg = load(&env, None, &[]).unwrap();
        assert_eq!(cfg.storm_file, None);
        std::fs::create_dir_all(storm_yaml.parent().unwrap()).unwrap();
        std::fs::write(
            &storm_yaml,
            "topology.workers: 3\ntopology.message.timeout.secs: 90\nteam.key: storm\n",
        )
        .unwrap();
        let cfg = load(&env, None, &[]).unwrap();
        assert_eq!(cfg.storm_file, Some(storm_yaml.clone()));
        // Storm's settings apply, over Egret's defaults...
        assert_eq!(cfg.merged[TOPOLOGY_WORKERS], json!(3));
        assert_eq!(cfg.merged["topology.message.timeout.secs"], json!(90));
        // ...and reach the JVMs with the cluster layer.
        assert_eq!(cfg.cluster["team.key"], json!("storm"));
        // Egret's own file wins over them, and -c over both.
        std::fs::write(tmp.path().join("egret.yaml"), "topology.workers: 4\n").unwrap();
        let cfg = load(&env, None, &["team.key=cli".into()]).unwrap();
        assert_eq!(cfg.merged[TOPOLOGY_WORKERS], json!(4));
        assert_eq!(cfg.merged["topology.message.timeout.secs"], json!(90));
        assert_eq!(cfg.merged["team.key"], json!("cli"));
        // A broken storm.yaml is an error naming it.
        std::fs::write(&storm_yaml, "- a list\n").unwrap();
        let err = load(&env, None, &[]).unwrap_err().to_string();
        assert!(err.contains("storm.yaml"), "{err}");
    }

    #[test]
    fn default_file_in_egret_home_is_used_only_when_present() {
        let tmp = tempfile::tempdir().unwrap();
        let cfg = load(&env(tmp.path()), None, &[]).unwrap();
        assert!(cfg.file.is_none());
        assert_eq!(cfg.merged[TOPOLOGY_WORKERS], json!(1));
        std::fs::write(tmp.path().join("egret.yaml"), "topology.workers: 4\n").unwrap();
        let cfg = load(&env(tmp.path()), None, &[]).unwrap();
        assert_eq!(cfg.merged[TOPOLOGY_WORKERS], json!(4));
        assert_eq!(cfg.file, Some(tmp.path().join("egret.yaml")));
    }

    #[test]
    fn explicit_file_that_is_missing_is_an_error_naming_it() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("nope.yaml");
        let err = load(&env(tmp.path()), Some(&missing), &[]).unwrap_err();
        assert!(err.to_string().contains("nope.yaml"), "{err}");
    }

    #[test]
    fn option_values_are_yaml_else_strings() {
        assert_eq!(parse_value("3"), json!(3));
        assert_eq!(parse_value("2.5"), json!(2.5));
        assert_eq!(parse_value("true"), json!(true));
        assert_eq!(parse_value("[a, b]"), json!(["a", "b"]));
        assert_eq!(parse_value("{x: 1}"), json!({"x": 1}));
        assert_eq!(parse_value("null"), json!(null));
        assert_eq!(parse_value("hello world"), json!("hello world"));
        assert_eq!(parse_value(""), json!(""));
        assert_eq!(parse_value("[unclosed"), json!("[unclosed"));
        assert_eq!(
            parse_option("a.b=x=y").unwrap(),
            ("a.b".to_string(), json!("x=y"))
        );
    }

    #[test]
    fn option_without_equals_or_key_is_an_error_naming_it() {
        let err = parse_option("topology.workers").unwrap_err().to_string();
        assert!(err.contains("-c topology.workers"), "{err}");
        assert!(err.contains("key=value"), "{err}");
        let err = parse_option("=3").unwrap_err().to_string();
        assert!(err.contains("-c =3"), "{err}");
        let tmp = tempfile::tempdir().unwrap();
        assert!(load(&env(tmp.path()), None, &["oops".into()]).is_err());
    }

    #[test]
    fn malformed_yaml_names_file_and_line() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("bad.yaml");
        std::fs::write(&file, "a: 1\nb: 2\nc: [unclosed\n").unwrap();
        let err = read_file(&file).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("bad.yaml"), "{text}");
        match err {
            ConfigError::Yaml {
                line: Some(line), ..
            } => assert!(line >= 3, "{text}"),
            other => panic!("unexpected {other}"),
        }
        assert!(text.contains(" line "), "{text}");
    }

    #[test]
    fn non_mapping_top_level_is_an_error_and_empty_is_empty() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("list.yaml");
        std::fs::write(&file, "- a\n- b\n").unwrap();
        let err = read_file(&file).unwrap_err().to_string();
        assert!(err.contains("list.yaml") && err.contains("a list"), "{err}");
        std::fs::write(&file, "# only a comment\n").unwrap();
        assert!(read_file(&file).unwrap().is_empty());
    }

    #[test]
    fn positive_int_accepts_storm_forms() {
        let mut m = ConfigMap::new();
        assert_eq!(get_positive_int(&m, "k", 7).unwrap(), 7);
        m.insert("k".into(), json!(3));
        assert_eq!(get_positive_int(&m, "k", 7).unwrap(), 3);
        m.insert("k".into(), json!(3.0));
        assert_eq!(get_positive_int(&m, "k", 7).unwrap(), 3);
        m.insert("k".into(), json!("4"));
        assert_eq!(get_positive_int(&m, "k", 7).unwrap(), 4);
        m.insert("k".into(), json!(0));
        assert!(get_positive_int(&m, "k", 7).is_err());
        m.insert("k".into(), json!("x"));
        assert!(get_positive_int(&m, "k", 7).is_err());
    }

    #[test]
    fn shim_jar_is_configured_or_found_up_from_the_executable() {
        let tmp = tempfile::tempdir().unwrap();
        let exe = tmp.path().join("target").join("debug").join("egret");
        let err = resolve_shim_jar(&ConfigMap::new(), &exe).unwrap_err();
        assert!(
            err.contains("egret-shim.jar") && err.contains("searched"),
            "{err}"
        );
        let jar = tmp
            .path()
            .join("java-shim")
            .join("target")
            .join("egret-shim.jar");
        std::fs::create_dir_all(jar.parent().unwrap()).unwrap();
        std::fs::write(&jar, b"PK").unwrap();
        assert_eq!(resolve_shim_jar(&ConfigMap::new(), &exe).unwrap(), jar);
        let mut cfg = ConfigMap::new();
        cfg.insert(SHIM_JAR.into(), Value::String("/no/such.jar".into()));
        assert!(
            resolve_shim_jar(&cfg, &exe)
                .unwrap_err()
                .contains("/no/such.jar")
        );
        cfg.insert(
            SHIM_JAR.into(),
            Value::String(jar.to_string_lossy().into_owned()),
        );
        assert_eq!(resolve_shim_jar(&cfg, &exe).unwrap(), jar);
    }

    #[test]
    fn each_jvm_maps_its_own_class_archive_else_the_one_of_every_class() {
        let tmp = tempfile::tempdir().unwrap();
        let jar = tmp.path().join("egret-shim.jar");
        std::fs::write(&jar, b"PK").unwrap();
        let options = |path: &Path| {
            vec![
                format!("-XX:SharedArchiveFile={}", path.display()),
                "-Xlog:cds*=off".to_owned(),
            ]
        };
        for role in [ArchiveRole::Submitter, ArchiveRole::Executors] {
            assert!(class_archive_options(&jar, role).is_empty());
        }
        let every = tmp.path().join("egret-shim.jsa");
        std::fs::write(&every, b"archive").unwrap();
        for role in [ArchiveRole::Submitter, ArchiveRole::Executors] {
            assert_eq!(class_archive_options(&jar, role), options(&every));
        }
        let submitter = tmp.path().join("egret-shim-submitter.jsa");
        std::fs::write(&submitter, b"archive").unwrap();
        assert_eq!(
            class_archive_options(&jar, ArchiveRole::Submitter),
            options(&submitter)
        );
        assert_eq!(
            class_archive_options(&jar, ArchiveRole::Executors),
            options(&every)
        );
        let executors = tmp.path().join("egret-shim-executors.jsa");
        std::fs::write(&executors, b"archive").unwrap();
        assert_eq!(
            class_archive_options(&jar, ArchiveRole::Executors),
            options(&executors)
        );
    }
}
