package dev.egret.connectors;

import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.state.KeyValueState;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseStatefulBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;

/**
 * A stateful bolt whose {@link KeyValueState} lives in Redis: {@code
 * topology.state.provider} is storm-redis's {@code RedisKeyValueStateProvider}, configured
 * by {@code topology.state.provider.config} (JSON) with keys and values stored as text
 * ({@link TextSerializer}). The bolt counts the source's records per key; its committed
 * state is the Redis hash named by its namespace ({@code count-<task id>}).
 *
 * <p>Arguments: {@code NAME redis.host=H redis.port=P [total=N] [keys=K]
 * [checkpoint.ms=1000]}.
 */
public final class RedisStateTopology {
    private RedisStateTopology() {
    }

    /** Counts records per key in its state. */
    public static class KeyCounter extends BaseStatefulBolt<KeyValueState<String, Long>> {
        private transient KeyValueState<String, Long> state;
        private transient OutputCollector collector;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void initState(KeyValueState<String, Long> state) {
            this.state = state;
        }

        @Override
        public void execute(Tuple input) {
            String key = input.getStringByField("key");
            state.put(key, state.get(key, 0L) + 1);
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
        }
    }

    public static void main(String[] args) throws Exception {
        Options o = new Options(args, "RedisStateTopology NAME redis.host=H redis.port=P [total=N] [keys=K] [checkpoint.ms=MS]");
        TopologyBuilder builder = new TopologyBuilder();
        String source = Sources.attach(builder, o, false);
        builder.setBolt("count", new KeyCounter(), 2).fieldsGrouping(source, new Fields("key"));

        Config conf = new Config();
        conf.setNumWorkers(2);
        conf.setMessageTimeoutSecs(o.getInt("timeout.secs", 30));
        conf.setMaxSpoutPending(200);
        conf.put(Config.TOPOLOGY_STATE_CHECKPOINT_INTERVAL, o.getInt("checkpoint.ms", 1000));
        conf.put(Config.TOPOLOGY_STATE_PROVIDER, "org.apache.storm.redis.state.RedisKeyValueStateProvider");
        conf.put(Config.TOPOLOGY_STATE_PROVIDER_CONFIG, "{"
                + "\"keyClass\": \"java.lang.String\", \"valueClass\": \"java.lang.Long\","
                + " \"keySerializerClass\": \"" + TextSerializer.class.getName() + "\","
                + " \"valueSerializerClass\": \"" + TextSerializer.LongAsText.class.getName() + "\","
                + " \"jedisPoolConfig\": {\"host\": \"" + o.get("redis.host") + "\", \"port\": "
                + o.getInt("redis.port", 6379) + "}}");
        StormSubmitter.submitTopology(o.name, conf, builder.createTopology());
    }
}
