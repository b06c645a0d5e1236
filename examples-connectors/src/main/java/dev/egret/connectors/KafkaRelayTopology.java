package dev.egret.connectors;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.kafka.bolt.KafkaBolt;
import org.apache.storm.kafka.bolt.mapper.FieldNameBasedTupleToKafkaMapper;
import org.apache.storm.kafka.bolt.selector.DefaultTopicSelector;
import org.apache.storm.kafka.spout.KafkaSpout;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;

/**
 * Kafka to Kafka, at-least-once: storm-kafka-client's {@link KafkaSpout} reads {@code
 * kafka.topic} (group {@code kafka.group}, offsets committed as tuples are acked), a bolt
 * of ours passes each record's key and value on (anchored), and {@link KafkaBolt} writes
 * them to {@code kafka.out} (acks=all), acking each tuple once the broker has the record.
 *
 * <p>Arguments: {@code NAME kafka.bootstrap=H:P kafka.topic=IN kafka.out=OUT
 * kafka.group=G [spouts=2] [relays=2] [writers=2] [workers=2]
 * [kafka.delivery.timeout.ms=N]}. The last is the producer's {@code delivery.timeout.ms}
 * (Kafka's default 120 000): how long a record may wait for the broker before its send
 * fails, which KafkaBolt reports ({@code reportError}) and fails the tuple for; with
 * it, the producer's {@code request.timeout.ms} is N / 2.
 */
public final class KafkaRelayTopology {
    private KafkaRelayTopology() {
    }

    /** {@code (topic, partition, offset, key, value)} to {@code (key, message)}, anchored. */
    static final class Relay extends BaseRichBolt {
        private transient OutputCollector collector;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void execute(Tuple input) {
            collector.emit(input, new Values(input.getStringByField("key"), input.getStringByField("value")));
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("key", "message"));
        }
    }

    public static void main(String[] args) throws Exception {
        Options o = new Options(args, "KafkaRelayTopology NAME kafka.bootstrap=H:P kafka.topic=IN kafka.out=OUT kafka.group=G");
        Properties producer = new Properties();
        producer.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, o.get("kafka.bootstrap"));
        producer.put(ProducerConfig.ACKS_CONFIG, "all");
        producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, "org.apache.kafka.common.serialization.StringSerializer");
        producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, "org.apache.kafka.common.serialization.StringSerializer");
        String delivery = o.get("kafka.delivery.timeout.ms", "");
        if (!delivery.isEmpty()) {
            long ms = o.getLong("kafka.delivery.timeout.ms", 0);
            producer.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(ms));
            producer.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(ms / 2));
        }
        KafkaBolt<String, String> writer = new KafkaBolt<String, String>()
                .withProducerProperties(producer)
                .withTopicSelector(new DefaultTopicSelector(o.get("kafka.out")))
                .withTupleToKafkaMapper(new FieldNameBasedTupleToKafkaMapper<>());

        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("kafka-spout", new KafkaSpout<>(Sources.kafkaSpoutConfig(o)), o.getInt("spouts", 2));
        builder.setBolt("relay", new Relay(), o.getInt("relays", 2)).shuffleGrouping("kafka-spout");
        builder.setBolt("kafka-bolt", writer, o.getInt("writers", 2)).shuffleGrouping("relay");

        Config conf = new Config();
        conf.setNumWorkers(o.getInt("workers", 2));
        conf.setMessageTimeoutSecs(o.getInt("timeout.secs", 30));
        conf.setMaxSpoutPending(o.getInt("pending", 2000));
        StormSubmitter.submitTopology(o.name, conf, builder.createTopology());
    }
}
