//! A minimal HTTP/1.1 server on 127.0.0.1: one thread per connection, GET and HEAD only.
//!
//! It reads at most 64 KiB of request head, parses it (the request line and headers,
//! the path and the query percent-decoded, `+` a space in the query: [`parse_head`]),
//! hands the request to the router and answers with `Connection: close` and an exact
//! `Content-Length`. Malformed input gets a 400; nothing a client sends makes it panic.
//! The message types and the parsing live in a lower module (`message`, which the
//! protocol handlers use) and are re-exported here.

use std::fmt::Write as _;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

pub use crate::message::{Request, Response, decode, parse_head};
use crate::script::World;

/// The most request head (request line and headers) the server reads.
const MAX_HEAD: usize = 64 * 1024;

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}

/// A running server; dropping it stops it.
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Starts serving `state` on a free port of 127.0.0.1.
    ///
    /// # Errors
    /// When the socket cannot be bound.
    pub fn start(state: Arc<Mutex<World>>) -> io::Result<Server> {
        Server::start_on(state, 0)
    }

    /// Starts serving `state` on `port` of 127.0.0.1 (0: any free port).
    ///
    /// # Errors
    /// When the socket cannot be bound.
    pub fn start_on(state: Arc<Mutex<World>>, port: u16) -> io::Result<Server> {
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("opendata-sim-accept".into())
            .spawn(move || {
                for stream in listener.incoming() {
                    if flag.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let state = Arc::clone(&state);
                    // A connection that cannot get a thread is dropped; the client sees a reset.
                    let _ = std::thread::Builder::new().spawn(move || serve(stream, &state));
                }
            })?;
        Ok(Server {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT`.
    #[must_use]
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound port.
    #[must_use]
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Stops accepting connections and waits for the accept thread to end.
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            // Wake the blocking accept so it sees the flag.
            let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
            let _ = thread.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn serve(mut stream: TcpStream, state: &Arc<Mutex<World>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
    let (response, head_only) = match read_head(&mut stream) {
        Ok(None) => return,
        Ok(Some(head)) => match parse_head(&head) {
            Ok(req) => {
                let head_only = req.method == "HEAD";
                let response = catch_unwind(AssertUnwindSafe(|| {
                    let mut world = state.lock().unwrap_or_else(PoisonError::into_inner);
                    crate::router::route(&mut world, &req)
                }))
                .unwrap_or_else(|_| Response::text(500, "internal error\n"));
                (response, head_only)
            }
            Err(resp) => (resp, false),
        },
        Err(resp) => (resp, false),
    };
    let _ = write_response(&mut stream, &response, head_only);
}

/// Reads up to the blank line ending the head. `Ok(None)` when the peer sent nothing.
fn read_head(stream: &mut TcpStream) -> Result<Option<Vec<u8>>, Response> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = find_head_end(&buf) {
            buf.truncate(end);
            return Ok(Some(buf));
        }
        if buf.len() >= MAX_HEAD {
            return Err(Response::text(431, "request head over 64 KiB\n"));
        }
        let want = chunk.len().min(MAX_HEAD - buf.len());
        match stream.read(&mut chunk[..want]) {
            Ok(n) if n > 0 => buf.extend_from_slice(&chunk[..n]),
            _ if buf.is_empty() => return Ok(None),
            _ => return Err(Response::text(400, "incomplete request head\n")),
        }
    }
}

fn find_head_end(buf: &[u8]) -> Option<usize> {
    let crlf = buf.windows(4).position(|w| w == b"\r\n\r\n");
    let lf = buf.windows(2).position(|w| w == b"\n\n");
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn write_response(stream: &mut TcpStream, resp: &Response, head_only: bool) -> io::Result<()> {
    let mut out = format!("HTTP/1.1 {} {}\r\n", resp.status, reason(resp.status));
    for (name, value) in &resp.headers {
        let _ = write!(out, "{name}: {value}\r\n");
    }
    let _ = write!(
        out,
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        resp.body.len()
    );
    let mut bytes = out.into_bytes();
    if !head_only {
        bytes.extend_from_slice(&resp.body);
    }
    stream.write_all(&bytes)?;
    stream.flush()?;
    let _ = stream.shutdown(std::net::Shutdown::Write);
    Ok(())
}
