package org.apache.storm.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.Charset;
import java.util.Collection;
import java.util.Map;
import org.apache.storm.metric.api.IMetricsConsumer;
import org.apache.storm.task.IErrorReporter;
import org.apache.storm.task.TopologyContext;

/**
 * A metrics consumer that writes every data point as a line to a TCP server, for tests that
 * collect a topology's metrics: the registration argument is {@code host:port}; each line is
 * {@code timestamp \t workerHost:workerPort \t taskId \t componentId \t name \t value}.
 */
public class ForwardingMetricsConsumer implements IMetricsConsumer {
    private transient Socket socket;
    private transient OutputStream out;

    public ForwardingMetricsConsumer() {
    }

    @Override
    public void prepare(Map<String, Object> topoConf, Object registrationArgument, TopologyContext context,
                        IErrorReporter errorReporter) {
        String dest = String.valueOf(registrationArgument);
        String[] hostPort = dest.split(":", 2);
        if (hostPort.length != 2) {
            throw new IllegalArgumentException("ForwardingMetricsConsumer needs host:port as its argument, got " + dest);
        }
        try {
            socket = new Socket(hostPort[0], Integer.parseInt(hostPort[1].trim()));
            out = socket.getOutputStream();
        } catch (IOException | NumberFormatException e) {
            throw new RuntimeException("ForwardingMetricsConsumer could not connect to " + dest, e);
        }
    }

    @Override
    public void handleDataPoints(TaskInfo taskInfo, Collection<DataPoint> dataPoints) {
        String prefix = taskInfo.timestamp + "\t" + taskInfo.srcWorkerHost + ":" + taskInfo.srcWorkerPort + "\t"
                + taskInfo.srcTaskId + "\t" + taskInfo.srcComponentId + "\t";
        for (DataPoint p : dataPoints) {
            String line = prefix + p.name + "\t" + p.value + "\n";
            try {
                out.write(line.getBytes(Charset.defaultCharset()));
                out.flush();
            } catch (IOException e) {
                throw new RuntimeException("ForwardingMetricsConsumer could not write a data point", e);
            }
        }
    }

    @Override
    public void cleanup() {
        try {
            if (socket != null) {
                socket.close();
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }
}
