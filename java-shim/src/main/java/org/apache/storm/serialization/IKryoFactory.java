package org.apache.storm.serialization;

import com.esotericsoftware.kryo.Kryo;
import java.util.Map;

/**
 * Builds the Kryo instance used for tuples ({@code topology.kryo.factory}). The hooks run
 * around the registrations: pre, then {@code topology.kryo.register}, post, decorators, postDecorate.
 */
public interface IKryoFactory {
    Kryo getKryo(Map<String, Object> conf);

    void preRegister(Kryo k, Map<String, Object> conf);

    void postRegister(Kryo k, Map<String, Object> conf);

    void postDecorate(Kryo k, Map<String, Object> conf);
}
