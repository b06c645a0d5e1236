package org.apache.storm.serialization;

import com.esotericsoftware.kryo.io.Input;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.storm.task.GeneralTopologyContext;
import org.apache.storm.tuple.MessageId;
import org.apache.storm.tuple.TupleImpl;

/**
 * Reads a tuple written by {@link KryoTupleSerializer}; the source component and the fields
 * come from {@code context} (the topology the tuple belongs to). Not thread-safe.
 */
public class KryoTupleDeserializer implements ITupleDeserializer {
    private final GeneralTopologyContext context;
    private final KryoValuesDeserializer values;
    private final Input input = new Input(1);

    public KryoTupleDeserializer(Map<String, Object> conf, GeneralTopologyContext context) {
        this.context = context;
        this.values = new KryoValuesDeserializer(conf);
    }

    @Override
    public TupleImpl deserialize(byte[] ser) {
        input.setBuffer(ser);
        int taskId = input.readInt(true);
        String streamId = input.readString();
        String component = context.getComponentId(taskId);
        if (component == null) {
            throw new IllegalArgumentException("serialized tuple names task " + taskId
                    + ", which is not a task of this topology");
        }
        MessageId id;
        try {
            id = MessageId.deserialize(input);
        } catch (IOException e) {
            throw new RuntimeException("could not read the message id of a serialized tuple", e);
        }
        List<Object> vals = values.deserializeFrom(input);
        return new TupleImpl(context, vals, component, taskId, streamId, id);
    }
}
