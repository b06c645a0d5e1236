package dev.egret.connectors;

import java.util.HashMap;
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
 * Kafka in, a split and count, Kafka out (the {@code egret bench --workload kafka}
 * topology): storm-kafka-client's {@link KafkaSpout} reads sentences from {@code
 * kafka.topic} (group {@code kafka.group}, at-least-once), a split bolt emits each word
 * (anchored), a count bolt (fields grouping on the word) keeps counts in memory and
 * emits {@code (word, count)} for every word it counts, and {@link KafkaBolt} writes
 * those to {@code kafka.out} (key the word, value the count; acks=1), acking each tuple
 * once the broker has its record.
 *
 * <p>Arguments: {@code NAME kafka.bootstrap=H:P kafka.topic=IN kafka.out=OUT
 * kafka.group=G [spouts=1] [splitters=1] [counters=1] [writers=1] [workers=1]
 * [pending=1000]}.
 */
public final class KafkaWordCountTopology {
    private KafkaWordCountTopology() {
    }

    /** A sentence (the record's value) to one tuple per word, anchored. */
    static final class Split extends BaseRichBolt {
        private transient OutputCollector collector;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void execute(Tuple input) {
            for (String word : input.getStringByField("value").split(" ")) {
                if (!word.isEmpty()) {
                    collector.emit(input, new Values(word));
                }
            }
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("word"));
        }
    }

    /** Counts words; emits {@code (key=word, message=count)} for each, anchored. */
    static final class Count extends BaseRichBolt {
        private transient OutputCollector collector;
        private transient Map<String, Long> counts;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            this.counts = new HashMap<>();
        }

        @Override
        public void execute(Tuple input) {
            String word = input.getStringByField("word");
            long count = counts.merge(word, 1L, Long::sum);
            collector.emit(input, new Values(word, Long.toString(count)));
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("key", "message"));
        }
    }

    public static void main(String[] args) throws Exception {
        Options o = new Options(args,
                "KafkaWordCountTopology NAME kafka.bootstrap=H:P kafka.topic=IN kafka.out=OUT kafka.group=G");
        Properties producer = new Properties();
        producer.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, o.get("kafka.bootstrap"));
        producer.put(ProducerConfig.ACKS_CONFIG, "1");
        producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, "org.apache.kafka.common.serialization.StringSerializer");
        producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, "org.apache.kafka.common.serialization.StringSerializer");
        KafkaBolt<String, String> writer = new KafkaBolt<String, String>()
                .withProducerProperties(producer)
                .withTopicSelector(new DefaultTopicSelector(o.get("kafka.out")))
                .withTupleToKafkaMapper(new FieldNameBasedTupleToKafkaMapper<>());

        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("kafka-spout", new KafkaSpout<>(Sources.kafkaSpoutConfig(o)), o.getInt("spouts", 1));
        builder.setBolt("split", new Split(), o.getInt("splitters", 1)).shuffleGrouping("kafka-spout");
        builder.setBolt("count", new Count(), o.getInt("counters", 1)).fieldsGrouping("split", new Fields("word"));
        builder.setBolt("kafka-bolt", writer, o.getInt("writers", 1)).shuffleGrouping("count");

        Config conf = new Config();
        conf.setNumWorkers(o.getInt("workers", 1));
        conf.setMessageTimeoutSecs(o.getInt("timeout.secs", 30));
        conf.setMaxSpoutPending(o.getInt("pending", 1000));
        StormSubmitter.submitTopology(o.name, conf, builder.createTopology());
    }
}
