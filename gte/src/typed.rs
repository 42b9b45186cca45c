//! typed
