//! egret-topology-master
