package org.apache.storm.serialization;

import com.esotericsoftware.kryo.Kryo;

/** Adds registrations to the tuple Kryo ({@code topology.kryo.decorators}); needs a public no-arg constructor. */
public interface IKryoDecorator {
    void decorate(Kryo k);
}
