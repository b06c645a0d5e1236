package org.apache.storm.testing;

import com.esotericsoftware.kryo.Kryo;
import org.apache.storm.serialization.IKryoDecorator;

/** Registers {@link TestSerObject} with Kryo (for {@code topology.kryo.decorators} tests). */
public class TestKryoDecorator implements IKryoDecorator {

    public TestKryoDecorator() {
    }

    @Override
    public void decorate(Kryo k) {
        k.register(TestSerObject.class);
    }
}
