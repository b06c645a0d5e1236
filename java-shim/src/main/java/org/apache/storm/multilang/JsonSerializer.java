package org.apache.storm.multilang;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egret.multilang.JsonValues;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.task.TopologyContext;

/**
 * The default multilang encoding: one JSON value per message, each followed by a line
 * {@code end}. Integers read from the subprocess become {@link Long}, decimals {@link Double}
 * (what Storm's json-simple produced). Values the subprocess cannot know as JSON (user
 * objects in a tuple or the config) are sent as their {@code toString()}.
 *
 * <p>A message larger than {@link #MAX_MESSAGE_CHARS} is refused: a subprocess that never
 * prints {@code end} must not exhaust the worker's heap.
 */
public class JsonSerializer implements ISerializer {
    private static final long serialVersionUID = 2548814660410474022L;

    public static final String DEFAULT_CHARSET = "UTF-8";

    /** Upper bound of one message from the subprocess, in chars (64 Mi, the frame cap's order). */
    static final int MAX_MESSAGE_CHARS = 64 * 1024 * 1024;

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.USE_LONG_FOR_INTS);

    private transient BufferedWriter processIn;
    private transient BufferedReader processOut;

    public JsonSerializer() {
    }

    @Override
    public void initialize(OutputStream processIn, InputStream processOut) {
        this.processIn = new BufferedWriter(new OutputStreamWriter(processIn, StandardCharsets.UTF_8));
        this.processOut = new BufferedReader(new InputStreamReader(processOut, StandardCharsets.UTF_8));
    }

    @Override
    public Number connect(Map<String, Object> conf, TopologyContext context) throws IOException, NoOutputException {
        Map<String, Object> setup = new LinkedHashMap<>();
        setup.put("conf", JsonValues.sanitize(conf));
        setup.put("pidDir", context == null ? null : context.getPIDDir());
        setup.put("context", JsonValues.contextOf(context));
        writeMessage(setup);
        Object reply = readMessage();
        if (!(reply instanceof Map)) {
            throw new IOException("The subprocess answered the setup message with " + brief(reply)
                    + " instead of {\"pid\": n}");
        }
        Object pid = ((Map<?, ?>) reply).get("pid");
        if (!(pid instanceof Number)) {
            throw new IOException("The subprocess answered the setup message without a numeric pid: "
                    + brief(reply));
        }
        return (Number) pid;
    }

    @Override
    public void writeBoltMsg(BoltMsg msg) throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", msg.getId());
        m.put("comp", msg.getComp());
        m.put("stream", msg.getStream());
        m.put("task", msg.getTask());
        m.put("tuple", JsonValues.sanitize(msg.getTuple()));
        writeMessage(m);
    }

    @Override
    public void writeSpoutMsg(SpoutMsg msg) throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("command", msg.getCommand());
        if (msg.getId() != null) {
            m.put("id", JsonValues.sanitize(msg.getId()));
        }
        writeMessage(m);
    }

    @Override
    public void writeTaskIds(List<Integer> taskIds) throws IOException {
        writeMessage(taskIds == null ? new ArrayList<>() : taskIds);
    }

    @Override
    public ShellMsg readShellMsg() throws IOException, NoOutputException {
        Object value = readMessage();
        if (!(value instanceof Map)) {
            throw new IOException("The subprocess sent " + brief(value) + " where a JSON object was expected");
        }
        return toShellMsg((Map<?, ?>) value);
    }

    static ShellMsg toShellMsg(Map<?, ?> m) throws IOException {
        ShellMsg msg = new ShellMsg();
        Object command = m.get("command");
        if (!(command instanceof String)) {
            throw new IOException("A message from the subprocess has no \"command\": " + brief(m));
        }
        msg.setCommand((String) command);
        msg.setId(m.get("id"));
        Object anchors = m.get("anchors");
        if (anchors instanceof List) {
            for (Object a : (List<?>) anchors) {
                if (a != null) {
                    msg.addAnchor(String.valueOf(a));
                }
            }
        } else if (anchors != null) {
            msg.addAnchor(String.valueOf(anchors));
        }
        Object stream = m.get("stream");
        msg.setStream(stream == null ? null : String.valueOf(stream));
        Object task = m.get("task");
        if (task instanceof Number) {
            msg.setTask(((Number) task).longValue());
        } else if (task != null) {
            throw new IOException("\"task\" must be a number in " + brief(m));
        }
        Object text = m.get("msg");
        msg.setMsg(text == null ? null : String.valueOf(text));
        Object tuple = m.get("tuple");
        if (tuple instanceof List) {
            @SuppressWarnings("unchecked")
            List<Object> values = (List<Object>) tuple;
            msg.setTuple(values);
        } else if (tuple != null) {
            throw new IOException("\"tuple\" must be a JSON array in " + brief(m));
        }
        // The protocol's default: the subprocess waits for the task ids of a non-direct emit.
        Object need = m.get("need_task_ids");
        msg.setNeedTaskIds(need == null || Boolean.TRUE.equals(need));
        Object level = m.get("level");
        msg.setLogLevel(level instanceof Number ? ((Number) level).intValue() : 2);
        Object name = m.get("name");
        msg.setMetricName(name == null ? null : String.valueOf(name));
        msg.setMetricParams(m.get("params"));
        return msg;
    }

    private void writeMessage(Object value) throws IOException {
        if (processIn == null) {
            throw new IOException("JsonSerializer is not initialized");
        }
        String json;
        try {
            json = MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IOException("Could not encode a message for the subprocess: " + e.getOriginalMessage(), e);
        }
        processIn.write(json);
        processIn.write("\nend\n");
        processIn.flush();
    }

    private Object readMessage() throws IOException, NoOutputException {
        if (processOut == null) {
            throw new IOException("JsonSerializer is not initialized");
        }
        StringBuilder sb = new StringBuilder();
        while (true) {
            String line = processOut.readLine();
            if (line == null) {
                if (sb.length() == 0) {
                    throw new NoOutputException("Pipe to subprocess seems to be broken! No output read.");
                }
                throw new NoOutputException("Pipe to subprocess seems to be broken! Output ended before \"end\": "
                        + abbreviate(sb.toString()));
            }
            if (line.equals("end")) {
                break;
            }
            if (sb.length() + line.length() > MAX_MESSAGE_CHARS) {
                throw new IOException("A message from the subprocess exceeds " + MAX_MESSAGE_CHARS
                        + " chars without its \"end\" line");
            }
            if (sb.length() > 0) {
                sb.append('\n');
            }
            sb.append(line);
        }
        String text = sb.toString();
        if (text.isBlank()) {
            throw new IOException("The subprocess sent an empty message");
        }
        try {
            return MAPPER.readValue(text, Object.class);
        } catch (JsonProcessingException e) {
            throw new IOException("The subprocess sent invalid JSON (" + e.getOriginalMessage() + "): "
                    + abbreviate(text), e);
        }
    }

    private static String brief(Object value) {
        return abbreviate(String.valueOf(value));
    }

    private static String abbreviate(String s) {
        return s.length() <= 500 ? s : s.substring(0, 500) + "...";
    }
}
