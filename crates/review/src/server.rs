//! [`ReviewConfig`] → [`Review`]: reading the sample, binding, and the accept loop.

use std::future::Future;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tower::ServiceExt;

use crate::routes::{self, AppState, HostPolicy};
use crate::{Result, ReviewError};

/// The address the review page listens on unless told otherwise: `127.0.0.1:8765`.
pub const DEFAULT_ADDR: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(Ipv4Addr::LOCALHOST), 8765);

/// How long a shutdown waits for requests in flight (a verdict being fsynced) to be answered.
const DRAIN: Duration = Duration::from_secs(5);

/// What to review and where to listen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewConfig {
    /// The corpus directory; the sample is read from `corpus/inspection/`.
    pub corpus: PathBuf,
    /// Where to listen; [`DEFAULT_ADDR`] by default, port 0 picks a free port.
    pub addr: SocketAddr,
    /// Allow an address other than loopback. The page has no login: anyone who reaches it can
    /// read the sample and record verdicts under any name, so the command line asks for this
    /// explicitly, and the server logs a warning.
    pub allow_remote: bool,
}

impl ReviewConfig {
    /// The corpus at `corpus`, on [`DEFAULT_ADDR`], loopback only.
    pub fn new(corpus: impl Into<PathBuf>) -> ReviewConfig {
        ReviewConfig {
            corpus: corpus.into(),
            addr: DEFAULT_ADDR,
            allow_remote: false,
        }
    }

    /// Checks the address, reads the sample (`sample.json` and `sample.jsonl`) and opens the
    /// verdict store, which reloads every verdict recorded before (a torn last line from a
    /// crash is cut). Fails with [`inspection::InspectionError::Locked`] while another server
    /// records into the same corpus.
    pub fn build(self) -> Result<Review> {
        let loopback = self.addr.ip().is_loopback();
        if !loopback && !self.allow_remote {
            return Err(ReviewError::RemoteNotAllowed { addr: self.addr });
        }
        let state = AppState::load(&self.corpus)?;
        Ok(Review {
            state: Arc::new(state),
            addr: self.addr,
            listener: None,
        })
    }
}

/// The review server, ready to bind and serve.
#[derive(Debug)]
pub struct Review {
    state: Arc<AppState>,
    addr: SocketAddr,
    listener: Option<std::net::TcpListener>,
}

impl Review {
    /// Binds the listening socket (once; later calls return the same address) and returns the
    /// address bound, with the real port when port 0 was asked for.
    pub fn bind(&mut self) -> Result<SocketAddr> {
        let addr = self.addr;
        let bind_err = |source| ReviewError::Bind { addr, source };
        if self.listener.is_none() {
            let listener = std::net::TcpListener::bind(addr).map_err(bind_err)?;
            listener.set_nonblocking(true).map_err(bind_err)?;
            let local = listener.local_addr().map_err(bind_err)?;
            if !local.ip().is_loopback() {
                tracing::warn!(
                    addr = %local,
                    "the review page listens beyond this machine: it has no login, so anyone who \
                     can reach it can read the sample and record verdicts under any name"
                );
            }
            self.listener = Some(listener);
        }
        let listener = self.listener.as_ref().expect("bound above");
        listener.local_addr().map_err(bind_err)
    }

    /// How many dialogues the sample holds.
    pub fn sample_len(&self) -> usize {
        self.state.len()
    }

    /// The router, for serving it some other way (tests, embedding).
    pub fn router(&self) -> Router {
        routes::router(self.state.clone(), HostPolicy::Any)
    }

    /// Binds if [`bind`](Self::bind) was not called, then serves until `shutdown` resolves.
    /// On shutdown it stops accepting, lets requests in flight finish (at most a few seconds)
    /// and returns. Dropping the future instead (a killed server) loses no acknowledged
    /// verdict: each was fsynced before its response was sent.
    pub async fn serve(mut self, shutdown: impl Future<Output = ()> + Send) -> Result<()> {
        let addr = self.bind()?;
        let std_listener = self.listener.take().expect("bound above");
        let listener = TcpListener::from_std(std_listener)
            .map_err(|source| ReviewError::Bind { addr, source })?;
        let policy = if addr.ip().is_loopback() {
            HostPolicy::Loopback
        } else {
            HostPolicy::Any
        };
        let router = routes::router(self.state.clone(), policy);
        tracing::info!(%addr, dialogues = self.state.len(), "review page listening");
        accept_loop(listener, router, shutdown).await;
        tracing::info!(%addr, "review page stopped");
        Ok(())
    }
}

/// Accepts connections until `shutdown`; the connections live in a [`JoinSet`], so dropping
/// this future (an aborted task) aborts them all and releases the verdict store.
async fn accept_loop(listener: TcpListener, router: Router, shutdown: impl Future<Output = ()>) {
    let (stop, stopped) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            biased;
            () = &mut shutdown => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => {
                    connections.spawn(serve_connection(stream, router.clone(), stopped.clone()));
                }
                Err(e) => {
                    // Typically EMFILE: back off instead of spinning.
                    tracing::warn!(error = %e, "review: accept failed");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            },
        }
    }
    drop(listener);
    stop.send_replace(true);
    let drained = tokio::time::timeout(DRAIN, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!("review: closing connections still busy after {DRAIN:?}");
    }
    connections.shutdown().await;
}

/// Serves one HTTP/1.1 connection; on shutdown, finishes the request in flight and closes.
async fn serve_connection(stream: TcpStream, router: Router, mut stopped: watch::Receiver<bool>) {
    let _ = stream.set_nodelay(true);
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        router.clone().oneshot(request)
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .serve_connection(TokioIo::new(stream), service);
    let mut connection = std::pin::pin!(connection);
    tokio::select! {
        result = connection.as_mut() => {
            if let Err(e) = result {
                tracing::trace!(error = %e, "review: connection ended with an error");
            }
        }
        _ = async { let _ = stopped.wait_for(|s| *s).await; } => {
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
    }
}
