package org.apache.storm.metrics2.reporters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Counter;
import dev.egret.client.TopologyCapture;
import dev.egret.instance.TopologyView;
import dev.egret.metrics.TaskMetrics;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.storm.metrics2.StormMetricRegistry;
import org.apache.storm.metrics2.filters.RegexFilter;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each reporter against its real destination (files, the platform MBean server, a TCP socket),
 * fed by a task's TopologyContext.registerCounter through the worker registry, with Storm's names.
 */
class ReportersTest {
    static final class Spout extends BaseRichSpout {
        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
        }

        @Override
        public void nextTuple() {
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("v"));
        }
    }

    /** A worker registry started without reporters and one task's context attached to it. */
    private static final class Worker {
        final StormMetricRegistry registry = new StormMetricRegistry();
        final TopologyContext context;
        final String prefix;

        Worker(String topologyName, Map<String, Object> conf) throws Exception {
            TopologyBuilder b = new TopologyBuilder();
            b.setSpout("my.spout", new Spout());
            TopologyView view = new TopologyView(TopologyCapture.capture(topologyName, new HashMap<>(),
                    b.createTopology()));
            Map<String, Object> c = new HashMap<>(conf);
            c.put("storm.id", view.stormId());
            registry.start(c, 0);
            int task = view.tasksOf("my.spout").get(0);
            TaskMetrics metrics = new TaskMetrics(true);
            context = new TopologyContext(view, task, List.of(task), "/tmp", "/tmp", null, null, null, metrics);
            metrics.attach(registry, context);
            prefix = "storm.topology." + view.stormId() + "." + Utils.localHostname().replace('.', '_')
                    + ".my_spout." + task + ".0-";
        }
    }

    @Test
    void taskMetricsGetStormsFullNamesAndShortNamesPerTask() throws Exception {
        Worker w = new Worker("names", Map.of());
        Counter c = w.context.registerCounter("processed");
        c.inc(5);
        assertEquals(c, w.registry.getRegistry().getCounters().get(w.prefix + "processed"),
                "registered under storm.topology.<id>.<host>.<component, dots as _>.<task>.<port>-<name>");
        assertEquals(c, w.registry.getTaskCounters(w.context.getThisTaskId()).get("processed"));
        assertEquals(c, w.context.registerCounter("processed"), "get-or-create, as before");
        assertEquals(1, w.registry.getTaskMetrics().size());
        Map<String, String> dims = w.registry.getTaskMetrics().keySet().iterator().next().getDimensions();
        assertEquals("my.spout", dims.get("componentId"));
        assertEquals(String.valueOf(w.context.getThisTaskId()), dims.get("taskid"));
        assertEquals("0", dims.get("port"));
        w.registry.stop();
    }

    @Test
    void csvReporterWritesTheCounterValueToItsFile(@TempDir Path dir) throws Exception {
        Worker w = new Worker("csv", Map.of());
        w.context.registerCounter("processed").inc(42);
        CsvStormReporter csv = new CsvStormReporter();
        Map<String, Object> conf = new HashMap<>();
        conf.put("class", CsvStormReporter.class.getName());
        conf.put(CsvStormReporter.CSV_LOG_DIR, dir.resolve("out").toString());
        conf.put("report.period", 7);
        conf.put("report.period.units", "MINUTES");
        csv.prepare(w.registry, Map.of(), conf);
        assertEquals(7, csv.reportingPeriod);
        assertEquals(java.util.concurrent.TimeUnit.MINUTES, csv.reportingPeriodUnit);
        csv.reporter.report();
        Path file = dir.resolve("out").resolve(w.prefix + "processed.csv");
        assertTrue(Files.exists(file), "files: " + list(dir.resolve("out")));
        List<String> lines = Files.readAllLines(file);
        assertEquals("t,count", lines.get(0));
        assertTrue(lines.get(1).endsWith(",42"), lines.toString());
        csv.close();
    }

    @Test
    void reportersConfiguredForTheWorkerReportOnTheirPeriod(@TempDir Path dir) throws Exception {
        Map<String, Object> csv = new HashMap<>();
        csv.put("class", CsvStormReporter.class.getName());
        csv.put(CsvStormReporter.CSV_LOG_DIR, dir.toString());
        csv.put("report.period", 1);
        csv.put("report.period.units", "SECONDS");
        Map<String, Object> filter = new HashMap<>();
        filter.put("class", RegexFilter.class.getName());
        filter.put("expression", ".*-kept");
        csv.put("filter", filter);
        List<Object> reporters = new ArrayList<>();
        reporters.add(Map.of("class", "no.such.Reporter"));
        reporters.add(Map.of("class", GraphiteStormReporter.class.getName()));
        reporters.add("not a map");
        reporters.add(csv);
        Worker w = new Worker("periodic", Map.of("topology.metrics.reporters", reporters));
        w.context.registerCounter("kept").inc(3);
        w.context.registerCounter("dropped").inc(4);
        Path file = dir.resolve(w.prefix + "kept.csv");
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!(Files.exists(file) && Files.readAllLines(file).size() > 1) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertTrue(Files.exists(file), "the bad entries before it did not stop the CSV reporter: " + list(dir));
        assertTrue(Files.readAllLines(file).get(1).endsWith(",3"));
        assertFalse(Files.exists(dir.resolve(w.prefix + "dropped.csv")), "the filter leaves it out");
        w.registry.stop();
    }

    @Test
    void jmxReporterRegistersMBeansWithTheCounterValue() throws Exception {
        Worker w = new Worker("jmx", Map.of());
        w.context.registerCounter("processed").inc(17);
        JmxStormReporter jmx = new JmxStormReporter();
        jmx.prepare(w.registry, Map.of(), Map.of("class", JmxStormReporter.class.getName(),
                JmxStormReporter.JMX_DOMAIN, "egret.test"));
        jmx.start();
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            Set<ObjectName> names = server.queryNames(new ObjectName("egret.test:*"), null);
            ObjectName name = names.stream().filter(n -> n.toString().contains(w.prefix + "processed")).findFirst()
                    .orElse(null);
            assertNotNull(name, "MBeans: " + names);
            assertEquals(17L, server.getAttribute(name, "Count"));
        } finally {
            jmx.stop();
        }
        assertTrue(ManagementFactory.getPlatformMBeanServer().queryNames(new ObjectName("egret.test:*"), null)
                .isEmpty(), "stop unregisters them");
    }

    @Test
    void graphiteReporterSendsPlaintextLinesOverTcp() throws Exception {
        Worker w = new Worker("graphite", Map.of());
        w.context.registerCounter("processed").inc(9);
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            server.setSoTimeout(60_000);
            GraphiteStormReporter g = new GraphiteStormReporter();
            Map<String, Object> conf = new HashMap<>();
            conf.put("class", GraphiteStormReporter.class.getName());
            conf.put(GraphiteStormReporter.GRAPHITE_HOST, "127.0.0.1");
            conf.put(GraphiteStormReporter.GRAPHITE_PORT, server.getLocalPort());
            conf.put(GraphiteStormReporter.GRAPHITE_PREFIXED_WITH, "pre");
            g.prepare(w.registry, Map.of(), conf);
            Thread reporting = new Thread(g.reporter::report);
            reporting.start();
            List<String> lines = new ArrayList<>();
            try (Socket s = server.accept();
                 BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(),
                         StandardCharsets.UTF_8))) {
                reporting.join();
                g.close();
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                }
            }
            String expected = "pre." + w.prefix + "processed.count 9 ";
            assertTrue(lines.stream().anyMatch(l -> l.startsWith(expected)), "lines: " + lines);
        }
    }

    @Test
    void graphiteNeedsHostAndPortAndNamesTheKey() throws Exception {
        Worker w = new Worker("graphite-bad", Map.of());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new GraphiteStormReporter().prepare(w.registry, Map.of(), Map.of("graphite.port", 2003)));
        assertTrue(e.getMessage().contains("graphite.host"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new GraphiteStormReporter().prepare(w.registry,
                Map.of(), Map.of("graphite.host", "localhost", "graphite.port", "http")));
        assertTrue(e.getMessage().contains("graphite.port"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new CsvStormReporter().prepare(w.registry,
                Map.of(), Map.of("rate.unit", "FORTNIGHTS")));
        assertTrue(e.getMessage().contains("rate.unit"), e.getMessage());
    }

    @Test
    void consoleReporterWithDimensionsPrintsShortNames() throws Exception {
        Worker w = new Worker("console", Map.of());
        w.context.registerCounter("processed").inc(2);
        ConsoleStormReporter console = new ConsoleStormReporter();
        java.io.PrintStream old = System.out;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        System.setOut(new java.io.PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            console.prepare(w.registry, Map.of(), Map.of("report.dimensions.enabled", true));
            console.reporter.report();
        } finally {
            System.setOut(old);
        }
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("componentId : my.spout"), text);
        assertTrue(text.contains("processed"), text);
        assertFalse(text.contains(w.prefix), "short names with dimensions: " + text);
    }

    private static String list(Path dir) throws Exception {
        if (!Files.isDirectory(dir)) {
            return "(no directory)";
        }
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).collect(Collectors.joining(", "));
        }
    }
}
