//! PostgreSQL placeholder (filled in below).
