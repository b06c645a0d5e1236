//! Picks the Java runtime a topology jar needs.
//!
//! A jar built for a newer Java than the configured runtime fails only once a
//! JVM loads its first class, with an `UnsupportedClassVersionError` deep in a
//! worker log. Storm 3.x jars are Java 25 bytecode while Egret's own default
//! runtime may be older, so the submission reads the class-file versions in the
//! jar up front and, when the configured runtime is too old, looks for a JDK
//! that is new enough (under `egret.java.search.dirs`, Debian's `/usr/lib/jvm`
//! by default). The choice is written into the topology's config, so the
//! submitter JVM and every instance JVM run on the same runtime.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// Where JDKs are looked for when the configured one is too old.
pub const SEARCH_DIRS: &str = "egret.java.search.dirs";
pub const DEFAULT_SEARCH_DIR: &str = "/usr/lib/jvm";

/// Class-file major version of Java 1.0-1.1 is 45; each release adds one.
const CLASS_MAJOR_OFFSET: u16 = 44;

/// The newest class file in a jar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bytecode {
    /// Class-file major version (61 = Java 17, 69 = Java 25).
    pub major: u16,
    /// The entry that has it, for messages.
    pub entry: String,
}

impl Bytecode {
    /// The Java feature release that can load it.
    pub fn java_release(&self) -> u16 {
        self.major.saturating_sub(CLASS_MAJOR_OFFSET)
    }
}

/// The newest class-file version among the jar's classes, or `None` for a jar
/// without classes. Multi-release variants (`META-INF/versions/N/`) and
/// `module-info.class` are skipped: a JVM older than them ignores them.
///
/// Only each class's first 8 bytes are read: a stored entry's straight from the
/// file, a deflated one's by inflating just enough of its start (a fat jar has tens
/// of thousands of classes, and inflating each whole took most of a second before
/// the submitter JVM could start).
pub fn newest_bytecode(jar: &Path) -> anyhow::Result<Option<Bytecode>> {
    let open = || {
        egret_jar::open(jar).map_err(|e| match e {
            zip::result::ZipError::Io(e) => {
                anyhow::Error::new(e).context(format!("cannot read the jar {}", jar.display()))
            }
            e => anyhow::Error::new(e).context(format!(
                "{} is not a jar (not a readable zip file)",
                jar.display()
            )),
        })
    };
    let mut archive = open()?;
    let entries = archive.len();
    let half = entries / 2;
    // Two halves on two threads: inflating the classes' first bytes is most of the
    // time, and the submitter JVM waits for it.
    std::thread::scope(|scope| {
        let second = scope.spawn(|| newest_among(jar, &mut open()?, half..entries));
        let first = newest_among(jar, &mut archive, 0..half);
        let second = second
            .join()
            .map_err(|_| anyhow::anyhow!("reading the jar {} failed", jar.display()))?;
        // The first half's error or class wins a tie, as a scan in order would have it.
        Ok(match (first?, second?) {
            (Some(a), Some(b)) if b.major > a.major => Some(b),
            (Some(a), _) => Some(a),
            (None, b) => b,
        })
    })
}

/// [`newest_bytecode`] over the entries `range` of `archive`.
fn newest_among(
    jar: &Path,
    archive: &mut egret_jar::Jar,
    range: std::ops::Range<usize>,
) -> anyhow::Result<Option<Bytecode>> {
    let mut inflater = flate2::Decompress::new(false);
    let mut compressed = Vec::with_capacity(CLASS_HEAD_INPUT);
    let mut newest: Option<Bytecode> = None;
    for index in range {
        let entry = archive
            .by_index_raw(index)
            .with_context(|| format!("cannot read entry {index} of the jar {}", jar.display()))?;
        let name = entry.name().to_owned();
        if !name.ends_with(".class")
            || name.starts_with("META-INF/")
            || name.ends_with("module-info.class")
        {
            continue;
        }
        let header = class_head(entry, &mut inflater, &mut compressed)
            .with_context(|| format!("cannot read {name} in the jar {}", jar.display()))?;
        let Some(header) = header.filter(|h| h[..4] == [0xCA, 0xFE, 0xBA, 0xBE]) else {
            bail!(
                "the jar {} has a broken class file: {name} is not a Java class",
                jar.display()
            );
        };
        let major = u16::from_be_bytes([header[6], header[7]]);
        if newest.as_ref().is_none_or(|n| major > n.major) {
            newest = Some(Bytecode { major, entry: name });
        }
    }
    Ok(newest)
}

