package org.apache.storm.multilang;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import org.apache.storm.task.TopologyContext;

/**
 * The encoding of the multilang protocol between a shell component and its subprocess
 * ({@code topology.multilang.serializer}). One instance per subprocess; the writing methods
 * are called by one thread at a time and {@link #readShellMsg()} by one (other) thread.
 */
public interface ISerializer extends Serializable {

    /** Binds the serializer to the subprocess's stdin ({@code processIn}) and stdout ({@code processOut}). */
    void initialize(OutputStream processIn, InputStream processOut);

    /** Sends the setup message and returns the pid the subprocess answers with. */
    Number connect(Map<String, Object> conf, TopologyContext context) throws IOException, NoOutputException;

    ShellMsg readShellMsg() throws IOException, NoOutputException;

    void writeBoltMsg(BoltMsg msg) throws IOException;

    void writeSpoutMsg(SpoutMsg msg) throws IOException;

    void writeTaskIds(List<Integer> taskIds) throws IOException;
}
