//! egret-scheduler
