package dev.egret.connectors;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.redis.bolt.RedisLookupBolt;
import org.apache.storm.redis.bolt.RedisStoreBolt;
import org.apache.storm.redis.common.config.JedisPoolConfig;
import org.apache.storm.redis.common.mapper.RedisDataTypeDescription;
import org.apache.storm.redis.common.mapper.RedisLookupMapper;
import org.apache.storm.redis.common.mapper.RedisStoreMapper;
import org.apache.storm.topology.BasicOutputCollector;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseBasicBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.ITuple;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;

/**
 * Word counts kept in Redis with storm-redis, as its PersistentWordCount and
 * LookupWordCount examples do: the source's words are counted (fields grouping) and
 * every new count is written by a {@link RedisStoreBolt} into the hash {@code
 * <prefix>wordcount} (word → count). With {@code source=seq}, once every word is
 * stored the spout emits each word once more; a {@link RedisLookupBolt} reads its count
 * back from that hash and a second {@link RedisStoreBolt} writes what it read into
 * {@code <prefix>lookups}.
 *
 * <p>Arguments: {@code NAME redis.host=H redis.port=P [prefix=egret:] [total=1000]
 * [keys=10] [source=seq|kafka ...]}. The Redis password, if any, comes from the
 * environment variable {@code REDIS_PASSWORD}, never from the command line.
 */
public final class RedisWordCountTopology {
    private RedisWordCountTopology() {
    }

    /** {@code HSET <hash> <word> <count>} from a {@code (word, count)} tuple. */
    static final class HashStoreMapper implements RedisStoreMapper {
        private final String hash;

        HashStoreMapper(String hash) {
            this.hash = hash;
        }

        @Override
        public RedisDataTypeDescription getDataTypeDescription() {
            return new RedisDataTypeDescription(RedisDataTypeDescription.RedisDataType.HASH, hash);
        }

        @Override
        public String getKeyFromTuple(ITuple tuple) {
            return tuple.getStringByField("word");
        }

        @Override
        public String getValueFromTuple(ITuple tuple) {
            return String.valueOf(tuple.getValueByField("count"));
        }
    }

    /** {@code HGET <hash> <word>}, emitted as {@code (word, count)}. */
    static final class HashLookupMapper implements RedisLookupMapper {
        private final String hash;

        HashLookupMapper(String hash) {
            this.hash = hash;
        }

        @Override
        public List<Values> toTuple(ITuple input, Object value) {
            return List.of(new Values(input.getStringByField("word"), value));
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("word", "count"));
        }

        @Override
        public RedisDataTypeDescription getDataTypeDescription() {
            return new RedisDataTypeDescription(RedisDataTypeDescription.RedisDataType.HASH, hash);
        }

        @Override
        public String getKeyFromTuple(ITuple tuple) {
            return tuple.getStringByField("word");
        }

        @Override
        public String getValueFromTuple(ITuple tuple) {
            return null;
        }
    }

    /** Counts words in memory and emits every new count. */
    static final class WordCounter extends BaseBasicBolt {
        private final Map<String, Long> counts = new HashMap<>();

        @Override
        public void execute(Tuple input, BasicOutputCollector collector) {
            String word = input.getStringByField("word");
            long count = counts.merge(word, 1L, Long::sum);
            collector.emit(new Values(word, count));
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("word", "count"));
        }
    }

    static JedisPoolConfig jedis(Options o) {
        JedisPoolConfig.Builder builder = new JedisPoolConfig.Builder()
                .setHost(o.get("redis.host"))
                .setPort(o.getInt("redis.port", 6379))
                .setTimeout(10_000);
        String password = System.getenv("REDIS_PASSWORD");
        if (password != null && !password.isEmpty()) {
            builder.setPassword(password);
        }
        return builder.build();
    }

    public static void main(String[] args) throws Exception {
        Options o = new Options(args, "RedisWordCountTopology NAME redis.host=H redis.port=P [prefix=..] [total=N] [keys=K] [source=seq|kafka ..]");
        String prefix = o.get("prefix", "egret:");
        JedisPoolConfig jedis = jedis(o);
        boolean lookups = o.get("source", "seq").equals("seq");

        TopologyBuilder builder = new TopologyBuilder();
        String source = Sources.attach(builder, o, lookups);
        builder.setBolt("count", new WordCounter(), 2).fieldsGrouping(source, new Fields("word"));
        builder.setBolt("store", new RedisStoreBolt(jedis, new HashStoreMapper(prefix + "wordcount")), 2)
                .fieldsGrouping("count", new Fields("word"));
        if (lookups) {
            builder.setBolt("lookup", new RedisLookupBolt(jedis, new HashLookupMapper(prefix + "wordcount")), 1)
                    .shuffleGrouping(source, SequenceSpout.LOOKUP_STREAM);
            builder.setBolt("store-lookups", new RedisStoreBolt(jedis, new HashStoreMapper(prefix + "lookups")), 1)
                    .shuffleGrouping("lookup");
        }

        Config conf = new Config();
        conf.setNumWorkers(2);
        conf.setMessageTimeoutSecs(120);
        conf.setMaxSpoutPending(500);
        StormSubmitter.submitTopology(o.name, conf, builder.createTopology());
    }
}
