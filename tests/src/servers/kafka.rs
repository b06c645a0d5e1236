//! Kafka placeholder (filled in below).
