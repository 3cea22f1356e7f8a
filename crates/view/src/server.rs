//! A small HTTP/1.1 server for the page: GET (and HEAD) of a fixed set of paths, one thread
//! per connection (at most [`MAX_CONNECTIONS`] at once, the oldest still sending its request
//! closed to make room), each answer closing its connection.
//! Anything else is answered with an error status, never a panic. Only requests addressed to
//! this machine by address or as `localhost` are answered: a page whose domain was rebound to
//! 127.0.0.1 sends its own name as `Host` and gets 421.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::scene::Scene;

const INDEX_HTML: &str = include_str!("../assets/index.html");
const VIEWER_JS: &str = include_str!("../assets/viewer.js");

/// The largest request head read; a longer one is answered 431.
const MAX_HEAD: usize = 16 * 1024;
/// How long a connection may take to send its whole request head (a deadline, not a per-read
/// timeout: a client trickling a byte at a time is cut off too).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections served at once; a new one past the cap closes the oldest still sending its
/// request head (or is itself closed unanswered when every one is mid-answer).
pub const MAX_CONNECTIONS: usize = 64;
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
        408 => "Request Timeout",
        421 => "Misdirected Request",
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
        if host(head).is_some_and(|h| !is_local_host(&h)) {
            return (
                text(
                    421,
                    "this server answers only requests for localhost or an address\n",
                ),
                true,
            );
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
    pub fn handle(&self, stream: TcpStream) -> std::io::Result<()> {
        self.answer(stream, &AtomicBool::new(true))
    }

    /// [`Site::handle`], clearing `waiting` once the request head has arrived (from then on the
    /// connection is not closed to make room for another).
    fn answer(&self, mut stream: TcpStream, waiting: &AtomicBool) -> std::io::Result<()> {
        let mut buf = [0u8; 4096];
        let deadline = Instant::now() + REQUEST_TIMEOUT;
        let head = read_head(&mut stream, &mut buf, deadline)?;
        waiting.store(false, Ordering::SeqCst);
        let (response, send_body) = match head {
            Head::Empty => return Ok(()),
            Head::Complete(head) => self.respond(&head),
            Head::TooLarge => (text(431, "request head too large\n"), true),
            Head::TooSlow => (text(408, "request not received in time\n"), true),
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

/// What arrived of a request head.
enum Head {
    /// The client sent nothing at all.
    Empty,
    /// Up to the blank line or the end of input.
    Complete(Vec<u8>),
    /// Past [`MAX_HEAD`].
    TooLarge,
    /// Not finished by the deadline.
    TooSlow,
}

/// Reads a request head until the blank line, the end of input, [`MAX_HEAD`] or `deadline`.
fn read_head(stream: &mut TcpStream, buf: &mut [u8], deadline: Instant) -> std::io::Result<Head> {
    let mut head = Vec::new();
    loop {
        if head.windows(4).any(|w| w == b"\r\n\r\n") || head.windows(2).any(|w| w == b"\n\n") {
            return Ok(Head::Complete(head));
        }
        if head.len() > MAX_HEAD {
            return Ok(Head::TooLarge);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(Head::TooSlow);
        }
        stream.set_read_timeout(Some(left))?;
        let n = match stream.read(buf) {
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Ok(Head::TooSlow);
            }
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok(if head.is_empty() {
                Head::Empty
            } else {
                Head::Complete(head)
            });
        }
        head.extend_from_slice(&buf[..n]);
    }
}

/// The `Host` header's value without its port, when the head has one.
fn host(head: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(head);
    let value = text.lines().skip(1).find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("host")
            .then(|| value.trim().to_owned())
    })?;
    Some(match value.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or("").to_owned(),
        None => value.split(':').next().unwrap_or("").to_owned(),
    })
}

/// `localhost` or an IP address: names no other site can rebind to this machine.
fn is_local_host(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok()
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

/// Serves `site` on `listener` until the process ends: one thread per connection, at most
/// [`MAX_CONNECTIONS`] at once. When all are taken, or no thread can be started (the process is
/// out of threads or memory), the oldest connection still waiting for its request head is closed
/// to make room: slow or idle clients cannot shut out a browser, whose head arrives at once. A
/// connection finding every one mid-answer is closed unanswered.
pub fn serve(listener: TcpListener, site: Arc<Site>) {
    let live = Arc::new(Mutex::new(Live::default()));
    for stream in listener.incoming() {
        let Ok(stream) = stream else {
            continue;
        };
        let admitted = lock(&live).admit(&stream);
        let Some((id, waiting)) = admitted else {
            continue;
        };
        let start = || {
            let (site, done) = (Arc::clone(&site), Arc::clone(&live));
            let (stream, waiting) = (stream.try_clone()?, Arc::clone(&waiting));
            std::thread::Builder::new().spawn(move || {
                // A client that goes away mid-answer is no concern of the server's.
                let _ = site.answer(stream, &waiting);
                lock(&done).leave(id);
            })
        };
        if start().is_err() && !(lock(&live).close_oldest_waiting(id) && retry(start)) {
            lock(&live).leave(id);
        }
    }
}

/// Tries `start` again while the thread of a connection just closed ends (a few times, 20 ms
/// apart): whether it started.
fn retry<T>(start: impl Fn() -> std::io::Result<T>) -> bool {
    (0..5).any(|_| {
        std::thread::sleep(Duration::from_millis(20));
        start().is_ok()
    })
}

/// The live connections in order of arrival.
#[derive(Default)]
struct Live {
    next_id: u64,
    connections: Vec<Connection>,
}

/// A live connection: a handle to close it by, and whether its request head is still awaited.
struct Connection {
    id: u64,
    stream: TcpStream,
    waiting: Arc<AtomicBool>,
}

/// The registry, even after a thread panicked holding it (it stays consistent: each change is
/// one push or one removal).
fn lock(live: &Mutex<Live>) -> std::sync::MutexGuard<'_, Live> {
    live.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Live {
    /// Registers `stream`, first closing the oldest connection still waiting for its head when
    /// all [`MAX_CONNECTIONS`] are taken; `None` when every one is mid-answer.
    fn admit(&mut self, stream: &TcpStream) -> Option<(u64, Arc<AtomicBool>)> {
        if self.connections.len() >= MAX_CONNECTIONS && !self.close_oldest_waiting(u64::MAX) {
            return None;
        }
        let handle = stream.try_clone().ok()?;
        let waiting = Arc::new(AtomicBool::new(true));
        self.next_id += 1;
        self.connections.push(Connection {
            id: self.next_id,
            stream: handle,
            waiting: Arc::clone(&waiting),
        });
        Some((self.next_id, waiting))
    }

    /// Closes the oldest connection other than `keep` still waiting for its request head (its
    /// thread's read ends at once and the thread finishes); whether there was one.
    fn close_oldest_waiting(&mut self, keep: u64) -> bool {
        let oldest = self
            .connections
            .iter()
            .position(|c| c.id != keep && c.waiting.load(Ordering::SeqCst));
        oldest.is_some_and(|i| {
            let _ = self.connections.remove(i).stream.shutdown(Shutdown::Both);
            true
        })
    }

    /// Forgets connection `id` (ended, or closed to make room).
    fn leave(&mut self, id: u64) {
        self.connections.retain(|c| c.id != id);
    }
}
