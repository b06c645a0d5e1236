//! egret-stream-manager
