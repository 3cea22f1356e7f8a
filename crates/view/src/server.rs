//! A small HTTP/1.1 server for the page: GET (and HEAD) of a fixed set of paths, one thread
//! per connection, each answer closing its connection. Anything else is answered with an
//! error status, never a panic.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use crate::scene::Scene;

const INDEX_HTML: &str = include_str!("../assets/index.html");
const VIEWER_JS: &str = include_str!("../assets/viewer.js");

/// The largest request head read; a longer one is answered 431.
const MAX_HEAD: usize = 16 * 1024;
/// How long a connection may wait before sending its request.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// After answering: how long and how much unread input is drained before closing.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(1);
const DRAIN_LIMIT: usize = 1 << 20;

/// Everything the server answers with.
#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    pub glb: Vec<u8>,
    pub scene_json: Vec<u8>,
    pub pvs: Vec<u8>,
}

/// One answer: status line, content type, body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response<'a> {
    pub status: u16,
    pub content_type: &'static str,
    pub body: &'a [u8],
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        _ => "Error",
    }
}

impl Site {
    /// The page's data for a scene and the map's GLB.
    pub fn new(glb: Vec<u8>, scene: &Scene) -> Site {
        Site {
            glb,
            scene_json: scene.json.to_string().into_bytes(),
            pvs: scene.pvs.clone(),
        }
    }

    /// The answer to a request head (request line and headers, as received). Also returns
    /// whether the body is to be sent (not for HEAD).
    pub fn respond(&self, head: &[u8]) -> (Response<'_>, bool) {
        let line = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
        let line = String::from_utf8_lossy(line);
        let mut parts = line.split_whitespace();
        let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next()) else {
            return (text(400, "bad request line\n"), true);
        };
        if !version.starts_with("HTTP/") {
            return (text(400, "bad request line\n"), true);
        }
        let send_body = match method {
            "GET" => true,
            "HEAD" => false,
            _ => return (text(405, "only GET and HEAD\n"), true),
        };
        let path = target.split(['?', '#']).next().unwrap_or("");
        let Some((content_type, body)) = self.file(path) else {
            return (text(404, "not found\n"), send_body);
        };
        (
            Response {
                status: 200,
                content_type,
                body,
            },
            send_body,
        )
    }

    /// The file served at `path`: its content type and bytes.
    fn file(&self, path: &str) -> Option<(&'static str, &[u8])> {
        Some(match path {
            "/" | "/index.html" => ("text/html; charset=utf-8", INDEX_HTML.as_bytes()),
            "/viewer.js" => ("text/javascript; charset=utf-8", VIEWER_JS.as_bytes()),
            "/map.glb" => ("model/gltf-binary", &self.glb),
            "/scene.json" => ("application/json", &self.scene_json),
            "/pvs.bin" => ("application/octet-stream", &self.pvs),
            _ => return None,
        })
    }

    /// Reads one request from `stream` and answers it. I/O errors end the connection.
    pub fn handle(&self, mut stream: TcpStream) -> std::io::Result<()> {
        stream.set_read_timeout(Some(READ_TIMEOUT))?;
        let mut buf = [0u8; 4096];
        let Some((head, complete)) = read_head(&mut stream, &mut buf)? else {
            return Ok(());
        };
        let (response, send_body) = if complete {
            self.respond(&head)
        } else {
            (text(431, "request head too large\n"), true)
        };
        write_response(&mut stream, &response, send_body)?;
        drain(&mut stream, &mut buf)
    }
}

/// A plain-text answer.
fn text(status: u16, body: &'static str) -> Response<'static> {
    Response {
        status,
        content_type: "text/plain; charset=utf-8",
        body: body.as_bytes(),
    }
}

/// Reads a request head: up to the blank line, the end of input, or past [`MAX_HEAD`] (then
/// not complete). `None` when the client sent nothing at all.
fn read_head(stream: &mut TcpStream, buf: &mut [u8]) -> std::io::Result<Option<(Vec<u8>, bool)>> {
    let mut head = Vec::new();
    let complete = loop {
        if head.windows(4).any(|w| w == b"\r\n\r\n") || head.windows(2).any(|w| w == b"\n\n") {
            break true;
        }
        if head.len() > MAX_HEAD {
            break false;
        }
        let n = stream.read(buf)?;
        if n == 0 {
            if head.is_empty() {
                return Ok(None);
            }
            break true;
        }
        head.extend_from_slice(&buf[..n]);
    };
    Ok(Some((head, complete)))
}

fn write_response(stream: &mut TcpStream, response: &Response<'_>, send_body: bool) -> std::io::Result<()> {
    let header = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        response.status,
        reason(response.status),
        response.content_type,
        response.body.len()
    );
    stream.write_all(header.as_bytes())?;
    if send_body {
        stream.write_all(response.body)?;
    }
    stream.flush()
}

/// Closing with unread input would reset the connection and could lose the answer: says we
/// are done, then reads what is left (bounded) before closing.
fn drain(stream: &mut TcpStream, buf: &mut [u8]) -> std::io::Result<()> {
    stream.shutdown(std::net::Shutdown::Write)?;
    stream.set_read_timeout(Some(DRAIN_TIMEOUT))?;
    let mut left = DRAIN_LIMIT;
    while left > 0 {
        match stream.read(buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => left = left.saturating_sub(n),
        }
    }
    Ok(())
}

/// Serves `site` on `listener` until the process ends: one thread per connection.
pub fn serve(listener: TcpListener, site: Arc<Site>) {
    for stream in listener.incoming() {
        let Ok(stream) = stream else {
            continue;
        };
        let site = Arc::clone(&site);
        std::thread::spawn(move || {
            // A client that goes away mid-answer is no concern of the server's.
            let _ = site.handle(stream);
        });
    }
}
