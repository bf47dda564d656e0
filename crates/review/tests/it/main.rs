//! The review server's tests: the API over loopback HTTP, and the page in headless Chromium.

mod api;
mod browser;
mod cdp;
mod queue;
mod support;
