package dev.egret.connectors;

import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.storm.kafka.spout.FirstPollOffsetStrategy;
import org.apache.storm.kafka.spout.KafkaSpout;
import org.apache.storm.kafka.spout.KafkaSpoutConfig;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;

/**
 * The source of the example topologies: a component whose default stream carries
 * {@code (key, seq, word)}, either our {@link SequenceSpout} ({@code source=seq}, the
 * default) or storm-kafka-client's {@link KafkaSpout} reading records whose value is a
 * sequence number ({@code source=kafka kafka.bootstrap=HOST:PORT kafka.topic=T
 * kafka.group=G}) followed by {@link ParseRecord}.
 */
final class Sources {
    private Sources() {
    }

    /** Adds the source to {@code builder}; returns the id of the component to subscribe to. */
    static String attach(TopologyBuilder builder, Options o, boolean lookups) {
        long total = o.getLong("total", 1000);
        int keys = o.getInt("keys", 10);
        String source = o.get("source", "seq");
        switch (source) {
            case "seq":
                builder.setSpout("source", new SequenceSpout(total, keys, lookups), o.getInt("spouts", 1));
                return "source";
            case "kafka":
                builder.setSpout("kafka-spout", new KafkaSpout<>(kafkaSpoutConfig(o)), o.getInt("spouts", 2));
                builder.setBolt("parse", new ParseRecord(keys), o.getInt("parsers", 2))
                        .shuffleGrouping("kafka-spout");
                return "parse";
            default:
                throw new IllegalArgumentException("source=" + source + " is neither seq nor kafka");
        }
    }

    static KafkaSpoutConfig<String, String> kafkaSpoutConfig(Options o) {
        return KafkaSpoutConfig.builder(o.get("kafka.bootstrap"), o.get("kafka.topic"))
                .setProp(ConsumerConfig.GROUP_ID_CONFIG, o.get("kafka.group"))
                .setProp(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500)
                .setProcessingGuarantee(KafkaSpoutConfig.ProcessingGuarantee.AT_LEAST_ONCE)
                .setFirstPollOffsetStrategy(FirstPollOffsetStrategy.EARLIEST)
                .setOffsetCommitPeriodMs(o.getLong("kafka.commit.ms", 1000))
                .build();
    }

    /** KafkaSpout's {@code (topic, partition, offset, key, value)} to {@code (key, seq, word)}. */
    static final class ParseRecord extends BaseRichBolt {
        private final int keys;
        private transient OutputCollector collector;

        ParseRecord(int keys) {
            this.keys = keys;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void execute(Tuple input) {
            long seq = Long.parseLong(input.getStringByField("value").trim());
            long k = seq % keys;
            collector.emit(input, new Values("k" + k, seq, "w" + k));
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("key", "seq", "word"));
        }
    }
}
