//! The instances' code directories, as Storm lays them out: the user jar's
//! `resources/` extracted into `DIR/work/<instance_id>/resources`, where
//! multilang subprocesses run (`TopologyContext.getCodeDir()` is the work dir).
//!
//! The container extracts them before it starts the stream manager (and so
//! before any instance JVM or embedded JVM), once per jar for all its instances
//! (each file written once, the other instances' copies hard links to it, as
//! Storm's workers on one supervisor share one `resources/`),
//! and tells the JVMs so with [`EXTRACTED_PROPERTY`]: the shim then does not list
//! the jar again in each executor (a fat jar has tens of thousands of entries, and
//! listing them in each of a container's JVM threads took about half a second of
//! a 2-core machine's start of ExclamationTopology). Files already there (a
//! restarted container) are replaced; entries escaping the directory are refused.

use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

/// The JVM option telling the shim (`dev.egret.instance.CodeDir`) that every
/// instance's code directory is already extracted.
pub const EXTRACTED_PROPERTY: &str = "-Degret.code.dir.extracted=true";

const PREFIX: &str = "resources/";
const RESOURCES: &str = "resources";

/// A jar whose `resources/` could not be extracted.
#[derive(Debug, thiserror::Error)]
#[error("cannot extract resources/ of {jar} into the instances' code directories: {reason}")]
pub struct CodeDirError {
    pub jar: PathBuf,
    pub reason: String,
}

/// The jars whose `resources/` are extracted: the topology's own jars (the
/// topology jar, then `egret.instance.classpath.extra`), as the shim looks
/// for them.
pub fn user_jars(topology_jar: &Path, classpath_extra: &[PathBuf]) -> Vec<PathBuf> {
    std::iter::once(topology_jar)
        .chain(classpath_extra.iter().map(PathBuf::as_path))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "jar"))
        .map(Path::to_path_buf)
        .collect()
}

/// Extracts the `resources/` entries of each of `jars` into `<dir>/resources` of
/// every dir of `work_dirs`; returns the number of files written into each.
pub fn extract(jars: &[PathBuf], work_dirs: &[PathBuf]) -> Result<usize, CodeDirError> {
    let mut files = 0;
    for jar in jars {
        files += extract_jar(jar, work_dirs).map_err(|reason| CodeDirError {
            jar: jar.clone(),
            reason,
        })?;
    }
    Ok(files)
}

fn extract_jar(jar: &Path, work_dirs: &[PathBuf]) -> Result<usize, String> {
    let mut archive = egret_jar::open(jar).map_err(|e| e.to_string())?;
    let wanted: Vec<(usize, String)> = (0..archive.len())
        .filter_map(|i| archive.name_for_index(i).map(|name| (i, name)))
        .filter(|(_, name)| name.starts_with(PREFIX) && name.len() > PREFIX.len())
        .map(|(i, name)| (i, name.to_owned()))
        .collect();
    let mut files = 0;
    let mut bytes = Vec::new();
    for (index, name) in wanted {
        let relative = &name[PREFIX.len()..];
        if !Path::new(relative)
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        {
            tracing::warn!(jar = %jar.display(), entry = %name, "Skipped a jar entry that points outside resources/.");
            continue;
        }
        let mut entry = archive
            .by_index(index)
            .map_err(|e| format!("entry {name}: {e}"))?;
        if entry.is_dir() {
            for dir in work_dirs {
                let out = dir.join(RESOURCES).join(relative);
                std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
            }
            continue;
        }
        bytes.clear();
        entry
            .read_to_end(&mut bytes)
            .map_err(|e| format!("entry {name}: {e}"))?;
        let script = bytes.starts_with(b"#!");
        // Written once; the other work dirs get a hard link to that file, as
        // Storm's workers on one supervisor share one resources/ directory.
        let mut written: Option<PathBuf> = None;
        for dir in work_dirs {
            let out = dir.join(RESOURCES).join(relative);
            let linked = match &written {
                Some(first) => link_atomically(first, &out).is_ok(),
                None => false,
            };
            if !linked {
                write_atomically(&out, &bytes, script)
                    .map_err(|e| format!("{}: {e}", out.display()))?;
            }
            if written.is_none() {
                written = Some(out);
            }
        }
        files += 1;
    }
    Ok(files)
}

