package dev.egret.kafkatool;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The connector tests' side of Kafka (never part of a topology):
 * <ul>
 *   <li>{@code create BOOTSTRAP TOPIC PARTITIONS}: creates a topic (replication 1);</li>
 *   <li>{@code produce BOOTSTRAP TOPIC FROM TO}: records {@code seq} (key and value, text)
 *       for every seq in {@code [FROM, TO)}, acks=all, idempotent; prints {@code produced N};</li>
 *   <li>{@code consume BOOTSTRAP TOPIC FILE}: every record from the start to the end
 *       offsets as of now, one value a line, into FILE; prints {@code consumed N};</li>
 *   <li>{@code offsets BOOTSTRAP GROUP TOPIC}: one line per partition, {@code P COMMITTED
 *       END} (COMMITTED -1 when the group has none).</li>
 *   <li>{@code sentences BOOTSTRAP TOPIC N}: N records without a key whose values are
 *       sentences of 8 words drawn from a fixed vocabulary by a fixed generator (the same
 *       records every time), acks=1; prints {@code produced N};</li>
 *   <li>{@code watch BOOTSTRAP TOPIC FILE}: every 500 ms until killed, appends
 *       {@code <unix ms> <sum of the topic's end offsets>} to FILE (the time is the
 *       middle of the request).</li>
 * </ul>
 * Exit status 2 with a message on bad arguments, 1 on a Kafka error.
 */
public final class KafkaTool {
    private KafkaTool() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            usage();
        }
        String bootstrap = args[1];
        switch (args[0]) {
            case "create" -> create(bootstrap, args[2], Integer.parseInt(arg(args, 3)));
            case "produce" -> produce(bootstrap, args[2], Long.parseLong(arg(args, 3)), Long.parseLong(arg(args, 4)));
            case "consume" -> consume(bootstrap, args[2], Path.of(arg(args, 3)));
            case "offsets" -> offsets(bootstrap, args[2], arg(args, 3));
            case "sentences" -> sentences(bootstrap, args[2], Long.parseLong(arg(args, 3)));
            case "watch" -> watch(bootstrap, args[2], Path.of(arg(args, 3)));
            default -> usage();
        }
    }

    private static String arg(String[] args, int i) {
        if (i >= args.length) {
            usage();
        }
        return args[i];
    }

    private static void usage() {
        System.err.println("usage: KafkaTool create|produce|consume|offsets|sentences|watch BOOTSTRAP ...");
        System.exit(2);
    }

    private static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(p);
    }

    private static void create(String bootstrap, String topic, int partitions) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        System.out.println("created " + topic);
    }

    private static void produce(String bootstrap, String topic, long from, long to) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (long seq = from; seq < to; seq++) {
                String s = Long.toString(seq);
                producer.send(new ProducerRecord<>(topic, s, s));
            }
            producer.flush();
        }
        System.out.println("produced " + (to - from));
    }

    private static KafkaConsumer<String, String> consumer(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    private static void consume(String bootstrap, String topic, Path file) throws Exception {
        long n = 0;
        try (KafkaConsumer<String, String> consumer = consumer(bootstrap);
                BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            List<TopicPartition> parts = new ArrayList<>();
            consumer.partitionsFor(topic, Duration.ofSeconds(60))
                    .forEach(info -> parts.add(new TopicPartition(topic, info.partition())));
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts, Duration.ofSeconds(60));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("did not reach the end offsets " + end + " within 120 s");
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    out.write(r.value());
                    out.write('\n');
                    n++;
                }
            }
        }
        System.out.println("consumed " + n);
    }

    private static void offsets(String bootstrap, String group, String topic) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            Map<TopicPartition, OffsetAndMetadata> committed =
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS);
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(60, TimeUnit.SECONDS)
                    .get(topic).partitions().size();
            for (int p = 0; p < partitions; p++) {
                TopicPartition tp = new TopicPartition(topic, p);
                long end = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp)
                        .get(60, TimeUnit.SECONDS).offset();
                OffsetAndMetadata c = committed.get(tp);
                System.out.println(p + " " + (c == null ? -1 : c.offset()) + " " + end);
            }
        }
    }

    private static final String[] VOCABULARY = {
        "the", "cow", "jumped", "over", "moon", "an", "apple", "a", "day", "keeps", "doctor",
        "away", "four", "score", "and", "seven", "years", "ago", "snow", "white",
    };

    private static void sentences(String bootstrap, String topic, long n) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
        int state = 12_345;
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            StringBuilder sentence = new StringBuilder();
            for (long i = 0; i < n; i++) {
                sentence.setLength(0);
                for (int w = 0; w < 8; w++) {
                    state = state * 1_103_515_245 + 12_345;
                    if (w > 0) {
                        sentence.append(' ');
                    }
                    sentence.append(VOCABULARY[((state >>> 16) & 0x7fff) % VOCABULARY.length]);
                }
                producer.send(new ProducerRecord<>(topic, null, sentence.toString()));
            }
            producer.flush();
        }
        System.out.println("produced " + n);
    }

    private static void watch(String bootstrap, String topic, Path file) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(60, TimeUnit.SECONDS)
                    .get(topic).partitions().size();
            Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
            for (int i = 0; i < partitions; i++) {
                latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
            }
            while (true) {
                long before = System.currentTimeMillis();
                long sum = 0;
                for (var info : admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS).values()) {
                    sum += info.offset();
                }
                long after = System.currentTimeMillis();
                Files.writeString(file, ((before + after) / 2) + " " + sum + "\n", StandardCharsets.UTF_8,
                        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
                Thread.sleep(Math.max(0, 500 - (after - before)));
            }
        }
    }
}
