//! The harness's behaviour: arithmetic against hand computations, reproducible intervals, the
//! rules judge telling bad methods apart, bad input, resume, the split.

mod arithmetic;
mod bad_methods;
mod input;
mod llm;
mod resume;
mod split;
mod support;