/// Compressed bytes read to inflate a class's first 8: a dynamic Huffman block's
/// header takes at most a few hundred, and the loop reads on when it needs more.
const CLASS_HEAD_INPUT: usize = 512;

/// The first 8 bytes of a raw (not yet decompressed) entry, or `None` when it has fewer.
fn class_head<R: Read>(
    mut entry: zip::read::ZipFile<'_, R>,
    inflater: &mut flate2::Decompress,
    compressed: &mut Vec<u8>,
) -> anyhow::Result<Option<[u8; 8]>> {
    let mut head = [0u8; 8];
    match entry.compression() {
        zip::CompressionMethod::Stored => {
            return Ok(entry.read_exact(&mut head).ok().map(|()| head));
        }
        zip::CompressionMethod::Deflated => {}
        other => bail!("compression method {other} is not supported"),
    }
    inflater.reset(false);
    compressed.clear();
    let mut filled = 0;
    loop {
        let read = (&mut entry)
            .take(CLASS_HEAD_INPUT as u64)
            .read_to_end(compressed)?;
        let (before_in, before_out) = (inflater.total_in(), inflater.total_out());
        let status = inflater
            .decompress(
                compressed,
                &mut head[filled..],
                flate2::FlushDecompress::None,
            )
            .map_err(|e| anyhow::anyhow!("its deflate data is broken: {e}"))?;
        let consumed = (inflater.total_in() - before_in) as usize;
        let produced = (inflater.total_out() - before_out) as usize;
        compressed.drain(..consumed);
        filled += produced;
        if filled == head.len() {
            return Ok(Some(head));
        }
        if status == flate2::Status::StreamEnd || read == 0 && consumed == 0 && produced == 0 {
            return Ok(None);
        }
    }
}

/// The feature release of a `java` launcher (17 for "17.0.15", 8 for "1.8.0_402"),
/// from its JDK's `release` file, or from `java -version` when there is none.
pub fn java_release(java: &Path) -> anyhow::Result<u16> {
    let launcher = resolve_on_path(java)
        .with_context(|| format!("the Java runtime {} was not found", java.display()))?;
    let real = std::fs::canonicalize(&launcher).unwrap_or(launcher);
    if let Some(home) = real.parent().and_then(Path::parent)
        && let Ok(release) = std::fs::read_to_string(home.join("release"))
        && let Some(version) = release_file_version(&release)
    {
        return Ok(version);
    }
    let output = std::process::Command::new(&real)
        .arg("-version")
        .output()
        .with_context(|| format!("cannot run {} -version", real.display()))?;
    let text = String::from_utf8_lossy(&output.stderr);
    version_in_banner(&text).with_context(|| {
        format!(
            "cannot tell the Java version of {} from: {}",
            real.display(),
            text.trim()
        )
    })
}

fn resolve_on_path(java: &Path) -> Option<PathBuf> {
    if java.components().count() > 1 {
        return java.is_file().then(|| java.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(java))
        .find(|candidate| candidate.is_file())
}

/// `JAVA_VERSION="25.0.3"` in a JDK's `release` file.
fn release_file_version(release: &str) -> Option<u16> {
    release.lines().find_map(|line| {
        let value = line.strip_prefix("JAVA_VERSION=")?.trim().trim_matches('"');
        feature_release(value)
    })
}

/// `openjdk version "17.0.15" 2025-04-15` as `java -version` prints it.
fn version_in_banner(banner: &str) -> Option<u16> {
    let start = banner.find('"')? + 1;
    let end = start + banner[start..].find('"')?;
    feature_release(&banner[start..end])
}

fn feature_release(version: &str) -> Option<u16> {
    let mut parts = version.split(['.', '_', '-', '+']);
    let first: u16 = parts.next()?.parse().ok()?;
    if first == 1 {
        // The pre-9 scheme: 1.8.0_402 is Java 8.
        parts.next()?.parse().ok()
    } else {
        Some(first)
    }
}

/// A runtime found under a search directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runtime {
    pub java: PathBuf,
    pub release: u16,
}

/// Every JDK or JRE directly under `dirs` (each `<dir>/<jdk>/bin/java`), oldest first.
pub fn installed_runtimes(dirs: &[PathBuf]) -> Vec<Runtime> {
    let mut found: Vec<Runtime> = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let java = entry.path().join("bin").join("java");
            // Debian links the same JDK under several names; keep one of each.
            let Ok(real) = std::fs::canonicalize(&java) else {
                continue;
            };
            if found.iter().any(|r| r.java == real) {
                continue;
            }
            if let Ok(release) = java_release(&real) {
                found.push(Runtime {
                    java: real,
                    release,
                });
            }
        }
    }
    found.sort_by(|a, b| a.release.cmp(&b.release).then(a.java.cmp(&b.java)));
    found
}

