package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.storm.tuple.Fields;
import org.apache.storm.utils.TupleUtils;
import org.junit.jupiter.api.Test;

/** The fields grouping's choice of task, against Storm's TupleUtils. */
class GroupingsTest {
    private static final List<Object> SAMPLES = Arrays.asList("word", "", 42, -7L, null, 3.5d, true,
            new byte[] {1, 2, 3}, new int[] {4, 5}, new long[] {6L}, new char[] {'a'}, new short[] {2},
            new float[] {1.5f}, new double[] {2.5d}, new boolean[] {true, false},
            new Object[] {"nested", new int[] {1}}, new String[][] {{"a", "b"}, {"c"}}, List.of("x", 1),
            Map.of("k", 2));

    @Test
    void theKeyHashIsStormsDeepHashOfTheGroupingValues() {
        for (Object a : SAMPLES) {
            for (Object b : SAMPLES) {
                List<Object> values = new ArrayList<>(Arrays.asList("other", a, b));
                int[] indexes = {1, 2};
                assertEquals(Arrays.deepHashCode(new Object[] {a, b}), Groupings.keyHash(values, indexes),
                        "values " + values);
                assertEquals(Arrays.deepHashCode(new Object[] {a}), Groupings.keyHash(values, new int[] {1}));
            }
        }
    }

    @Test
    void aFieldsGroupingChoosesTheTaskStormChooses() {
        Fields out = new Fields("id", "word", "n");
        List<Integer> targets = List.of(4, 9, 11, 12, 30);
        TargetChooser chooser = Groupings.fields(out, List.of("word", "n"), targets);
        for (int i = 0; i < 500; i++) {
            List<Object> values = Arrays.asList(i, "w" + (i * 7919 % 101), i % 3 == 0 ? null : (long) i);
            int index = TupleUtils.chooseTaskIndex(Arrays.asList(values.get(1), values.get(2)), targets.size());
            assertEquals(List.of(targets.get(index)), chooser.choose(0, values), "values " + values);
        }
    }
}
