//! Reading topology jars.
//!
//! `zip::ZipArchive` reads a jar's central directory entry by entry, asking its
//! reader for the position and seeking to it around each one. Over
//! `std::io::BufReader<File>` each of those is an `lseek(2)` that also throws the
//! buffer away, so a fat jar's directory (storm-starter 1.2.2: 60 000 entries)
//! took most of a second to read, once by the submission and once per
//! container. [`JarReader`] keeps a window of the file in memory and moves
//! within it without a system call: the directory reads in a few dozen
//! `pread(2)`s.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::Path;

/// How much of the file one read from disk brings in.
const WINDOW: usize = 64 * 1024;

/// A jar opened for `zip`: reads and seeks served from a window of the file.
pub type Jar = zip::ZipArchive<JarReader>;

/// Opens `path` as a zip archive through a [`JarReader`].
pub fn open(path: &Path) -> zip::result::ZipResult<Jar> {
    zip::ZipArchive::new(JarReader::new(File::open(path)?)?)
}

/// A file reader whose seeks only move a position: reads inside the window
/// already in memory are copies, reads outside it refill the window from that
/// position with one positioned read.
#[derive(Debug)]
pub struct JarReader {
    file: File,
    len: u64,
    pos: u64,
    /// File offset of `window[0]`.
    start: u64,
    window: Vec<u8>,
}

impl JarReader {
    pub fn new(file: File) -> io::Result<Self> {
        let len = file.metadata()?.len();
        Ok(Self {
            file,
            len,
            pos: 0,
            start: 0,
            window: Vec::with_capacity(WINDOW),
        })
    }

    /// Refills the window from `self.pos`.
    fn fill(&mut self) -> io::Result<()> {
        self.start = self.pos;
        self.window.resize(WINDOW, 0);
        let mut filled = 0;
        while filled < WINDOW {
            match self
                .file
                .read_at(&mut self.window[filled..], self.start + filled as u64)
            {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.window.clear();
                    return Err(e);
                }
            }
        }
        self.window.truncate(filled);
        Ok(())
    }
}

impl Read for JarReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() || self.pos >= self.len {
            return Ok(0);
        }
        let end = self.start + self.window.len() as u64;
        if self.pos < self.start || self.pos >= end {
            if buf.len() >= WINDOW {
                // A large read (an entry's whole data): straight into the caller's buffer.
                let n = self.file.read_at(buf, self.pos)?;
                self.pos += n as u64;
                return Ok(n);
            }
            self.fill()?;
        }
        let offset = usize::try_from(self.pos - self.start).unwrap_or(usize::MAX);
        let available = &self.window[offset.min(self.window.len())..];
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for JarReader {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = target.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the start of the jar",
            )
        })?;
        Ok(self.pos)
    }

    fn stream_position(&mut self) -> io::Result<u64> {
        Ok(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn reads_and_seeks_as_the_file_does() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f");
        let bytes: Vec<u8> = (0..(3 * WINDOW + 123)).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let mut r = JarReader::new(File::open(&path).unwrap()).unwrap();
        let mut all = Vec::new();
        r.read_to_end(&mut all).unwrap();
        assert_eq!(all, bytes);
        // Back and forth, across window edges, from the end.
        for (seek, len) in [
            (SeekFrom::Start(10), 5),
            (SeekFrom::Start(WINDOW as u64 - 3), 10),
            (SeekFrom::Current(-4), 2 * WINDOW),
            (SeekFrom::End(-7), 20),
            (SeekFrom::Start(0), 1),
        ] {
            let at = r.seek(seek).unwrap() as usize;
            assert_eq!(r.stream_position().unwrap() as usize, at);
            let mut buf = vec![0u8; len];
            let mut got = 0;
            while got < len {
                let n = r.read(&mut buf[got..]).unwrap();
                if n == 0 {
                    break;
                }
                got += n;
            }
            assert_eq!(&buf[..got], &bytes[at..(at + len).min(bytes.len())]);
        }
        assert!(r.seek(SeekFrom::Current(-100)).is_err());
        r.seek(SeekFrom::End(10)).unwrap();
        assert_eq!(r.read(&mut [0u8; 4]).unwrap(), 0);
    }

    #[test]
    fn opens_a_jar_and_reads_its_entries() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("a.jar");
        let mut w = zip::ZipWriter::new(File::create(&path).unwrap());
        for i in 0..2000 {
            w.start_file(
                format!("p/C{i}.class"),
                zip::write::SimpleFileOptions::default(),
            )
            .unwrap();
            w.write_all(format!("class {i} body").repeat(20).as_bytes())
                .unwrap();
        }
        w.finish().unwrap();
        let mut jar = open(&path).unwrap();
        assert_eq!(jar.len(), 2000);
        let mut text = String::new();
        jar.by_name("p/C1234.class")
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "class 1234 body".repeat(20));
        assert!(open(&tmp.path().join("missing.jar")).is_err());
    }
}