/// Makes `out` a hard link to `first` through a temporary name beside it (a
/// reader never sees it missing); fails where hard links cannot be made (another
/// file system), and the caller writes the file instead.
fn link_atomically(first: &Path, out: &Path) -> std::io::Result<()> {
    let parent = out.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let tmp = tempfile::Builder::new()
        .prefix(".link-")
        .suffix(".tmp")
        .make_in(parent, |path| std::fs::hard_link(first, path))?;
    tmp.persist(out).map_err(|e| e.error)?;
    Ok(())
}

/// Writes `out` through a temporary file beside it (a reader never sees half a
/// file); a `#!` script is made executable (jar entries carry no mode bits).
fn write_atomically(out: &Path, bytes: &[u8], script: bool) -> std::io::Result<()> {
    let parent = out.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".extract-")
        .suffix(".tmp")
        .tempfile_in(parent)?;
    tmp.write_all(bytes)?;
    if script {
        use std::os::unix::fs::PermissionsExt;
        let mut perms = tmp.as_file().metadata()?.permissions();
        perms.set_mode(perms.mode() | 0o100);
        tmp.as_file().set_permissions(perms)?;
    }
    tmp.persist(out).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jar(path: &Path, entries: &[(&str, &[u8])]) {
        let mut w = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
        for (name, bytes) in entries {
            if name.ends_with('/') {
                w.add_directory(*name, zip::write::SimpleFileOptions::default())
                    .unwrap();
            } else {
                w.start_file(*name, zip::write::SimpleFileOptions::default())
                    .unwrap();
                w.write_all(bytes).unwrap();
            }
        }
        w.finish().unwrap();
    }

    #[test]
    fn resources_only_into_every_work_dir_and_nothing_outside() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let user = tmp.path().join("topology.jar");
        jar(
            &user,
            &[
                ("resources/", b""),
                ("resources/a.py", b"#!/usr/bin/env python3\nprint(1)\n"),
                ("resources/sub/b.txt", b"b"),
                ("resources/../evil.txt", b"evil"),
                ("com/acme/Main.class", b"x"),
            ],
        );
        let hook = tmp.path().join("hook.jar");
        jar(&hook, &[("resources/hook.txt", b"h")]);
        let not_a_jar = tmp.path().join("classes");
        std::fs::create_dir_all(&not_a_jar).unwrap();
        let jars = user_jars(
            &user,
            &[hook.clone(), not_a_jar, tmp.path().join("gone.jar")],
        );
        assert_eq!(jars, vec![user.clone(), hook]);

        let dirs = vec![tmp.path().join("work/a"), tmp.path().join("work/b")];
        assert_eq!(extract(&jars, &dirs).unwrap(), 3);
        for dir in &dirs {
            let r = dir.join("resources");
            assert_eq!(std::fs::read(r.join("sub/b.txt")).unwrap(), b"b");
            assert_eq!(std::fs::read(r.join("hook.txt")).unwrap(), b"h");
            let mode = std::fs::metadata(r.join("a.py"))
                .unwrap()
                .permissions()
                .mode();
            assert_ne!(mode & 0o100, 0, "a #! script is executable");
            let b_mode = std::fs::metadata(r.join("sub/b.txt"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(b_mode & 0o100, 0);
            assert!(!dir.join("evil.txt").exists());
            assert!(!r.join("com").exists());
        }
        // One copy of each file on disk: the other work dirs link to it.
        {
            use std::os::unix::fs::MetadataExt;
            let inode = |d: &PathBuf| {
                std::fs::metadata(d.join("resources/sub/b.txt"))
                    .unwrap()
                    .ino()
            };
            assert_eq!(inode(&dirs[0]), inode(&dirs[1]));
        }
        // A restarted container replaces what is there.
        std::fs::write(dirs[0].join("resources/sub/b.txt"), b"changed").unwrap();
        assert_eq!(extract(&jars, &dirs).unwrap(), 3);
        for dir in &dirs {
            assert_eq!(
                std::fs::read(dir.join("resources/sub/b.txt")).unwrap(),
                b"b"
            );
        }
        assert!(
            std::fs::read_dir(dirs[1].join("resources/sub"))
                .unwrap()
                .all(|e| !e.unwrap().file_name().to_string_lossy().ends_with(".tmp"))
        );
    }

    #[test]
    fn a_broken_jar_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let broken = tmp.path().join("broken.jar");
        std::fs::write(&broken, b"PK\x03\x04 not really").unwrap();
        let err = extract(std::slice::from_ref(&broken), &[tmp.path().join("w")])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("broken.jar") && err.contains("resources/"),
            "{err}"
        );
    }
}
