package dev.egret.connectors;

import java.sql.Types;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.jdbc.bolt.JdbcInsertBolt;
import org.apache.storm.jdbc.common.Column;
import org.apache.storm.jdbc.common.ConnectionProvider;
import org.apache.storm.jdbc.common.HikariCPConnectionProvider;
import org.apache.storm.jdbc.mapper.SimpleJdbcMapper;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.tuple.Fields;

/**
 * Every record of the source inserted into a SQL table by storm-jdbc's {@link
 * JdbcInsertBolt} through a {@link HikariCPConnectionProvider} (PostgreSQL's {@code
 * PGSimpleDataSource}): {@code INSERT INTO <table> (rkey, seq) VALUES (?, ?)}, one row per
 * tuple, the tuple acked once its row is in.
 *
 * <p>Arguments: {@code NAME jdbc.url=jdbc:postgresql://H:P/DB jdbc.user=U [table=records]
 * [total=N] [keys=K] [source=seq|kafka ..]}. The table must exist.
 */
public final class JdbcInsertTopology {
    private JdbcInsertTopology() {
    }

    public static void main(String[] args) throws Exception {
        Options o = new Options(args, "JdbcInsertTopology NAME jdbc.url=URL jdbc.user=U [table=T] [total=N] [keys=K] [source=seq|kafka ..]");
        Map<String, Object> hikari = new HashMap<>();
        hikari.put("dataSourceClassName", "org.postgresql.ds.PGSimpleDataSource");
        hikari.put("dataSource.url", o.get("jdbc.url"));
        hikari.put("dataSource.user", o.get("jdbc.user"));
        hikari.put("maximumPoolSize", "2");
        ConnectionProvider connections = new HikariCPConnectionProvider(hikari);
        List<Column> columns = List.of(new Column<>("rkey", Types.VARCHAR), new Column<>("seq", Types.BIGINT));
        JdbcInsertBolt insert = new JdbcInsertBolt(connections, new SimpleJdbcMapper(columns))
                .withInsertQuery("INSERT INTO " + o.get("table", "records") + " (rkey, seq) VALUES (?, ?)")
                .withQueryTimeoutSecs(30);

        TopologyBuilder builder = new TopologyBuilder();
        String source = Sources.attach(builder, o, false);
        builder.setBolt("rows", new RowFields(), 2).shuffleGrouping(source);
        builder.setBolt("insert", insert, 2).shuffleGrouping("rows");

        Config conf = new Config();
        conf.setNumWorkers(2);
        conf.setMessageTimeoutSecs(o.getInt("timeout.secs", 60));
        conf.setMaxSpoutPending(500);
        StormSubmitter.submitTopology(o.name, conf, builder.createTopology());
    }

    /** {@code (key, seq, word)} to the table's columns {@code (rkey, seq)}. */
    static final class RowFields extends org.apache.storm.topology.base.BaseBasicBolt {
        @Override
        public void execute(org.apache.storm.tuple.Tuple input, org.apache.storm.topology.BasicOutputCollector collector) {
            collector.emit(new org.apache.storm.tuple.Values(input.getStringByField("key"), input.getLongByField("seq")));
        }

        @Override
        public void declareOutputFields(org.apache.storm.topology.OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("rkey", "seq"));
        }
    }
}
