//! egret-config
