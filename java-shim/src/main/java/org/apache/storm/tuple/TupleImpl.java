package org.apache.storm.tuple;

import java.util.List;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.task.GeneralTopologyContext;

/**
 * The tuple a bolt receives. Equality is identity, as in Storm: two tuples with equal
 * values are still different tuples (acking and anchoring rely on it).
 */
public class TupleImpl implements Tuple {
    private final List<Object> values;
    private final int taskId;
    private final String streamId;
    private final GeneralTopologyContext context;
    private final MessageId id;
    private final String srcComponent;
    private final Fields fields;
    /** Sampled times, kept unboxed (a boxed Long per tuple otherwise); null to Storm's getters while unset. */
    private long processSampleStartTime;
    private long executeSampleStartTime;
    private boolean processSampled;
    private boolean executeSampled;
    private long outAckVal = 0;

    public TupleImpl(Tuple t) {
        this.values = t.getValues();
        this.taskId = t.getSourceTask();
        this.streamId = t.getSourceStreamId();
        this.id = t.getMessageId();
        this.context = t.getContext();
        this.srcComponent = t.getSourceComponent();
        this.fields = t.getFields();
        if (t instanceof TupleImpl) {
            TupleImpl ti = (TupleImpl) t;
            this.processSampleStartTime = ti.processSampleStartTime;
            this.executeSampleStartTime = ti.executeSampleStartTime;
            this.processSampled = ti.processSampled;
            this.executeSampled = ti.executeSampled;
            this.outAckVal = ti.outAckVal;
        }
    }

    public TupleImpl(GeneralTopologyContext context, List<Object> values, String srcComponent, int taskId,
                     String streamId, MessageId id) {
        this.values = values;
        this.taskId = taskId;
        this.streamId = streamId;
        this.id = id;
        this.context = context;
        this.srcComponent = srcComponent;
        this.fields = context.getComponentOutputFields(srcComponent, streamId);
        if (context.doSanityCheck() && fields.size() != values.size()) {
            throw new IllegalArgumentException("Tuple created with wrong number of fields. Expected "
                    + fields.size() + " fields but got " + values.size() + " fields");
        }
    }

    public TupleImpl(GeneralTopologyContext context, List<Object> values, String srcComponent, int taskId,
                     String streamId) {
        this(context, values, srcComponent, taskId, streamId, MessageId.makeUnanchored());
    }

    public Long getProcessSampleStartTime() {
        return processSampled ? processSampleStartTime : null;
    }

    public void setProcessSampleStartTime(long ms) {
        processSampleStartTime = ms;
        processSampled = true;
    }

    public Long getExecuteSampleStartTime() {
        return executeSampled ? executeSampleStartTime : null;
    }

    public void setExecuteSampleStartTime(long ms) {
        executeSampleStartTime = ms;
        executeSampled = true;
    }

    public void updateAckVal(long val) {
        outAckVal = outAckVal ^ val;
    }

    public long getAckVal() {
        return outAckVal;
    }

    @Override
    public int size() {
        return values.size();
    }

    @Override
    public int fieldIndex(String field) {
        return getFields().fieldIndex(field);
    }

    @Override
    public boolean contains(String field) {
        return getFields().contains(field);
    }

    @Override
    public Object getValue(int i) {
        return values.get(i);
    }

    @Override
    public String getString(int i) {
        return (String) values.get(i);
    }

    @Override
    public Integer getInteger(int i) {
        return (Integer) values.get(i);
    }

    @Override
    public Long getLong(int i) {
        return (Long) values.get(i);
    }

    @Override
    public Boolean getBoolean(int i) {
        return (Boolean) values.get(i);
    }

    @Override
    public Short getShort(int i) {
        return (Short) values.get(i);
    }

    @Override
    public Byte getByte(int i) {
        return (Byte) values.get(i);
    }

    @Override
    public Double getDouble(int i) {
        return (Double) values.get(i);
    }

    @Override
    public Float getFloat(int i) {
        return (Float) values.get(i);
    }

    @Override
    public byte[] getBinary(int i) {
        return (byte[]) values.get(i);
    }

    @Override
    public Object getValueByField(String field) {
        return values.get(fieldIndex(field));
    }

    @Override
    public String getStringByField(String field) {
        return (String) getValueByField(field);
    }

    @Override
    public Integer getIntegerByField(String field) {
        return (Integer) getValueByField(field);
    }

    @Override
    public Long getLongByField(String field) {
        return (Long) getValueByField(field);
    }

    @Override
    public Boolean getBooleanByField(String field) {
        return (Boolean) getValueByField(field);
    }

    @Override
    public Short getShortByField(String field) {
        return (Short) getValueByField(field);
    }

    @Override
    public Byte getByteByField(String field) {
        return (Byte) getValueByField(field);
    }

    @Override
    public Double getDoubleByField(String field) {
        return (Double) getValueByField(field);
    }

    @Override
    public Float getFloatByField(String field) {
        return (Float) getValueByField(field);
    }

    @Override
    public byte[] getBinaryByField(String field) {
        return (byte[]) getValueByField(field);
    }

    @Override
    public List<Object> getValues() {
        return values;
    }

    @Override
    public Fields getFields() {
        return fields;
    }

    @Override
    public List<Object> select(Fields selector) {
        return getFields().select(selector, values);
    }

    @Override
    public GlobalStreamId getSourceGlobalStreamId() {
        return new GlobalStreamId(srcComponent, streamId);
    }

    @Override
    public String getSourceComponent() {
        return srcComponent;
    }

    @Override
    public int getSourceTask() {
        return taskId;
    }

    @Override
    public String getSourceStreamId() {
        return streamId;
    }

    @Override
    public MessageId getMessageId() {
        return id;
    }

    @Override
    public GeneralTopologyContext getContext() {
        return context;
    }

    @Override
    public String toString() {
        return "source: " + srcComponent + ":" + taskId + ", stream: " + streamId + ", id: " + id
                + ", " + values + " PROC_START_TIME(sampled): " + getProcessSampleStartTime()
                + " EXEC_START_TIME(sampled): " + getExecuteSampleStartTime();
    }

    @Override
    public boolean equals(Object other) {
        return this == other;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
