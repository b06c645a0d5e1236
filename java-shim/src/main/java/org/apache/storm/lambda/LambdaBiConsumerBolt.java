package org.apache.storm.lambda;

import org.apache.storm.topology.BasicOutputCollector;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseBasicBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;

/** A basic bolt running a lambda over (tuple, collector) and declaring the given fields. */
public class LambdaBiConsumerBolt extends BaseBasicBolt {
    private final SerializableBiConsumer<Tuple, BasicOutputCollector> biConsumer;
    private final String[] fields;

    public LambdaBiConsumerBolt(SerializableBiConsumer<Tuple, BasicOutputCollector> biConsumer, String[] fields) {
        this.biConsumer = biConsumer;
        this.fields = fields;
    }

    @Override
    public void execute(Tuple input, BasicOutputCollector collector) {
        biConsumer.accept(input, collector);
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        if (fields.length > 0) {
            declarer.declare(new Fields(fields));
        }
    }
}
