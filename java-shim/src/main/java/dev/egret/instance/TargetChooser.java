package dev.egret.instance;

import java.util.List;

/** Picks the target tasks of one tuple for one subscription. Implementations must be safe for concurrent emits. */
interface TargetChooser {
    List<Integer> choose(int sourceTask, List<Object> values);
}
