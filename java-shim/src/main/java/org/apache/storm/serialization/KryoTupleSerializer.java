package org.apache.storm.serialization;

import com.esotericsoftware.kryo.io.Output;
import java.io.IOException;
import java.util.Map;
import org.apache.storm.task.GeneralTopologyContext;
import org.apache.storm.tuple.Tuple;

/**
 * Serializes a whole tuple with the topology's Kryo: source task, stream id, message id
 * (anchors to ack values), then the values. {@link KryoTupleDeserializer} reads it back with a
 * context of the same topology. (Egret's instances exchange tuples in the stream manager's
 * format; this is the API for code that serializes tuples itself.) Not thread-safe.
 */
public class KryoTupleSerializer implements ITupleSerializer {
    private final KryoValuesSerializer values;
    private final Output output = new Output(2000, 2_000_000_000);

    public KryoTupleSerializer(Map<String, Object> conf, GeneralTopologyContext context) {
        this.values = new KryoValuesSerializer(conf);
    }

    @Override
    public byte[] serialize(Tuple tuple) {
        output.reset();
        output.writeInt(tuple.getSourceTask(), true);
        output.writeString(tuple.getSourceStreamId());
        try {
            tuple.getMessageId().serialize(output);
        } catch (IOException e) {
            throw new RuntimeException("could not serialize the message id of " + tuple, e);
        }
        values.serializeInto(tuple.getValues(), output);
        return output.toBytes();
    }
}
