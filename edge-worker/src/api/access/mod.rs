//! Access: who may call, and how much. API keys and where they may be used from,
//! daily quotas, each account's gate, and the blocks of busy keys' quotas an isolate holds.
//!
//! module-cycles: ordered. Each module uses only those declared above it.

// Server addresses a key may be used from.
pub mod ip_ranges;
// API keys: their records, digests and kinds.
pub mod keys;
// Daily quotas.
pub mod daily_quota;
// What an account's Durable Object decides.
pub mod gate;
// An isolate's blocks of busy keys' quotas.
pub mod held_blocks;
