//! A running `egret ui` and one-request HTTP/1.1 calls to it, for the tests
//! of the UI on the local cluster (tests/tests/ui.rs) and on a multi-host
//! cluster (tests/tests/multi_host.rs).

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// A running `egret ui`, killed on drop.
pub struct Ui {
    child: Child,
    addr: String,
}

impl Ui {
    /// Starts `cmd` (an `egret ui --bind 127.0.0.1:0 ...` command) and reads
    /// the address it prints. The credentials file comes only from the
    /// command's arguments, never from the test's environment.
    pub fn spawn(mut cmd: Command) -> Ui {
        cmd.env_remove("EGRET_UI_CREDENTIALS_FILE");
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn egret ui");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).expect("read");
        let addr = line
            .trim()
            .strip_prefix("Egret UI on http://")
            .and_then(|a| a.strip_suffix('/'))
            .unwrap_or_else(|| panic!("unexpected first line of egret ui: {line:?}"))
            .to_owned();
        Ui { child, addr }
    }

    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// One HTTP/1.1 request; returns the status and the body.
    pub fn call(&self, method: &str, path: &str, token: Option<&str>) -> (u16, String) {
        self.call_with(method, path, token, "")
    }

    pub fn call_with(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: &str,
    ) -> (u16, String) {
        let mut stream = TcpStream::connect(&self.addr).expect("connect to egret ui");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        )
        .expect("send");
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).expect("read response");
        let text = String::from_utf8_lossy(&raw).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").expect("a response with a body");
        let status: u16 = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("status");
        let body = if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            dechunk(body)
        } else {
            body.to_owned()
        };
        (status, body)
    }

    pub fn get(&self, path: &str) -> Value {
        let (status, body) = self.call("GET", path, None);
        assert_eq!(status, 200, "GET {path}: {body}");
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {path}: {e}: {body}"))
    }
}

impl Drop for Ui {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || after.len() < n {
            break;
        }
        out.push_str(&after[..n]);
        rest = after[n..].trim_start_matches("\r\n");
    }
    out
}