/// The runtime to use for `jar`: the configured one when it can load the jar's
/// classes, else the oldest installed runtime that can.
pub fn choose(jar: &Path, configured: &Path, search_dirs: &[PathBuf]) -> anyhow::Result<PathBuf> {
    let Some(needed) = newest_bytecode(jar)? else {
        return Ok(configured.to_path_buf());
    };
    let configured_release = java_release(configured)?;
    if configured_release >= needed.java_release() {
        return Ok(configured.to_path_buf());
    }
    let runtimes = installed_runtimes(search_dirs);
    if let Some(runtime) = runtimes.iter().find(|r| r.release >= needed.java_release()) {
        tracing::info!(
            jar = %jar.display(),
            needs = needed.java_release(),
            class = %needed.entry,
            java = %runtime.java.display(),
            "The jar needs a newer Java than the configured runtime; using an installed one."
        );
        return Ok(runtime.java.clone());
    }
    let searched: Vec<String> = search_dirs
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    bail!(
        "the jar {} needs Java {} (class file version {} in {}), but {} is Java {} and no \
         Java {}+ runtime was found under {}; set egret.java to one",
        jar.display(),
        needed.java_release(),
        needed.major,
        needed.entry,
        configured.display(),
        configured_release,
        needed.java_release(),
        searched.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn class_bytes(major: u16) -> Vec<u8> {
        let mut bytes = vec![0xCA, 0xFE, 0xBA, 0xBE, 0, 0];
        bytes.extend_from_slice(&major.to_be_bytes());
        bytes.extend_from_slice(&[0; 16]);
        bytes
    }

    fn jar(dir: &Path, entries: &[(&str, Vec<u8>)]) -> PathBuf {
        let path = dir.join("t.jar");
        let file = std::fs::File::create(&path).unwrap();
        let mut writer = zip::ZipWriter::new(file);
        for (name, bytes) in entries {
            writer
                .start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            writer.write_all(bytes).unwrap();
        }
        writer.finish().unwrap();
        path
    }

    #[test]
    fn stored_and_large_deflated_classes_are_read_from_their_first_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        // A class whose deflate stream starts with a dynamic Huffman table: varied bytes.
        let mut big = class_bytes(65);
        let mut x: u32 = 12345;
        for _ in 0..200_000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            big.push(b"abcdefghijklmnopqrstuvwxyz0123456789"[(x >> 16) as usize % 36]);
        }
        let path = tmp.path().join("m.jar");
        let file = std::fs::File::create(&path).unwrap();
        let mut writer = zip::ZipWriter::new(file);
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        writer.start_file("s/Stored.class", stored).unwrap();
        writer.write_all(&class_bytes(66)).unwrap();
        writer
            .start_file("d/Big.class", zip::write::SimpleFileOptions::default())
            .unwrap();
        writer.write_all(&big).unwrap();
        writer.start_file("s/Short.class", stored).unwrap();
        writer.write_all(&[0xCA, 0xFE]).unwrap();
        writer.finish().unwrap();
        let err = newest_bytecode(&path).unwrap_err().to_string();
        assert!(err.contains("s/Short.class"), "{err}");

        let path = jar(
            tmp.path(),
            &[
                ("d/Big.class", big.clone()),
                ("a/Old.class", class_bytes(52)),
            ],
        );
        assert_eq!(newest_bytecode(&path).unwrap().unwrap().major, 65);
    }

    #[test]
    fn both_halves_count_and_the_first_of_equals_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let names: Vec<String> = (0..10).map(|i| format!("c/C{i}.class")).collect();
        let majors = [52, 52, 52, 61, 52, 52, 52, 61, 52, 52];
        let entries: Vec<(&str, Vec<u8>)> = names
            .iter()
            .zip(majors)
            .map(|(n, m)| (n.as_str(), class_bytes(m)))
            .collect();
        let newest = newest_bytecode(&jar(tmp.path(), &entries))
            .unwrap()
            .unwrap();
        assert_eq!((newest.major, newest.entry.as_str()), (61, "c/C3.class"));
        // The newest in the second half only.
        let mut entries = entries;
        entries[8].1 = class_bytes(65);
        let newest = newest_bytecode(&jar(tmp.path(), &entries))
            .unwrap()
            .unwrap();
        assert_eq!((newest.major, newest.entry.as_str()), (65, "c/C8.class"));
    }

    #[test]
    fn a_broken_deflate_stream_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let path = jar(tmp.path(), &[("a/X.class", class_bytes(61))]);
        // Overwrite the entry's compressed bytes (right after the local header) with garbage.
        let mut bytes = std::fs::read(&path).unwrap();
        let data = 30 + "a/X.class".len();
        for b in &mut bytes[data..data + 4] {
            *b = 0xFF;
        }
        std::fs::write(&path, bytes).unwrap();
        let err = format!("{:#}", newest_bytecode(&path).unwrap_err());
        assert!(err.contains("a/X.class"), "{err}");
    }

    /// A fake JDK: a `release` file and a `bin/java` that is never run.
    fn fake_jdk(root: &Path, name: &str, version: &str) -> PathBuf {
        let home = root.join(name);
        std::fs::create_dir_all(home.join("bin")).unwrap();
        std::fs::write(
            home.join("release"),
            format!("JAVA_VERSION=\"{version}\"\n"),
        )
        .unwrap();
        let java = home.join("bin").join("java");
        std::fs::write(&java, "#!/bin/sh\nexit 1\n").unwrap();
        java
    }

    #[test]
    fn newest_class_wins_and_versioned_entries_are_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        let path = jar(
            tmp.path(),
            &[
                ("a/Old.class", class_bytes(52)),
                ("a/New.class", class_bytes(69)),
                ("META-INF/versions/26/a/X.class", class_bytes(70)),
                ("module-info.class", class_bytes(70)),
                ("resources/x.py", b"print()".to_vec()),
            ],
        );
        let newest = newest_bytecode(&path).unwrap().unwrap();
        assert_eq!(newest.major, 69);
        assert_eq!(newest.entry, "a/New.class");
        assert_eq!(newest.java_release(), 25);
    }

    #[test]
    fn a_jar_without_classes_needs_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let path = jar(tmp.path(), &[("x.txt", b"x".to_vec())]);
        assert_eq!(newest_bytecode(&path).unwrap(), None);
    }

    #[test]
    fn a_broken_class_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let path = jar(tmp.path(), &[("a/B.class", b"nope".to_vec())]);
        let err = newest_bytecode(&path).unwrap_err().to_string();
        assert!(err.contains("a/B.class"), "{err}");
    }

    #[test]
    fn versions_parse_in_both_schemes() {
        assert_eq!(feature_release("17.0.15"), Some(17));
        assert_eq!(feature_release("25"), Some(25));
        assert_eq!(feature_release("1.8.0_402"), Some(8));
        assert_eq!(
            version_in_banner("openjdk version \"21.0.2\" 2024-01-16\nOpenJDK Runtime"),
            Some(21)
        );
        assert_eq!(
            release_file_version("IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"25.0.3\"\n"),
            Some(25)
        );
    }

    #[test]
    fn the_configured_runtime_is_kept_when_new_enough_and_replaced_when_not() {
        let tmp = tempfile::tempdir().unwrap();
        let jvms = tmp.path().join("jvm");
        let java17 = fake_jdk(&jvms, "jdk-17", "17.0.15");
        let java21 = fake_jdk(&jvms, "jdk-21", "21.0.1");
        let java25 = fake_jdk(&jvms, "jdk-25", "25.0.3");
        let dirs = vec![jvms.clone()];

        let old = jar(tmp.path(), &[("A.class", class_bytes(61))]);
        assert_eq!(choose(&old, &java17, &dirs).unwrap(), java17);

        let new = jar(tmp.path(), &[("A.class", class_bytes(65))]);
        // The oldest runtime that can load Java 21 classes.
        let chosen = choose(&new, &java17, &dirs).unwrap();
        assert_eq!(chosen, std::fs::canonicalize(&java21).unwrap());

        let newest = jar(tmp.path(), &[("A.class", class_bytes(69))]);
        let chosen = choose(&newest, &java17, &dirs).unwrap();
        assert_eq!(chosen, std::fs::canonicalize(&java25).unwrap());

        let future = jar(tmp.path(), &[("A.class", class_bytes(75))]);
        let err = choose(&future, &java17, &dirs).unwrap_err().to_string();
        assert!(err.contains("needs Java 31"), "{err}");
        assert!(err.contains("A.class"), "{err}");
        assert!(err.contains("is Java 17"), "{err}");
    }
}
