package org.apache.storm.bolt;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseWindowedBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.windowing.TimestampExtractor;
import org.apache.storm.windowing.TupleWindow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Storm's windowed join of several input streams (see Storm's "Joining Streams in Storm
 * Core"): the first stream is named in the constructor, each further stream is inner- or
 * left-joined with a stream named before it, and {@link #select} names the output fields.
 * Each activated window is joined as a whole (a hash join per joined stream, in the order the
 * joins were declared) and every result row is emitted anchored to the input tuples it is
 * made of; the windowing itself (acking on expiry, timers) is the shim's
 * {@code WindowedBoltExecutor}, as for any {@link BaseWindowedBolt}.
 *
 * <p>Semantics, as Storm's:
 * <ul>
 *   <li>streams are told apart by source component ({@link Selector#SOURCE}, the default) or
 *       by stream id ({@link Selector#STREAM}); tuples of any other stream are ignored;</li>
 *   <li>a stream always joins on one field, the one given when it was introduced (which
 *       should be the field it is fields-grouped on); join fields may be nested ({@code a.b}:
 *       field {@code a} of the tuple is a {@link Map}, looked up with key {@code b}) but not
 *       qualified with a stream name;</li>
 *   <li>a row whose join key is null (e.g. a row that an earlier left join kept without
 *       its partner) is dropped by the next join, inner or left, as in Storm; a left join
 *       keeps a row with a non-null key and no match, with nulls for the joined stream's
 *       fields;</li>
 *   <li>output fields may be qualified ({@code stream:field}) and nested; an unqualified one
 *       is taken from the first tuple of the row that has it; the declared output field names
 *       are the selectors as written (trimmed), e.g. {@code genderSpout:id};</li>
 *   <li>only INNER and LEFT joins are supported.</li>
 * </ul>
 *
 * <p>Invariant: {@link #joinCriteria} is ordered by declaration and its first entry is the
 * constructor's stream (the only entry without an other stream); every later entry refers
 * to an earlier one, so a left-to-right pass over it joins each stream with rows that
 * already contain its partner.
 */
public class JoinBolt extends BaseWindowedBolt {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(JoinBolt.class);

    protected final Selector selectorType;
    /** Stream name to how it joins, in declaration order; the first is the constructor's. */
    protected LinkedHashMap<String, JoinInfo> joinCriteria = new LinkedHashMap<>();
    protected FieldSelector[] outputFields;
    protected String outputStreamName;

    /** Per window: stream name (all but the first) to join key to that stream's tuples. */
    transient HashMap<String, HashMap<Object, ArrayList<Tuple>>> hashedInputs = new HashMap<>();
    private transient OutputCollector collector;

    /** How the incoming streams are told apart. */
    public enum Selector {
        /** By the tuple's stream id. */
        STREAM,
        /** By the tuple's source component. */
        SOURCE
    }

    /** The kinds of join; Storm supports INNER and LEFT only. */
    protected enum JoinType {
        INNER,
        LEFT,
        RIGHT,
        OUTER
    }

    /** Same as {@code JoinBolt(Selector.SOURCE, sourceId, fieldName)}. */
    public JoinBolt(String sourceId, String fieldName) {
        this(Selector.SOURCE, sourceId, fieldName);
    }

    /**
     * Introduces the first stream of the join: tuples of {@code srcOrStreamId} (a component
     * or stream id, per {@code type}) joined with others on {@code fieldName}.
     */
    public JoinBolt(Selector type, String srcOrStreamId, String fieldName) {
        if (type == null) {
            throw new IllegalArgumentException("JoinBolt selector type must not be null");
        }
        requireName(srcOrStreamId, "stream");
        requireName(fieldName, "join field");
        this.selectorType = type;
        joinCriteria.put(srcOrStreamId, new JoinInfo(new FieldSelector(srcOrStreamId, fieldName)));
    }

    /** Emits the joined rows on {@code streamName} instead of the default stream. */
    public JoinBolt withOutputStream(String streamName) {
        this.outputStreamName = streamName;
        return this;
    }

    /**
     * Inner join: rows of the streams so far whose {@code priorStream} join key equals
     * {@code newStream}'s {@code field}, one row per matching pair.
     */
    public JoinBolt join(String newStream, String field, String priorStream) {
        return joinCommon(newStream, field, priorStream, JoinType.INNER);
    }

    /**
     * Left join: as {@link #join}, but rows without a matching {@code newStream} tuple are
     * kept, with nulls for {@code newStream}'s fields.
     */
    public JoinBolt leftJoin(String newStream, String field, String priorStream) {
        return joinCommon(newStream, field, priorStream, JoinType.LEFT);
    }

    private JoinBolt joinCommon(String newStream, String fieldDescriptor, String priorStream, JoinType type) {
        requireName(newStream, "stream");
        requireName(fieldDescriptor, "join field");
        if (joinCriteria.containsKey(newStream)) {
            throw new IllegalArgumentException("Stream '" + newStream + "' was already introduced in this JoinBolt;"
                    + " each stream can be joined only once");
        }
        JoinInfo prior = joinCriteria.get(priorStream);
        if (prior == null) {
            throw new IllegalArgumentException("Stream '" + priorStream + "' must be introduced (in the constructor"
                    + " or an earlier join) before '" + newStream + "' can be joined with it");
        }
        FieldSelector field = new FieldSelector(newStream, fieldDescriptor);
        joinCriteria.put(newStream, new JoinInfo(field, priorStream, prior, type));
        return this;
    }

    /**
     * The output fields, comma separated; each is {@code field}, {@code stream:field} or a
     * nested {@code [stream:]a.b.c}.
     */
    public JoinBolt select(String commaSeparatedKeys) {
        if (commaSeparatedKeys == null) {
            throw new IllegalArgumentException("JoinBolt select() needs a comma separated list of fields");
        }
        String[] keys = commaSeparatedKeys.split(",");
        FieldSelector[] selectors = new FieldSelector[keys.length];
        for (int i = 0; i < keys.length; i++) {
            String key = keys[i].trim();
            if (key.isEmpty()) {
                throw new IllegalArgumentException("Empty field name in JoinBolt select(\"" + commaSeparatedKeys + "\")");
            }
            selectors[i] = new FieldSelector(key);
        }
        this.outputFields = selectors;
        return this;
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        if (outputFields == null) {
            throw new IllegalArgumentException("Must specify output fields via .select() method.");
        }
        String[] names = new String[outputFields.length];
        for (int i = 0; i < outputFields.length; i++) {
            names[i] = outputFields[i].getOutputName();
        }
        if (outputStreamName != null) {
            declarer.declareStream(outputStreamName, new Fields(names));
        } else {
            declarer.declare(new Fields(names));
        }
    }

    @Override
    public void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector) {
        if (outputFields == null) {
            throw new IllegalArgumentException("Must specify output fields via .select() method.");
        }
        this.collector = collector;
        this.hashedInputs = new HashMap<>();
        for (FieldSelector f : outputFields) {
            if (f.getStreamName() != null && streamNamed(f.getStreamName()) == null) {
                // Storm accepts this and emits nulls; a warning makes the likely typo visible.
                LOG.warn("JoinBolt output field '{}' names stream '{}', which is not joined ({}); it will be null",
                        f.getOutputName(), f.getStreamName(), joinCriteria.keySet());
            }
        }
    }

    @Override
    public void execute(TupleWindow inputWindow) {
        JoinAccumulator result = hashJoin(inputWindow.get());
        for (ResultRecord record : result.getRecords()) {
            ArrayList<Object> values = record.getOutputFields();
            if (values == null) {
                values = doProjection(record.tupleList, outputFields);
            }
            if (outputStreamName == null) {
                collector.emit(record.tupleList, values);
            } else {
                collector.emit(outputStreamName, record.tupleList, values);
            }
        }
    }

    /**
     * Joins one window: hashes every stream but the first on its join field, then joins the
     * first stream's tuples with each of them in declaration order.
     */
    protected JoinAccumulator hashJoin(List<Tuple> tuples) {
        if (hashedInputs == null) {
            hashedInputs = new HashMap<>();
        }
        hashedInputs.clear();
        String firstStream = joinCriteria.keySet().iterator().next();
        for (String stream : joinCriteria.keySet()) {
            if (!stream.equals(firstStream)) {
                hashedInputs.put(stream, new HashMap<>());
            }
        }
        boolean onlyStream = joinCriteria.size() == 1;
        JoinAccumulator probe = new JoinAccumulator();
        for (Tuple tuple : tuples) {
            String stream = getStreamSelector(tuple);
            if (firstStream.equals(stream)) {
                probe.insert(new ResultRecord(tuple, onlyStream));
                continue;
            }
            HashMap<Object, ArrayList<Tuple>> byKey = hashedInputs.get(stream);
            if (byKey == null) {
                continue; // not a joined stream
            }
            Object key = getJoinField(stream, tuple);
            if (key != null) {
                byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(tuple);
            }
        }
        int index = 0;
        int last = joinCriteria.size() - 1;
        for (Map.Entry<String, JoinInfo> e : joinCriteria.entrySet()) {
            if (index > 0) {
                probe = doJoin(probe, hashedInputs.get(e.getKey()), e.getValue(), index == last);
            }
            index++;
        }
        hashedInputs.clear();
        return probe;
    }

    /** Joins {@code probe} with one stream's hashed tuples, as {@code joinInfo} says. */
    protected JoinAccumulator doJoin(JoinAccumulator probe, HashMap<Object, ArrayList<Tuple>> buildInput,
            JoinInfo joinInfo, boolean finalJoin) {
        switch (joinInfo.getJoinType()) {
            case INNER:
                return doInnerJoin(probe, buildInput, joinInfo, finalJoin);
            case LEFT:
                return doLeftJoin(probe, buildInput, joinInfo, finalJoin);
            default:
                throw new UnsupportedOperationException("JoinBolt does not support " + joinInfo.getJoinType()
                        + " joins (only INNER and LEFT)");
        }
    }

    /** Rows of {@code probe} extended with each matching tuple; rows without a match dropped. */
    protected JoinAccumulator doInnerJoin(JoinAccumulator probe, Map<Object, ArrayList<Tuple>> buildInput,
            JoinInfo joinInfo, boolean finalJoin) {
        FieldSelector partnerKey = new FieldSelector(joinInfo.getOtherStream(), joinInfo.getOtherField());
        JoinAccumulator result = new JoinAccumulator();
        for (ResultRecord record : probe.getRecords()) {
            Object key = record.getField(partnerKey);
            List<Tuple> matches = key == null ? null : buildInput.get(key);
            if (matches == null) {
                continue;
            }
            for (Tuple match : matches) {
                result.insert(new ResultRecord(record, match, finalJoin));
            }
        }
        return result;
    }

    /**
     * Rows of {@code probe} extended with each matching tuple, or kept alone without one;
     * rows whose key is null are dropped (Storm's left join does not carry them on).
     */
    protected JoinAccumulator doLeftJoin(JoinAccumulator probe, Map<Object, ArrayList<Tuple>> buildInput,
            JoinInfo joinInfo, boolean finalJoin) {
        FieldSelector partnerKey = new FieldSelector(joinInfo.getOtherStream(), joinInfo.getOtherField());
        JoinAccumulator result = new JoinAccumulator();
        for (ResultRecord record : probe.getRecords()) {
            Object key = record.getField(partnerKey);
            if (key == null) {
                continue;
            }
            List<Tuple> matches = buildInput.get(key);
            if (matches == null || matches.isEmpty()) {
                result.insert(new ResultRecord(record, null, finalJoin));
                continue;
            }
            for (Tuple match : matches) {
                result.insert(new ResultRecord(record, match, finalJoin));
            }
        }
        return result;
    }

    private Object getJoinField(String streamId, Tuple tuple) {
        JoinInfo info = joinCriteria.get(streamId);
        return info == null ? null : lookupField(info.getJoinField(), tuple);
    }

    private String getStreamSelector(Tuple tuple) {
        return selectorType == Selector.STREAM ? tuple.getSourceStreamId() : tuple.getSourceComponent();
    }

    /** The joined stream named {@code name} (case-insensitively, as Storm matches selectors), or null. */
    private String streamNamed(String name) {
        for (String stream : joinCriteria.keySet()) {
            if (stream.equalsIgnoreCase(name)) {
                return stream;
            }
        }
        return null;
    }

    /** The values of {@code projectionFields} in a row made of {@code tuples}. */
    protected ArrayList<Object> doProjection(ArrayList<Tuple> tuples, FieldSelector[] projectionFields) {
        ArrayList<Object> values = new ArrayList<>(projectionFields.length);
        for (FieldSelector selector : projectionFields) {
            Object value = null;
            for (Tuple tuple : tuples) {
                value = lookupField(selector, tuple);
                if (value != null) {
                    break;
                }
            }
            values.add(value);
        }
        return values;
    }

    /**
     * The value {@code fieldSelector} names in {@code tuple}, or null when the tuple is of
     * another stream than the selector's, lacks the field, or a nested level is absent or
     * not a {@link Map}.
     */
    protected Object lookupField(FieldSelector fieldSelector, Tuple tuple) {
        if (tuple == null) {
            return null;
        }
        String stream = fieldSelector.getStreamName();
        if (stream != null && !stream.equalsIgnoreCase(getStreamSelector(tuple))) {
            return null;
        }
        String[] path = fieldSelector.getField();
        if (!tuple.contains(path[0])) {
            return null;
        }
        Object value = tuple.getValueByField(path[0]);
        for (int i = 1; i < path.length && value != null; i++) {
            value = value instanceof Map ? ((Map<?, ?>) value).get(path[i]) : null;
        }
        return value;
    }

    // Covariant overrides, so that the window setters chain on a JoinBolt as in Storm.

    @Override
    public JoinBolt withWindow(Count windowLength, Count slidingInterval) {
        super.withWindow(windowLength, slidingInterval);
        return this;
    }

    @Override
    public JoinBolt withWindow(Count windowLength, Duration slidingInterval) {
        super.withWindow(windowLength, slidingInterval);
        return this;
    }

    @Override
    public JoinBolt withWindow(Duration windowLength, Count slidingInterval) {
        super.withWindow(windowLength, slidingInterval);
        return this;
    }

    @Override
    public JoinBolt withWindow(Duration windowLength, Duration slidingInterval) {
        super.withWindow(windowLength, slidingInterval);
        return this;
    }

    @Override
    public JoinBolt withWindow(Count windowLength) {
        super.withWindow(windowLength);
        return this;
    }

    @Override
    public JoinBolt withWindow(Duration windowLength) {
        super.withWindow(windowLength);
        return this;
    }

    @Override
    public JoinBolt withTumblingWindow(Count count) {
        super.withTumblingWindow(count);
        return this;
    }

    @Override
    public JoinBolt withTumblingWindow(Duration duration) {
        super.withTumblingWindow(duration);
        return this;
    }

    @Override
    public JoinBolt withTimestampField(String fieldName) {
        super.withTimestampField(fieldName);
        return this;
    }

    @Override
    public JoinBolt withTimestampExtractor(TimestampExtractor timestampExtractor) {
        super.withTimestampExtractor(timestampExtractor);
        return this;
    }

    @Override
    public JoinBolt withLateTupleStream(String streamId) {
        super.withLateTupleStream(streamId);
        return this;
    }

    // Storm declares these two with the base return type; kept for binary compatibility.

    @Override
    public BaseWindowedBolt withLag(Duration duration) {
        return super.withLag(duration);
    }

    @Override
    public BaseWindowedBolt withWatermarkInterval(Duration interval) {
        return super.withWatermarkInterval(interval);
    }

    private static void requireName(String name, String what) {
        if (name == null || name.trim().isEmpty()) {
            throw new IllegalArgumentException("JoinBolt " + what + " name must not be empty");
        }
    }

    /**
     * A field of a stream's tuples: {@code [stream:]a.b.c}, where {@code a} is a tuple field
     * and {@code b}, {@code c} keys of nested maps. The output name is the descriptor as
     * written (trimmed).
     */
    protected static class FieldSelector implements Serializable {
        private static final long serialVersionUID = 1L;

        String streamName;
        String[] field;
        String outputName;

        /** Parses {@code [stream:]a.b.c}. */
        public FieldSelector(String fieldDescriptor) {
            String descriptor = fieldDescriptor.trim();
            int colon = descriptor.indexOf(':');
            this.outputName = descriptor;
            if (colon > 0) {
                this.streamName = descriptor.substring(0, colon).trim();
                this.field = descriptor.substring(colon + 1).trim().split("\\.");
            } else {
                // A leading ':' names no stream.
                this.streamName = null;
                this.field = (colon == 0 ? descriptor.substring(1).trim() : descriptor).split("\\.");
            }
        }

        /** A field of {@code stream}; the descriptor must not name a stream itself. */
        public FieldSelector(String stream, String fieldDescriptor) {
            this(fieldDescriptor);
            if (fieldDescriptor.contains(":")) {
                throw new IllegalArgumentException("Field descriptor '" + fieldDescriptor + "' of stream '" + stream
                        + "' must not be qualified with a stream name");
            }
            this.streamName = stream;
        }

        /** The nested field {@code field[0].field[1]...} of {@code stream}. */
        public FieldSelector(String stream, String[] field) {
            this(stream, String.join(".", field));
        }

        public String getStreamName() {
            return streamName;
        }

        public String[] getField() {
            return field;
        }

        public String getOutputName() {
            return toString();
        }

        @Override
        public String toString() {
            return outputName;
        }
    }

    /** How a stream joins: its join field and, but for the first stream, its partner. */
    protected static class JoinInfo implements Serializable {
        static final long serialVersionUID = 1L;

        private JoinType joinType;
        private FieldSelector field;
        private FieldSelector other;

        /** The first stream: no partner. */
        public JoinInfo(FieldSelector field) {
            this.joinType = null;
            this.field = field;
            this.other = null;
        }

        /** {@code field}'s stream joined ({@code joinType}) with {@code otherStream} on its join field. */
        public JoinInfo(FieldSelector field, String otherStream, JoinInfo otherStreamJoinInfo, JoinType joinType) {
            this.joinType = joinType;
            this.field = field;
            this.other = new FieldSelector(otherStream, otherStreamJoinInfo.field.getField());
        }

        public FieldSelector getJoinField() {
            return field;
        }

        public String getOtherStream() {
            return other == null ? null : other.getStreamName();
        }

        public String[] getOtherField() {
            return other == null ? null : other.getField();
        }

        public JoinType getJoinType() {
            return joinType;
        }
    }

    /** The rows of a join in progress. */
    protected class JoinAccumulator {
        ArrayList<ResultRecord> records = new ArrayList<>();

        protected JoinAccumulator() {
        }

        public void insert(ResultRecord tuple) {
            records.add(tuple);
        }

        public Collection<ResultRecord> getRecords() {
            return records;
        }
    }

    /** One row: the tuples it is made of and, once the last join is done, its output values. */
    protected class ResultRecord {
        ArrayList<Tuple> tupleList = new ArrayList<>();
        ArrayList<Object> outFields = null;

        /** A row of one tuple; {@code generateOutputFields} when no join follows. */
        public ResultRecord(Tuple tuple, boolean generateOutputFields) {
            tupleList.add(tuple);
            if (generateOutputFields) {
                outFields = doProjection(tupleList, outputFields);
            }
        }

        /** {@code lhs} extended with {@code rhs} (null: no match in a left join). */
        public ResultRecord(ResultRecord lhs, Tuple rhs, boolean generateOutputFields) {
            tupleList.addAll(lhs.tupleList);
            if (rhs != null) {
                tupleList.add(rhs);
            }
            if (generateOutputFields) {
                outFields = doProjection(tupleList, outputFields);
            }
        }

        public ArrayList<Object> getOutputFields() {
            return outFields;
        }

        /** The value of {@code fieldSelector} in this row (the first tuple that has it), or null. */
        public Object getField(FieldSelector fieldSelector) {
            for (Tuple tuple : tupleList) {
                Object value = lookupField(fieldSelector, tuple);
                if (value != null) {
                    return value;
                }
            }
            return null;
        }
    }
}
