package org.apache.storm.streams.processors;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.storm.streams.Pair;
import org.apache.storm.streams.operations.ValueJoiner;
import org.apache.storm.streams.tuple.Tuple3;

/**
 * Joins the pairs of two streams by key, combining matching values with the
 * {@link ValueJoiner}: an inner join, or outer on either side (a value without a match is
 * joined with null). Windowed, each window's rows are joined at its end; otherwise each new
 * row is joined at once with the other side's rows so far.
 */
public class JoinProcessor<K, R, V1, V2> extends BaseProcessor<Pair<K, ?>> implements BatchProcessor {
    private static final long serialVersionUID = 1L;

    private final ValueJoiner<V1, V2, R> valueJoiner;
    private final String leftStream;
    private final String rightStream;
    private final List<Pair<K, V1>> leftRows = new ArrayList<>();
    private final List<Pair<K, V2>> rightRows = new ArrayList<>();
    private final JoinType leftType;
    private final JoinType rightType;

    /** Whether a side keeps its rows without a match. */
    public enum JoinType {
        INNER,
        OUTER
    }

    public JoinProcessor(String leftStream, String rightStream, ValueJoiner<V1, V2, R> valueJoiner) {
        this(leftStream, rightStream, valueJoiner, JoinType.INNER, JoinType.INNER);
    }

    public JoinProcessor(String leftStream, String rightStream, ValueJoiner<V1, V2, R> valueJoiner,
            JoinType leftType, JoinType rightType) {
        this.valueJoiner = valueJoiner;
        this.leftStream = leftStream;
        this.rightStream = rightStream;
        this.leftType = leftType;
        this.rightType = rightType;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void execute(Pair<K, ?> input, String sourceStream) {
        K key = input.getFirst();
        if (sourceStream.equals(leftStream)) {
            Pair<K, V1> row = Pair.of(key, (V1) input.getSecond());
            leftRows.add(row);
            if (!context.isWindowed()) {
                joinAndForward(Collections.singletonList(row), rightRows);
            }
        } else if (sourceStream.equals(rightStream)) {
            Pair<K, V2> row = Pair.of(key, (V2) input.getSecond());
            rightRows.add(row);
            if (!context.isWindowed()) {
                joinAndForward(leftRows, Collections.singletonList(row));
            }
        }
    }

    @Override
    public void finish() {
        joinAndForward(leftRows, rightRows);
        leftRows.clear();
        rightRows.clear();
    }

    public String getLeftStream() {
        return leftStream;
    }

    public String getRightStream() {
        return rightStream;
    }

    /** Hashes the smaller side, probes it with the larger. */
    @SuppressWarnings("unchecked")
    private void joinAndForward(List<Pair<K, V1>> left, List<Pair<K, V2>> right) {
        if (left.size() < right.size()) {
            for (Tuple3<K, V1, V2> r : join(left, right, leftType, rightType)) {
                context.forward(Pair.of(r.value1, valueJoiner.apply(r.value2, r.value3)));
            }
        } else {
            for (Tuple3<K, V2, V1> r : join(right, left, rightType, leftType)) {
                context.forward(Pair.of(r.value1, valueJoiner.apply(r.value3, r.value2)));
            }
        }
    }

    /**
     * The joined rows: each probe row with every table row of its key (or null, when the
     * probe side is outer), then the table rows that matched nothing (when the table side is outer).
     */
    private static <K, T1, T2> List<Tuple3<K, T1, T2>> join(List<Pair<K, T1>> tableRows, List<Pair<K, T2>> probeRows,
            JoinType tableType, JoinType probeType) {
        Map<K, List<T1>> table = new LinkedHashMap<>();
        for (Pair<K, T1> row : tableRows) {
            table.computeIfAbsent(row.getFirst(), k -> new ArrayList<>()).add(row.getSecond());
        }
        Set<K> matched = new HashSet<>();
        List<Tuple3<K, T1, T2>> out = new ArrayList<>();
        for (Pair<K, T2> row : probeRows) {
            List<T1> values = table.get(row.getFirst());
            if (values == null) {
                if (probeType == JoinType.OUTER) {
                    out.add(new Tuple3<>(row.getFirst(), null, row.getSecond()));
                }
                continue;
            }
            matched.add(row.getFirst());
            for (T1 v : values) {
                out.add(new Tuple3<>(row.getFirst(), v, row.getSecond()));
            }
        }
        if (tableType == JoinType.OUTER) {
            for (Map.Entry<K, List<T1>> e : table.entrySet()) {
                if (!matched.contains(e.getKey())) {
                    for (T1 v : e.getValue()) {
                        out.add(new Tuple3<>(e.getKey(), v, null));
                    }
                }
            }
        }
        return out;
    }
}
