//! egret-container
